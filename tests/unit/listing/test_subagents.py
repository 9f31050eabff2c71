"""The rules that find subagent sessions and hang them under their parent (core/listing/subagents.py)."""

from __future__ import annotations

import os
from pathlib import Path

from pi_sessions.core.listing.sidebar_rows import SessionRow, build_rows
from pi_sessions.core.listing.store import list_sessions
from pi_sessions.core.listing.subagents import find, find_files, top_level

from tests.helpers.fixtures import subagent_tree
from tests.helpers.sessions import header, user, write

ENV: dict[str, str] = {}


def test_artifacts_and_unrelated_folders_are_not_children(tmp_path: Path) -> None:
    tree = subagent_tree(tmp_path)
    paths = {Path(f.path).name for f in find_files(str(tree.sessions), ENV)}
    assert "a1b2c3d4_scout.jsonl" not in paths  # subagent-artifacts/: an event stream
    assert "session.jsonl" in paths


def test_a_fork_stays_a_fork_and_a_child_with_its_own_task_is_a_subagent(tmp_path: Path) -> None:
    root = tmp_path / "s"
    folder = root / "--p--"
    parent = write(folder / "p.jsonl", header(id="P", cwd="/p"), user("u1", None, "build the thing"))
    fork = write(
        folder / "f.jsonl",
        header(id="F", cwd="/p", parentSession=str(parent), timestamp="2025-03-01T11:00:00.000Z"),
        user("u1", None, "build the thing"),
    )
    child = write(
        folder / "c.jsonl",
        header(id="C", cwd="/p", parentSession=str(parent), timestamp="2025-03-01T11:00:00.000Z"),
        user("u1", None, "read the docs and report"),
    )
    listed = list_sessions(str(root), use_cache=False).summaries
    found = find(str(root), listed, ENV)
    assert set(found.children) == {os.path.normpath(child)}
    assert found.children[os.path.normpath(child)].parent == os.path.normpath(parent)
    assert {Path(s.path).name for s in top_level(listed, found)} == {"p.jsonl", "f.jsonl"}
    assert fork.name in {Path(s.path).name for s in listed}


def test_a_child_whose_parent_cannot_be_found_stays_in_the_top_list(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    write(root / "subagents" / "c.jsonl", header(id="C", cwd="/p"), user("u1", None, "a task"))
    listed = list_sessions(str(root), use_cache=False).summaries
    found = find(str(root), listed, ENV)
    (child,) = found.children.values()
    assert child.parent is None and child.parent_entry_id is None
    assert [Path(s.path).name for s in top_level(listed, found)] == ["c.jsonl"]


def test_children_naming_each_other_as_parents_are_each_shown_once(tmp_path: Path) -> None:
    root = tmp_path / "s"
    a = root / "--p--" / "a.jsonl"
    b = root / "--p--" / "b.jsonl"
    write(a, header(id="A", cwd="/p", parentSession=str(b)), user("u1", None, "task a"))
    write(b, header(id="B", cwd="/p", parentSession=str(a)), user("u1", None, "task b"))
    listed = list_sessions(str(root), use_cache=False).summaries
    found = find(str(root), listed, ENV)
    assert found.descendants(str(a)) == [found.children[str(b)]]  # (not a, again)
    kids = {p: [c.summary for c in k] for p, k in found.by_parent().items()}
    rows = build_rows(listed, children=kids, expanded={str(a), str(b)})
    top = [r.summary.path for r in rows if isinstance(r, SessionRow) and not r.subagent]
    assert sorted(top) == sorted([str(a), str(b)])  # a cycle of parents: both stay reachable
