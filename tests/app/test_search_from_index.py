"""The browser's search from the SQLite index: the first time the search line opens, the texts
are written to the index in the background; the next run answers from it, with each hit's
landing (its entry, on a branch or not) as before."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from pi_sessions.core.index.db import index_file_path
from pi_sessions.core.search.indexed import IndexedSearchIndex
from textual.pilot import Pilot

from tests.helpers.app import lines_of, loaded, main, make_app, settled, until
from tests.helpers.sessions import branched, header, user, write


def _written(root: Path, cache: Path) -> int:
    file = index_file_path(str(root), cache)
    if not file.exists():
        return 0
    with sqlite3.connect(file) as conn:
        return int(conn.execute("SELECT count(*) FROM text_files").fetchone()[0])


async def _search_for(pilot: Pilot[Any], text: str) -> None:
    screen = main(pilot)
    await pilot.press("slash", *text)
    await until(
        pilot, lambda: getattr(screen.sidebar.matches, "text", None) == text, f"the answer to {text!r}"
    )
    await settled(pilot)


async def test_the_next_run_answers_from_the_index_and_lands_on_the_branch(tmp_path: Path) -> None:
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    branched(root / "p" / "s.jsonl")
    write(root / "q" / "other.jsonl", header(id="other", cwd="/q"), user("u1", None, "nothing of interest"))
    async with make_app(root, cache).run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        await pilot.press("slash")
        await until(pilot, lambda: _written(root, cache) == 2, "the texts written to the index")
    assert _written(root, cache) == 2
    async with make_app(root, cache).run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        await _search_for(pilot, '"explain why that works"')
        index = screen.searches.search.index
        assert isinstance(index, IndexedSearchIndex) and index.indexed == 2
        await until(
            pilot,
            lambda: any("branch from a1" in line for line in lines_of(screen.sidebar.session_list)),
            "the hit's place",
        )
        shown = "\n".join(lines_of(screen.sidebar.session_list))
        assert "explain why that works" in shown and "nothing of interest" not in shown
