"""A session of file work whose index answer is known (tests/unit/index/, tests/cli/): reads,
edits, writes and shell commands on the active path, a compaction over some of them, and an
abandoned branch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers.sessions import assistant, header, user, write
from tests.helpers.tools import call, compaction, tool_result, tool_use

CWD = "/home/u/proj"  # helpers.header's cwd


def work_entries() -> list[dict[str, Any]]:
    """A read and an edit that a compaction summarizes, a shell command and a write that it
    keeps, and a branch abandoned at e2 that removed a file."""
    return [
        user("e0", None, "fix it", 0),
        tool_use("e1", "e0", 1, call("read", "c1", path="src/a.py")),
        tool_result("e2", "e1", 2, "c1", "read", "x = 1"),
        tool_use(
            "e3", "e2", 3, call("edit", "c2", path="src/a.py", edits=[{"oldText": "1", "newText": "2"}])
        ),
        tool_result("e4", "e3", 4, "c2", "edit", "ok"),
        tool_use("e5", "e4", 5, call("bash", "c3", command="cat notes.md && ls docs")),
        tool_result("e6", "e5", 6, "c3", "bash", "notes"),
        tool_use("e7", "e6", 7, call("write", "c4", path="/home/u/proj/out.txt", content="y")),
        tool_result("e8", "e7", 8, "c4", "write", "ok"),
        tool_use("b1", "e2", 20, call("bash", "c5", command="rm old.txt")),
        tool_result("b2", "b1", 21, "c5", "bash", ""),
        assistant("b3", "b2", "gone", 22),
        compaction("k", "e8", 30, first_kept="e5"),
        user("u", "k", "go on", 31),  # the default leaf
    ]


def work_folder(tmp_path: Path, *entries: dict[str, Any]) -> Path:
    """A sessions folder with one session of `entries` (by default `work_entries()`) in CWD."""
    folder = tmp_path / "sessions"
    write(folder / "--home-u-proj--" / "s.jsonl", header(), *(entries or work_entries()))
    return folder
