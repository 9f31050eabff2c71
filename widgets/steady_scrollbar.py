"""A scrollbar that is drawn again only when its thumb moves to other cells.

Textual draws a scrollbar again whenever its position, window or virtual size changes. A long
context pane (100,000 blocks) changes both the position and the virtual size with every move
of the selection, yet its thumb stays in the same cells: drawing its 45 lines cost 1.5 ms of
a 15 ms key. Here those three values do not draw by themselves; when one changes, the bar's
cells are worked out (its renderer's own `render_bar`, cheap) and the bar is drawn again only
if they differ. Everything else that draws it (a new size, a style, the mouse over it, a drag)
still does, as in Textual. (Textual is pinned: `_render_bar` is how it sizes the thumb.)
"""

from __future__ import annotations

from math import ceil
from typing import Any

from textual.reactive import Reactive
from textual.scrollbar import ScrollBar


class SteadyScrollBar(ScrollBar):
    window_virtual_size: Reactive[int] = Reactive(100, repaint=False)
    window_size: Reactive[int] = Reactive(0, repaint=False)
    position: Reactive[float] = Reactive(0, repaint=False)

    _cells: Any = None  # what the bar showed when these values last changed

    def watch_window_virtual_size(self) -> None:
        self._draw_if_moved()

    def watch_window_size(self) -> None:
        self._draw_if_moved()

    def watch_position(self) -> None:
        self._draw_if_moved()

    def _draw_if_moved(self) -> None:
        cells = self.cells()
        if cells != self._cells:
            self._cells = cells
            self.refresh()

    def cells(self) -> Any:
        """The bar's cells at its size for the current values, as `ScrollBar._render_bar`
        lays them out (the colours aside: they change with a style, which draws it anyway)."""
        size = self.size
        virtual = self.window_virtual_size
        window = self.window_size if self.window_size < virtual else 0
        bar = self.renderer.render_bar(
            size=size.height if self.vertical else size.width,
            virtual_size=ceil(virtual),
            window_size=ceil(window),
            position=self.position,
            thickness=size.width if self.vertical else size.height,
            vertical=self.vertical,
        )
        return (size, tuple(bar.segments))
