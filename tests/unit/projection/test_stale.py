"""Stale context: the files the model read or edited on the way to a leaf, compared with the
disk (deleted, changed since that entry, not the size its write left) and with git's HEAD."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pi_sessions.core.projection.file_knowledge import files_at
from pi_sessions.core.projection.stale import Why, stale_files
from pi_sessions.core.session.session import Session
from pi_sessions.core.writing.gitprobe import open_probe
from pi_sessions.core.writing.readycheck import check_leaf

from tests.helpers.sessions import assistant, entry, header, user, write

# Entry times of the session below are 2025-03-01T10:00:nnZ; the files are dated around them.
BEFORE = 1740819600.0  # 09:00 that day: untouched since the model saw them
AFTER = 1740830400.0  # 12:00: changed after the whole conversation
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def tool_turn(n: int, parent: str, call_id: str, name: str, args: dict[str, Any]) -> list[dict[str, Any]]:
    call = {"type": "toolCall", "id": call_id, "name": name, "arguments": args}
    result = {"role": "toolResult", "toolCallId": call_id, "toolName": name, "isError": False}
    return [
        assistant(f"a{n}", parent, "", n, content=[call], stopReason="toolUse"),
        entry(
            "message",
            f"r{n}",
            f"a{n}",
            n + 1,
            message={**result, "content": [{"type": "text", "text": "ok"}]},
        ),
    ]


def session_in(work: Path, tmp: Path) -> Path:
    """Reads of read.txt, gone.txt and same.txt, an edit of edited.txt, a write of written.txt."""
    lines: list[dict[str, Any]] = [header(cwd=str(work)), user("u0", None, "look", 0)]
    parent = "u0"
    calls: list[tuple[str, dict[str, Any]]] = [
        ("read", {"path": "read.txt"}),
        ("read", {"path": "gone.txt"}),
        ("read", {"path": "same.txt"}),
        ("edit", {"path": "edited.txt", "edits": [{"oldText": "a", "newText": "b"}]}),
        ("write", {"path": "written.txt", "content": "héllo\n"}),  # 7 bytes in UTF-8
    ]
    for i, (name, args) in enumerate(calls):
        n = 2 + 2 * i
        lines += tool_turn(n, parent, f"c{n}", name, args)
        parent = f"r{n}"
    lines.append(assistant("end", parent, "done", 30))
    return write(tmp / "s.jsonl", *lines)


def files(work: Path, sizes: dict[str, bytes]) -> None:
    for name, data in sizes.items():
        (work / name).write_bytes(data)
        os.utime(work / name, (BEFORE, BEFORE))


def stale_of(path: Path, probe: Any = None) -> dict[str, Why]:
    session = Session.open(path)
    report = files_at(session, "end")
    return {Path(s.path).name: s.why for s in stale_files(session, report, probe)}


def test_deleted_changed_and_rewritten_files_are_found(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    files(
        work,
        {
            "read.txt": b"1",
            "gone.txt": b"2",
            "same.txt": b"3",
            "edited.txt": b"b",
            "written.txt": b"h\xc3\xa9llo\n",
        },
    )
    path = session_in(work, tmp_path)
    assert stale_of(path) == {}  # all as the model left them
    (work / "gone.txt").unlink()
    os.utime(work / "read.txt", (AFTER, AFTER))
    (work / "written.txt").write_bytes(b"hello, more\n")
    os.utime(work / "written.txt", (BEFORE, BEFORE))  # an old date: the size still tells
    assert stale_of(path) == {"gone.txt": Why.DELETED, "read.txt": Why.CHANGED, "written.txt": Why.CHANGED}


def test_a_file_changed_after_the_leaf_but_before_a_later_read_is_not_stale(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    files(
        work,
        {"read.txt": b"1", "gone.txt": b"2", "same.txt": b"3", "edited.txt": b"b", "written.txt": b"x" * 7},
    )
    path = session_in(work, tmp_path)
    os.utime(work / "read.txt", (BEFORE + 3601, BEFORE + 3601))  # 10:00:01, before its read at 10:00:03
    assert "read.txt" not in stale_of(path)


def git(work: Path, *args: str, **env: str) -> None:
    base = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    subprocess.run(
        ["git", "-C", str(work), *args], check=True, capture_output=True, env={**os.environ, **base, **env}
    )


@needs_git
def test_in_a_git_work_tree_a_file_that_differs_from_head_is_listed(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q")
    files(
        work,
        {
            "read.txt": b"1",
            "gone.txt": b"2",
            "same.txt": b"3",
            "edited.txt": b"a",
            "written.txt": b"h\xc3\xa9llo\n",
        },
    )
    git(work, "add", "-A")
    git(
        work,
        "commit",
        "-qm",
        "before",
        GIT_COMMITTER_DATE="2025-03-01T09:00:00Z",
        GIT_AUTHOR_DATE="2025-03-01T09:00:00Z",
    )
    (work / "edited.txt").write_bytes(b"b")  # the model's edit, not committed
    os.utime(work / "edited.txt", (BEFORE + 1800, BEFORE + 1800))  # 09:30: before the session
    path = session_in(work, tmp_path)
    probe = open_probe(str(work))
    assert probe is not None
    assert stale_of(path, probe) == {"edited.txt": Why.DIFFERS_FROM_HEAD}
    assert stale_of(path) == {}  # without git nothing tells


@needs_git
def test_commits_since_the_entry_are_counted(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q")
    files(
        work,
        {
            "read.txt": b"1",
            "gone.txt": b"2",
            "same.txt": b"3",
            "edited.txt": b"b",
            "written.txt": b"h\xc3\xa9llo\n",
        },
    )
    git(work, "add", "-A")
    git(work, "commit", "-qm", "before", GIT_COMMITTER_DATE="2025-03-01T09:00:00Z")
    (work / "read.txt").write_bytes(b"changed")
    git(work, "commit", "-qam", "after", GIT_COMMITTER_DATE="2025-03-01T12:00:00Z")
    path = session_in(work, tmp_path)
    session = Session.open(path)
    report = check_leaf(session, "end", agent=str(tmp_path))
    [stale] = report.stale_files
    assert (Path(stale.path).name, stale.why, stale.commits_since) == ("read.txt", Why.CHANGED, 1)
    assert stale.entry_id == "r2" and "1 commit touched it since" in stale.detail


def test_no_git_work_tree_no_probe(tmp_path: Path) -> None:
    assert open_probe(str(tmp_path)) is None
    assert open_probe(str(tmp_path / "missing")) is None
