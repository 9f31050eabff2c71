"""Bodies and messages read back many at a time give what reading each entry gives, and refuse
lines that changed on disk since the session was read."""

from __future__ import annotations

from pathlib import Path

import pytest
from pi_sessions.core.common.problems import StaleFileError
from pi_sessions.core.projection.context import project, sent_as_they_are
from pi_sessions.core.session.session import Session

from tests.helpers.sessions import assistant, chain, entry, header, jsonl, user, write


def one_by_one(session: Session, records: list) -> list:
    return [Session.open(session.path).entry_dict(r)["message"] for r in records]  # type: ignore[arg-type]


def test_messages_of_a_conversation_are_its_messages(tmp_path: Path) -> None:
    session = Session.open(write(tmp_path / "s.jsonl", header(), *chain(300)))
    records = session.path_to("e299")
    runs = list(session.entry_message_runs(records))
    assert [m for run in runs for m in run] == one_by_one(session, records)


def test_messages_of_a_path_with_other_lines_between_them(tmp_path: Path) -> None:
    lines = [header(), user("u0", None, "first", 0)]
    parent = "u0"
    for i in range(1, 40):
        lines.append(assistant(f"side{i}", parent, f"a branch {i}", i))  # left on another branch
        lines.append(entry("model_change", f"m{i}", parent, i, provider="p", modelId="x"))
        lines.append(user(f"u{i}", f"m{i}", f"message {i}", i))
        parent = f"u{i}"
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(*lines).replace(b"\n", b"\n\n"))  # and blank lines between all of them
    session = Session.open(path)
    records = [r for r in session.path_to("u39") if r.type == "message"]
    assert [m for run in session.entry_message_runs(records) for m in run] == one_by_one(session, records)


def test_bodies_read_before_are_handed_from_the_cache_among_the_others(tmp_path: Path) -> None:
    session = Session.open(write(tmp_path / "s.jsonl", header(), *chain(300)))
    records = session.path_to("e299")
    kept = {i: session.entry_dict(records[i]) for i in (0, 1, 150, 298, 299)}  # (now cached)
    bodies = list(session.entry_dicts(records))
    assert all(bodies[i] is body for i, body in kept.items())
    messages = [m for run in session.entry_message_runs(records) for m in run]
    assert messages == [b["message"] for b in bodies] == one_by_one(session, records)
    assert all(messages[i] is body["message"] for i, body in kept.items())


@pytest.mark.parametrize("read", ["messages", "bodies"])
def test_a_line_rewritten_in_place_is_refused(tmp_path: Path, read: str) -> None:
    path = write(tmp_path / "s.jsonl", header(), *chain(50))
    session = Session.open(path)
    records = session.path_to("e49")
    data = path.read_bytes()
    path.write_bytes(data.replace(b'"id": "e20"', b'"id": "x20"').replace(b'"id":"e20"', b'"id":"x20"'))
    assert path.read_bytes() != data
    with pytest.raises(StaleFileError):
        if read == "messages":
            list(session.entry_message_runs(records))
        else:
            list(session.entry_dicts(records))


def test_only_messages_with_a_content_are_sent_as_they_are(tmp_path: Path) -> None:
    no_content = user("n", "e9", "x", 10)
    no_content["message"].pop("content")
    session = Session.open(
        write(
            tmp_path / "s.jsonl",
            header(),
            *chain(10),
            no_content,
            entry("custom_message", "c", "n", 11, customType="t", content="hi", display=True),
        )
    )
    context = project(session, "c").context
    assert sent_as_they_are(context[:10])
    assert not sent_as_they_are(context[:11])  # pi sends `content: []` for the one without
    assert not sent_as_they_are(context[11:])  # a custom message becomes a message of its own
