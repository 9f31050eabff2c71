"""Subagent sessions in the browser: out of the top list, folded under their parent (a count on
its row, space unfolds them), and named on the parent's entry that spawned them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pi_sessions.core.listing.sidebar_rows import SessionRow
from textual.pilot import Pilot

from tests.helpers.app import loaded, make_app, settled, static_text, until
from tests.helpers.checks import known
from tests.helpers.fixtures import SubagentTree, subagent_tree


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SubagentTree:
    t = subagent_tree(tmp_path)
    monkeypatch.setenv("PI_SUBAGENT_SESSION_DIR", str(t.env_dir))
    return t


def tree_title(screen: Any) -> str:
    return static_text(screen.tree_pane, "#tree-title")


def rows(screen: Any) -> list[SessionRow]:
    return [r for r in screen.sidebar.session_list.rows if type(r) is SessionRow]


def names(screen: Any) -> list[tuple[str, int]]:
    return [(Path(r.summary.path).stem[-3:], r.depth) for r in rows(screen)]


async def select(pilot: Pilot[Any], screen: Any, path: Path) -> None:
    session_list = screen.sidebar.session_list
    session_list.focus()
    while session_list.current().path != str(path):
        await pilot.press("down")


async def test_subagents_fold_under_their_parent_and_unfold_with_space(
    tree: SubagentTree, tmp_path: Path
) -> None:
    p1 = tree.file("0000000000a1.jsonl")
    app = make_app(tree.sessions, tmp_path / "cache", cwd="/home/u/proj")
    async with app.run_test(size=(140, 30)) as pilot:
        screen = await loaded(pilot)
        await until(pilot, lambda: screen.sidebar.subagent_children, "the subagents found")
        # the top list: the three parents and P1's fork (nested as a fork); no subagent
        assert sorted(names(screen)) == [("0a1", 0), ("0b2", 0), ("0c3", 0), ("0f1", 1)]
        counts = {Path(r.summary.path).stem[-3:]: r.subagents for r in rows(screen)}
        assert counts == {"0a1": 2, "0f1": 0, "0b2": 2, "0c3": 2}
        index = known(screen.sidebar.session_list.index_of(str(p1)))
        drawn = screen.sidebar.session_list.render_row(index, 120, False).text
        assert "(2 subagents)" in drawn
        await select(pilot, screen, p1)
        await pilot.press("space")
        await until(pilot, lambda: any(r.subagent for r in rows(screen)), "P1's subagents shown")
        under = [(Path(r.summary.path).name, r.depth) for r in rows(screen) if r.subagent]
        assert under == [
            ("session.jsonl", 1),
            ("2025-03-01T10-06-00-000Z_0195aaaa-0000-7000-8000-0000000004c4.jsonl", 1),
        ]
        await pilot.press("space")  # again: folded
        await until(pilot, lambda: not any(r.subagent for r in rows(screen)), "P1's subagents folded")


async def test_the_spawning_tool_call_names_its_subagent(tree: SubagentTree, tmp_path: Path) -> None:
    p1 = tree.file("0000000000a1.jsonl")
    app = make_app(tree.sessions, tmp_path / "cache", open_path=p1, cwd="/home/u/proj")
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await loaded(pilot)
        marks = screen.branch_tree.spawn_marks
        await until(pilot, lambda: marks.subagents is not None, "the subagents found")
        await settled(pilot)
        spawned = marks.spawned(screen.session)
        assert {k: [c.summary.first_message for c in v] for k, v in spawned.items()} == {
            "a1": ["Find the auth entry points"],
            "a2": ["Review login.tsx"],
        }
        # the tree's title says how many subagents and what they spent on top ($0.03 + $0.05)
        await until(pilot, lambda: "2 subagents +$0.08" in tree_title(screen), "the subagents in the title")
        tree_rows = screen.branch_tree.rows
        index = next(i for i, r in enumerate(tree_rows) if r.record.id == "a1")
        assert "Find the auth entry points" in screen.branch_tree.render_row(index, 150, False).text
