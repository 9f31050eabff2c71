"""Where the prompt cache broke, in the browser: a marker on each reply's row that lost it, a mark
before its bar in the sparkline (in its own colour), and the cause in the context header and the
raw-JSON view of that reply. A hand-made session with three known breaks: a model change, an
idle gap past the cache's lifetime, a compaction; and two replies that kept the cache."""

from __future__ import annotations

from pathlib import Path

import pytest
from pi_sessions.app.main_screen import MainScreen
from pi_sessions.app.screens import RawJsonScreen
from pi_sessions.core.projection.timeline import BARS
from pi_sessions.widgets import tree_breaks
from pi_sessions.widgets.plain import PlainStatic

from tests.helpers.app import loaded, make_app, settled, until
from tests.helpers.sessions import cached_reply, entry, header, user, write

BREAKS = {"a2": "a model change", "a3": "10 min idle", "a4": "a compaction"}


def breaking(folder: Path) -> Path:
    return write(
        folder / "2025-03-01T10-00-00-000Z_cache.jsonl",
        header(id="cache", cwd="/"),
        user("u1", None, "one", 1),
        cached_reply("a1", "u1", 2, read=0, written=8000),
        user("u2", "a1", "two", 3),
        entry("model_change", "m1", "u2", 4, provider="anthropic", modelId="claude-opus-4-1"),
        cached_reply("a2", "m1", 5, read=0, written=8200, fresh=8100),
        user("u3", "a2", "three, ten minutes later", 605),
        cached_reply("a3", "u3", 606, read=0, written=8400, fresh=8300),
        entry("compaction", "c1", "a3", 607, summary="so far", firstKeptEntryId="a3", tokensBefore=8400),
        user("u4", "c1", "four", 608),
        cached_reply("a4", "u4", 609, read=0, written=3000, fresh=2900),
        user("u5", "a4", "five", 610),
        cached_reply("a5", "u5", 611, read=3000, written=100),
    )


def row_text(screen: MainScreen, entry_id: str) -> str:
    tree = screen.branch_tree
    return tree.render_row(tree.index_by_id[entry_id], 120, False).text


async def test_each_reply_that_lost_the_cache_is_marked_in_the_tree_and_the_sparkline(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    breaking(root / "--p--")
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)
        marked = {e for e in ("a1", "a2", "a3", "a4", "a5") if "↯" in row_text(screen, e)}
        assert marked == set(BREAKS)
        assert not any(
            "↯" in row_text(screen, e) for e in ("u1", "u2", "c1", "u5")
        )  # (m1: not in the default view)
        # The sparkline at the default leaf (a5): five bars, the compaction's mark and three breaks.
        sparkline = screen.context_view.header.sparkline
        bars = sparkline.pieces(sparkline.size.width, app.glyphs)[1]
        assert "".join("b" if c in BARS else c for c in bars) == "b↯b↯b┊↯bb"
        strip = sparkline.render_line(0)
        styles = {seg.text: seg.style for seg in strip if seg.text in ("↯", "┊")}
        assert styles["↯"] != styles["┊"] and styles["↯"] is not None
        assert styles["↯"].color != next(seg.style for seg in strip if seg.text[:1] in BARS).color  # type: ignore[union-attr]


async def test_the_cause_is_in_the_header_and_the_raw_view_of_the_reply(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    breaking(root / "--p--")
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)
        tree = screen.branch_tree
        for entry_id, cause in [*BREAKS.items(), ("a5", None), ("a1", None)]:
            tree.select(entry_id)
            await until(
                pilot,
                lambda e=entry_id: (
                    screen.context_view.projection is not None  # type: ignore[misc]
                    and screen.context_view.projection.leaf_id == e
                ),
                f"the context at {entry_id}",
            )
            await settled(pilot)
            hint = screen.context_view.header.text().splitlines()[-1]
            if cause is None:
                assert "cache" not in hint, hint
            else:
                assert hint.startswith(f"↯ the prompt cache was lost at this reply: {cause}"), hint
        tree.select("a4")
        await pilot.pause()
        await pilot.press("i")
        await until(pilot, lambda: isinstance(app.screen, RawJsonScreen), "the raw JSON")
        note = str(app.screen.query_one("#raw-note", PlainStatic).render())
        assert "a compaction" in note and "tokens of input paid again" in note


async def test_a_big_session_s_breaks_are_found_in_a_worker_and_then_marked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tree_breaks, "SYNC_BREAKS", 3)  # this session counts as big
    root = tmp_path / "sessions"
    breaking(root / "--p--")
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)  # (waits for the worker too)
        assert screen.branch_tree.break_marks.breaks is not None
        assert {e for e in ("a1", "a2", "a3", "a4", "a5") if "↯" in row_text(screen, e)} == set(BREAKS)
