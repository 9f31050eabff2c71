"""The context pane's scrollbar is drawn again only when its thumb moves, and is never stale."""

from __future__ import annotations

from pathlib import Path

from pi_sessions.widgets.steady_scrollbar import SteadyScrollBar
from textual.geometry import Region
from textual.strip import Strip

from .apphelpers import loaded, make_app, settled
from .helpers import chain, header, write


def drawn(bar: SteadyScrollBar) -> tuple[list[Strip], list[Strip]]:
    """(the lines the screen has of the bar, the bar's lines drawn afresh now)."""
    crop = Region(0, 0, bar.size.width, bar.size.height)
    shown = bar.render_lines(crop)  # (Textual keeps a widget's lines until it is refreshed)
    bar._styles_cache.clear()
    return shown, bar.render_lines(crop)


async def test_the_context_scrollbar_shows_where_the_view_is_after_every_move(tmp_path: Path) -> None:
    folder = tmp_path / "sessions" / "--home-u-proj--"
    path = write(folder / "2025-03-01T10-00-00-000Z_a.jsonl", header(), *chain(400))
    app = make_app(tmp_path / "sessions", tmp_path / "cache", open_path=path)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        body = screen.context_view.body
        bar = body.vertical_scrollbar
        assert isinstance(bar, SteadyScrollBar)
        await settled(pilot)
        at_end, textual_at_end = drawn(bar)
        assert at_end == textual_at_end
        screen.focus_pane("tree")
        for key in ["up", "up", "down"]:  # the thumb stays, the virtual size changes
            await pilot.press(key)
            await settled(pilot)
            ours, textual = drawn(bar)
            assert ours == textual
        body.scroll_home(animate=False)
        await settled(pilot)
        at_top, textual_at_top = drawn(bar)
        assert at_top == textual_at_top
        assert at_top != at_end  # the thumb moved: drawn again, not kept
