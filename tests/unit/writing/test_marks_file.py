"""The side file of marks: changes merged under a lock (two writers at once lose nothing),
written atomically, keyed by the header's id (a renamed file keeps its marks), and the session
file itself never written."""

from __future__ import annotations

import hashlib
import multiprocessing
from pathlib import Path

import pytest
from pi_sessions.core.common.problems import SessionError
from pi_sessions.core.listing.marks import MarkChange, MarkError
from pi_sessions.core.writing.marks_file import read_marks, session_id_of, update_marks

from tests.helpers.sessions import HEADER_ID, header, user, write

TAGS_EACH = 40


def _add_tags(marks_file: str, prefix: str, start: multiprocessing.synchronize.Barrier) -> None:
    start.wait()  # both writers begin together
    for n in range(TAGS_EACH):
        update_marks(Path(marks_file), "shared", MarkChange(add_tags=(f"{prefix}{n}",)))


def test_two_processes_tagging_at_once_lose_no_tag(tmp_path: Path) -> None:
    marks_file = tmp_path / "config" / "marks.json"
    context = multiprocessing.get_context("fork")
    start = context.Barrier(2)
    writers = [context.Process(target=_add_tags, args=(str(marks_file), p, start)) for p in ("a", "b")]
    for w in writers:
        w.start()
    for w in writers:
        w.join(60)
        assert w.exitcode == 0
    tags = set(read_marks(marks_file).of("shared").tags)
    assert tags == {f"{p}{n}" for p in "ab" for n in range(TAGS_EACH)}
    assert [p.name for p in marks_file.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_marks_follow_the_session_id_through_a_rename_and_the_file_is_never_written(tmp_path: Path) -> None:
    session = write(tmp_path / "s" / "one.jsonl", header(), user("u1", None, "hello"))
    before = hashlib.sha256(session.read_bytes()).hexdigest()
    marks_file = tmp_path / "config" / "marks.json"
    sid = session_id_of(str(session))
    assert sid == HEADER_ID
    update_marks(marks_file, sid, MarkChange(pinned=True, add_tags=("auth",)), str(session))
    moved = session.rename(tmp_path / "s" / "renamed-by-pi.jsonl")
    assert hashlib.sha256(moved.read_bytes()).hexdigest() == before
    # a fresh read, as after a restart: the mark is found by the moved file's header
    mark = read_marks(marks_file).of(session_id_of(str(moved)))
    assert mark.pinned and mark.tags == ("auth",)


def test_a_damaged_side_file_is_refused_not_overwritten(tmp_path: Path) -> None:
    marks_file = tmp_path / "marks.json"
    marks_file.write_text("{ not json")
    with pytest.raises(MarkError, match=r"marks\.json"):
        update_marks(marks_file, "x", MarkChange(pinned=True))
    assert marks_file.read_text() == "{ not json"


def test_a_file_that_is_not_a_session_has_no_id(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_bytes(b"")
    (tmp_path / "other.jsonl").write_text('{"type": "message"}\n')
    for name in ("empty.jsonl", "other.jsonl"):
        with pytest.raises(SessionError):
            session_id_of(str(tmp_path / name))
    with pytest.raises(SessionError):
        session_id_of(str(tmp_path))  # a folder
