"""A scroller's content size changed: tell its scrollbar, and lay the screen out only if needed.

Textual's `virtual_size` is a layout reactive: setting it lays the whole screen out again and
redraws every pane's scrollbar, which is most of the cost of a key that moves through a long
session. While the vertical scrollbar is shown before and after (the content is taller than
the view either way) and the width stays, nothing on screen moves but the scrollbar's thumb,
so the size is set quietly and only the scrollbar is brought up to date. (Textual is pinned:
`_scroll_update` is what its own layout calls on a scroller whose virtual size changed.)
"""

from __future__ import annotations

from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.widget import Widget


def set_virtual_size(view: ScrollView, size: Size) -> None:
    old = view.virtual_size
    if old == size:
        return
    room = view.container_size.height - view.scrollbar_size_horizontal
    steady = (
        old.width == size.width
        and view.show_vertical_scrollbar
        and view.styles.overflow_y == "auto"
        and old.height > room
        and size.height > room
    )
    if not steady:
        view.virtual_size = size
        return
    view.set_reactive(Widget.virtual_size, size)
    view._scroll_update(size)
