"""`context --json` with the helper that encodes a conversation's messages while the session
opens: the same bytes as without it, whatever the session, and used only where it fits."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import pytest
from pi_sessions.app.subcommands.output import write_line_around
from pi_sessions.core.reading import early_messages
from pi_sessions.core.reading.early_messages import EarlyMessages
from pi_sessions.core.session.session import Session

from tests.helpers.cli import cli
from tests.helpers.sessions import assistant, chain, entry, header, jsonl, system, user, write


def conversation() -> list[dict[str, Any]]:
    return chain(40)


def with_settings() -> list[dict[str, Any]]:
    rows = chain(20)
    rows.insert(0, entry("model_change", "m", None, 0, provider="p", modelId="x"))
    rows[1]["parentId"] = "m"
    rows.append(entry("thinking_level_change", "t", "e19", 20, thinkingLevel="high"))
    rows.append(user("u", "t", "after the settings", 21))
    return rows


def a_fork() -> list[dict[str, Any]]:
    return [*chain(10), assistant("side", "e8", "another answer", 11), user("u", "side", "go on", 12)]


def a_compaction() -> list[dict[str, Any]]:
    return [
        *chain(10),
        entry("compaction", "c", "e9", 10, summary="so far", firstKeptEntryId="e6", tokensBefore=100),
        user("u", "c", "and now", 11),
    ]


def an_edit() -> list[dict[str, Any]]:
    edit = entry("context_edit", "x", "e9", 10, targetId="e3", replacement={"content": "shorter"})
    return [*chain(10), edit, user("u", "x", "next", 11)]


def no_content() -> list[dict[str, Any]]:
    rows = chain(10)
    del rows[4]["message"]["content"]
    return rows


def a_system_message() -> list[dict[str, Any]]:
    return [system("s", None, 0, content="be brief"), *chain(10, start_parent="s")]


def an_id_used_twice() -> list[dict[str, Any]]:
    # pi takes the later line of an id: here one the helper does not encode
    shadowed = user("X", "e9", "the earlier line", 10)
    later = entry("custom_message", "X", "e9", 11, customType="note", content="the later line", display=True)
    return [*chain(10), shadowed, later, user("u", "X", "next", 12)]


SESSIONS = {
    # what each `take` gave (True: the helper's messages were used; none asked for: [])
    "conversation": (conversation, [True]),
    "settings between the messages": (with_settings, [True]),
    "a system message": (a_system_message, [True]),
    "a fork": (a_fork, [False]),
    "a compaction": (a_compaction, [False]),
    "a context edit": (an_edit, []),
    "a message without a content": (no_content, [False]),
    "an id used twice": (an_id_used_twice, []),
}


@pytest.fixture
def taken(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Helpers for files of any size; what each `take` gave (True: its messages were used)."""
    monkeypatch.setattr(early_messages, "MIN_BYTES", 0)
    results: list[bool] = []
    real_take = EarlyMessages.take

    def take(self: EarlyMessages, sending: Any) -> tuple[int, int] | None:
        made = real_take(self, sending)
        results.append(made is not None)
        return made

    monkeypatch.setattr(EarlyMessages, "take", take)
    return results


def without_helper(monkeypatch: pytest.MonkeyPatch, *args: str) -> bytes:
    with monkeypatch.context() as m:
        m.setattr(early_messages, "MIN_BYTES", 1 << 62)
        return cli(*args).out


@pytest.mark.parametrize("name", list(SESSIONS))
def test_the_helper_changes_no_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, taken: list[bool], name: str
) -> None:
    make, takes = SESSIONS[name]
    path = str(write(tmp_path / "s.jsonl", header(), *make()))
    result = cli("context", path, "--json")
    assert result.code == 0
    assert result.out == without_helper(monkeypatch, "context", path, "--json")
    assert taken == takes


def test_an_earlier_leaf_reads_its_bodies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, taken: list[bool]
) -> None:
    path = str(write(tmp_path / "s.jsonl", header(), *chain(20)))
    out = cli("context", path, "--json", "--leaf", "e10").out
    assert out == without_helper(monkeypatch, "context", path, "--json", "--leaf", "e10")
    assert taken == [False]  # the helper encoded every message of the file, not the first 11


def test_several_leaves_get_no_helper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, taken: list[bool]
) -> None:
    path = str(write(tmp_path / "s.jsonl", header(), *chain(20)))
    assert cli("context", path, "--json", "--all").code == 0
    assert cli("context", path, "--json", "--leaf", "e3", "--leaf", "e5").code == 0
    assert taken == []


def test_lines_that_changed_since_the_helper_read_them_are_not_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(early_messages, "MIN_BYTES", 0)
    first = write(tmp_path / "a.jsonl", header(), *chain(20))
    helper = EarlyMessages.start(str(first))
    assert helper is not None
    try:
        other = Session.open(write(tmp_path / "b.jsonl", header(), *chain(20, start_parent=None)[:19]))
        assert helper.take(other.path_to("e18")) is None  # one line fewer
    finally:
        helper.close()
    rows = chain(20)
    helper = EarlyMessages.start(str(first))
    assert helper is not None
    try:
        rows[7]["id"], rows[8]["parentId"] = "changed", "changed"
        changed = Session.open(write(tmp_path / "c.jsonl", header(), *rows))
        assert helper.take(changed.path_to("e19")) is None
    finally:
        helper.close()


def test_a_file_that_is_not_all_json_gets_no_result(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(early_messages, "MIN_BYTES", 0)
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(header(), *chain(10)) + b"not json\n")
    session = Session.open(path)
    helper = EarlyMessages.start(str(path))
    assert helper is not None
    try:
        assert helper.take(session.path_to("e9")) is None
    finally:
        helper.close()


def test_a_line_around_a_file_is_written_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    middle = tmp_path / "middle"
    middle.write_bytes(b"0123456789" * 100_000)
    want = b"[" + (b"0123456789" * 100_000)[:999_995] + b"]\n"

    def written_to(stdout: io.BufferedWriter | io.BytesIO) -> None:
        wrapper = io.TextIOWrapper(stdout, write_through=True)
        monkeypatch.setattr(sys, "stdout", wrapper)
        with open(middle, "rb") as source:
            write_line_around(b"[", source.fileno(), 999_995, b"]")
        wrapper.flush()
        wrapper.detach()

    with open(tmp_path / "out", "wb") as out:  # a descriptor: the kernel copies
        written_to(out)
    assert (tmp_path / "out").read_bytes() == want
    captured = io.BytesIO()  # none: read and written
    written_to(captured)
    assert captured.getvalue() == want
