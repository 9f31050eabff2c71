"""A virtual list of one-line rows with a cursor, drawn with Textual's Line API.

Only the rows in view are rendered, so 200,000 rows cost what 30 do. Subclasses say how many
rows there are and how one row looks; this class does the scrolling, the cursor, the keys and
the mouse. (Textual's ListView mounts a widget per row and Tree recurses per level: neither
survives a long conversation.)
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.style import Style
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ..core.common.glyphs import Glyphs
from ..core.common.text import inline, wrap_words
from . import plain
from .glyphs import glyphs_of
from .keys import bindings
from .virtual_size import set_virtual_size


class RowList(ScrollView, can_focus=True):
    DEFAULT_CSS = """
    RowList {
        overflow-x: hidden;
        overflow-y: auto;
    }
    RowList > .rowlist--cursor {
        background: $block-cursor-background;
        color: $block-cursor-foreground;
        text-style: bold;
    }
    RowList > .rowlist--cursor-blurred {
        background: $block-cursor-blurred-background;
    }
    """

    COMPONENT_CLASSES = {"rowlist--cursor", "rowlist--cursor-blurred"}

    BINDINGS = bindings("list")

    class RowMessage(Message):
        def __init__(self, row_list: RowList, index: int) -> None:
            super().__init__()
            self.row_list = row_list
            self.index = index

        @property
        def control(self) -> RowList:
            return self.row_list

    class CursorMoved(RowMessage):
        """The cursor is on another row."""

    class Activated(RowMessage):
        """Enter (or a double click) on the cursor's row."""

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.row_count = 0
        self.cursor = -1
        self.placeholder: list[str] = []  # paragraphs shown while there are no rows, wrapped
        self._base_style: Style | None = None  # `rich_style`, which walks every ancestor
        self._wrapped: tuple[tuple[int, tuple[str, ...]], list[str]] = ((0, ()), [])

    @property
    def glyphs(self) -> Glyphs:
        """The app's glyphs (widgets/glyphs.py)."""
        return glyphs_of(self)

    # ------------------------------------------------------------------ for subclasses
    def render_row(self, index: int, width: int, selected: bool) -> Strip:
        raise NotImplementedError

    def is_selectable(self, index: int) -> bool:
        return True

    def set_row_count(self, count: int) -> None:
        """The rows changed: redraw (the cursor index is the caller's to keep or move)."""
        self.row_count = count
        set_virtual_size(self, Size(self.scrollable_content_region.width, count))
        if self.cursor >= count:
            self.cursor = count - 1
        self.refresh()

    # ------------------------------------------------------------------ drawing
    @property
    def base_style(self) -> Style:
        """The list's own style (`rich_style`, worked out once until the styles change: it
        walks every ancestor, and a repaint asks for it once a row)."""
        if self._base_style is None:
            self._base_style = self.rich_style
        return self._base_style

    def notify_style_update(self) -> None:
        self._base_style = None
        super().notify_style_update()

    def render_line(self, y: int) -> Strip:
        index = int(self.scroll_offset.y) + y
        width = self.scrollable_content_region.width
        base = self.base_style
        if index < 0 or index >= self.row_count or width <= 0:
            lines = self.placeholder_lines(width - 1) if not self.row_count else []
            if 0 <= y < len(lines):
                strip = plain.line([(" " + lines[y], base)], glyphs=self.glyphs)
                return strip.crop_extend(0, width, base)
            return plain.blank(width, base)
        selected = index == self.cursor
        strip = self.render_row(index, width, selected)
        if selected:
            strip = plain.in_cursor_colours(strip, self.row_style(True))
        return strip.crop_extend(0, width, base)

    def placeholder_lines(self, width: int) -> list[str]:
        """The placeholder's paragraphs wrapped to `width` at spaces (a paragraph's leading
        spaces indent each of its lines)."""
        if width <= 0:
            return []
        key = (width, tuple(self.placeholder))
        if self._wrapped[0] != key:
            lines: list[str] = []
            for paragraph in self.placeholder:
                text = inline(paragraph, glyphs=self.glyphs)
                indent = text[: len(text) - len(text.lstrip(" "))]
                room = max(1, width - len(indent))
                lines += [indent + part for part in wrap_words(text, room, cell_len)]
            self._wrapped = (key, lines)
        return self._wrapped[1]

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(self.scrollable_content_region.width, self.row_count)
        self.refresh()

    def style(self, name: str) -> Style:
        """A component class's own style (only what it sets), to lay over the row's."""
        return self.get_component_rich_style(name, partial=True)

    def row_style(self, selected: bool) -> Style:
        if selected:
            return self.get_component_rich_style(
                "rowlist--cursor" if self.has_focus else "rowlist--cursor-blurred"
            )
        return self.base_style

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    # ------------------------------------------------------------------ the cursor
    def move_cursor(self, index: int, *, notify: bool = True, center: bool = False) -> None:
        if self.row_count == 0:
            self.cursor = -1
            return
        index = max(0, min(index, self.row_count - 1))
        old = self.cursor
        self.cursor = index
        self.scroll_to_cursor(center=center)
        if old != index:
            self.refresh_row(old)
            self.refresh_row(index)
        if notify:
            self.post_message(self.CursorMoved(self, index))

    def refresh_row(self, index: int) -> None:
        top = int(self.scroll_offset.y)
        if top <= index < top + self.scrollable_content_region.height:
            self.refresh_lines(index - top)

    def scroll_to_cursor(self, center: bool = False) -> None:
        height = self.scrollable_content_region.height
        if height <= 0 or self.cursor < 0:
            return
        top = int(self.scroll_offset.y)
        if center:
            self.scroll_to(y=max(0, self.cursor - height // 2), animate=False, immediate=True, force=True)
        elif self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True, force=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True, force=True)

    def watch_scroll_y(self, old: float, new: float) -> None:
        # ScrollView skips a hidden scrollbar, which then shows up with a stale thumb.
        self.vertical_scrollbar.position = new
        super().watch_scroll_y(old, new)

    def first_selectable(self) -> int | None:
        """The first row the cursor may rest on (None: no such row)."""
        return next((i for i in range(self.row_count) if self.is_selectable(i)), None)

    def _step(self, start: int, step: int) -> int:
        index = start
        while 0 <= index < self.row_count:
            if self.is_selectable(index):
                return index
            index += step
        return self.cursor

    def action_cursor_up(self) -> None:
        self.move_cursor(self._step(self.cursor - 1, -1))

    def action_cursor_down(self) -> None:
        self.move_cursor(self._step(self.cursor + 1, 1))

    def action_page_up(self) -> None:
        self.move_cursor(self._step(max(0, self.cursor - self.scrollable_content_region.height), 1))

    def action_page_down(self) -> None:
        target = min(self.row_count - 1, self.cursor + self.scrollable_content_region.height)
        self.move_cursor(self._step(target, -1))

    def action_first(self) -> None:
        self.move_cursor(self._step(0, 1))

    def action_last(self) -> None:
        self.move_cursor(self._step(self.row_count - 1, -1))

    def action_activate(self) -> None:
        if 0 <= self.cursor < self.row_count:
            self.post_message(self.Activated(self, self.cursor))

    async def _on_click(self, event: events.Click) -> None:
        index = int(self.scroll_offset.y) + event.y
        if 0 <= index < self.row_count and self.is_selectable(index):
            if index == self.cursor and event.chain >= 2:
                self.action_activate()
            else:
                self.move_cursor(index)
