"""Moving the cursor in the browser: the context pane keeps the blocks a move does not change,
and after every move shows exactly what a fresh build of the projection shows."""

from __future__ import annotations

import random
from itertools import accumulate
from pathlib import Path
from typing import Any

from pi_sessions.app.main_screen import MainScreen
from pi_sessions.core.projection.context import _project
from pi_sessions.core.session.session import Session
from pi_sessions.widgets.context_blocks import build_blocks

from tests.helpers.app import lines_of, loaded, make_app, settled
from tests.helpers.moves import branchy_session, full_path


def blocks_of(blocks: list[Any]) -> list[tuple[Any, ...]]:
    return [(b.kind, b.entry_id, b.message_index, b.first, b.edit) for b in blocks]


def assert_context_is_fresh(screen: MainScreen) -> None:
    """The body's blocks are those of a projection walked from scratch, their offsets add up
    their heights, and the prompt block replays the shown projection."""
    session, view = screen.session, screen.context_view
    assert session is not None and view.projection is not None
    leaf = view.projection.leaf_id
    fresh = _project(session, leaf, full_path(session, leaf))
    body = view.body
    assert blocks_of(body.blocks) == blocks_of(build_blocks(session, fresh, view.show_excluded))
    assert list(body.offsets) == [0, *accumulate(b.height for b in body.blocks)]
    if body.blocks and body.blocks[0].projection is not None:
        assert body.blocks[0].projection is view.projection


async def test_every_move_shows_the_context_a_fresh_build_shows(tmp_path: Path) -> None:
    folder = tmp_path / "sessions" / "--home-u-proj--"
    folder.mkdir(parents=True)
    session = branchy_session(folder / "s.jsonl")
    path = Path(str(session.path))
    app = make_app(tmp_path / "sessions", tmp_path / "cache", open_path=path)
    rng = random.Random(5)
    ids = session.entry_ids()
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await loaded(pilot)
        assert_context_is_fresh(screen)
        for step in range(120):
            choice = rng.random()
            if choice < 0.45:
                await pilot.press("up")
            elif choice < 0.9:
                await pilot.press("down")
            elif choice < 0.95:
                screen.branch_tree.select(rng.choice(ids))
            else:
                await pilot.press("x")  # the entries out of context shown, or hidden again
            await pilot.pause()
            assert_context_is_fresh(screen)
            if step % 40 == 0:
                await settled(pilot)  # blocks laid out in view, some heights now exact
                assert_context_is_fresh(screen)


async def test_a_move_along_a_conversation_keeps_the_blocks_before_it(tmp_path: Path) -> None:
    from tests.helpers.sessions import assistant, header, jsonl, system, user

    lines: list[dict[str, Any]] = [header(), system("s", None, 0, content="be brief")]
    parent = "s"
    for i in range(300):
        make = user if i % 2 == 0 else assistant
        lines.append(make(f"e{i}", parent, f"message {i}", i + 1))
        parent = f"e{i}"
    path = tmp_path / "sessions" / "--home-u-proj--" / "long.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(jsonl(*lines))
    app = make_app(tmp_path / "sessions", tmp_path / "cache", open_path=path)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await loaded(pilot)
        body = screen.context_view.body
        blocks, first = body.blocks, body.blocks[1]
        for key in ["up", "up", "down", "up", "down", "down", "up"]:
            await pilot.press(key)
            await pilot.pause()
            # The same list, the same block objects before the move: nothing walked again.
            assert body.blocks is blocks and body.blocks[1] is first
            assert_context_is_fresh(screen)
        assert screen.context_view.leaf == "e298"
        assert any("message 298" in line for line in lines_of(body))
        assert Session.open(path).default_leaf == "e299"
