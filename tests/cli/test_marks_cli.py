"""`pi-sessions pin|unpin|archive|unarchive|tag`: the state printed and kept across runs, the
session file's bytes untouched, `list` unchanged, bad input exit 2."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tests.helpers.cli import cli
from tests.helpers.sessions import HEADER_ID, header, user, write


def state(*args: str) -> dict[str, object]:
    result = cli(*args, "--json")
    assert result.code == 0, result.err
    value: dict[str, object] = json.loads(result.out)
    return value


def test_pin_archive_and_tag_print_the_state_and_keep_it(tmp_path: Path) -> None:
    session = write(tmp_path / "s" / "a.jsonl", header(), user("u1", None, "hello"))
    digest = hashlib.sha256(session.read_bytes()).hexdigest()
    listed = cli("list", "--session-dir", str(tmp_path / "s"), "--json").out
    assert state("pin", str(session)) == {
        "path": str(session),
        "session_id": HEADER_ID,
        "pinned": True,
        "archived": False,
        "tags": [],
    }
    assert state("tag", str(session), "+Auth", "+bug", "-wip")["tags"] == ["auth", "bug"]
    assert state("tag", str(session), "-bug")["tags"] == ["auth"]
    assert state("archive", str(session))["archived"] is True
    # each run reads the side file afresh: what the others wrote is there
    shown = state("tag", str(session))
    assert shown["pinned"] is True and shown["archived"] is True and shown["tags"] == ["auth"]
    assert state("unpin", str(session))["pinned"] is False
    assert state("unarchive", str(session))["archived"] is False
    readable = cli("tag", str(session))
    assert readable.code == 0 and "#auth" in readable.stdout
    assert hashlib.sha256(session.read_bytes()).hexdigest() == digest
    assert cli("list", "--session-dir", str(tmp_path / "s"), "--json").out == listed


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    session = write(tmp_path / "a.jsonl", header(), user("u1", None, "hello"))
    (tmp_path / "not.jsonl").write_text('{"type": "message"}\n')
    for args in (("pin", str(tmp_path / "not.jsonl")), ("tag", str(session), "+a\x1bb"), ("pin", "nope")):
        result = cli(*args)
        assert result.code == 2, args
        assert result.err.count(b"\n") == 1 and b"Traceback" not in result.err
