"""A branch nested many forks deep: its row draws a bounded indent (the nearest levels and a
count of the others), so its text stays on screen and a row costs the same at any depth."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi_sessions.core.session.outline import GUIDE_LEVELS

from tests.helpers.app import lines_of, loaded, make_app, settled
from tests.helpers.sessions import header, user, write

DEPTH = 40


def nested_forks(path: Path) -> Path:
    """Each `f{i}` has two children: a dead end `x{i}`, then `f{i+1}` (pi puts the later branch
    last): every fork nests the next one a level deeper."""
    objects: list[Any] = [header(), user("f0", None, "root", 0)]
    for i in range(DEPTH):
        objects.append(user(f"x{i}", f"f{i}", f"dead end {i}", 2 * i + 1))
        objects.append(user(f"f{i + 1}", f"f{i}", f"deep {i + 1}", 2 * i + 2))
    return write(path, *objects)


async def test_a_branch_forty_forks_deep_shows_its_text_after_a_depth_count(tmp_path: Path) -> None:
    folder = tmp_path / "sessions" / "--home-u-proj--"
    folder.mkdir(parents=True)
    path = nested_forks(folder / "s.jsonl")
    app = make_app(tmp_path / "sessions", tmp_path / "cache", open_path=path)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await loaded(pilot)
        tree = screen.branch_tree
        tree.select(f"f{DEPTH}")
        await settled(pilot)
        shown = [line for line in lines_of(tree) if f"deep {DEPTH}" in line]
        assert len(shown) == 1, lines_of(tree)
        row = shown[0]
        # The outer levels beyond the drawn ones are a count, right before the drawn guides,
        # which take at most a third of the row.
        levels = min(GUIDE_LEVELS, tree.size.width // 9)
        assert f"…{DEPTH - 1 - levels} " in row, row
        assert row.count("│") == levels, row
