"""A virtual scroller of blocks of varying height, drawn with Textual's Line API.

The sibling of rowlist.py for content whose units take several lines (a message, a prompt).
Only blocks near the view are laid out; every other block counts with an estimated height,
so 10,000 blocks cost what the few in view cost. Offsets are kept per block and redone only
from the first block whose height changed (a live context grows at its end, and only the end
moves). A view at the end sticks to it while blocks are added, until the user scrolls up.

Subclasses say how one block looks (`layout_block`: its lines at a width); this class does
the scrolling, the current block, the keys' actions and the mouse. Block kinds, their text
and their styles are the subclass's business (widgets/context_view.py is one).
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate
from typing import ClassVar, Generic, TypeVar

import msgspec
from rich.style import Style
from textual import events
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from . import plain
from .glyphs import glyphs_of
from .virtual_size import set_virtual_size


class ScrollBlock(msgspec.Struct, gc=False, kw_only=True):
    """One block of a `BlockScroll`: its lines once laid out at `width`, its estimated height
    before. Subclasses add what the block shows. (A struct made in C that the collector does
    not track: a long context has 100,000 blocks, made at once when it is shown.)"""

    estimate: int = 3
    expanded: bool = False
    # (lines, the width they were laid out at) once laid out: one field, not two (100,000
    # blocks, 0.8 MiB, and a block of six fields takes 64 bytes, of seven 80).
    layout: tuple[list[Strip], int] | None = None

    @property
    def lines(self) -> list[Strip] | None:
        layout = self.layout
        return None if layout is None else layout[0]

    @property
    def width(self) -> int:
        layout = self.layout
        return 0 if layout is None else layout[1]

    @property
    def height(self) -> int:
        """Lines once laid out, the estimate before."""
        layout = self.layout
        return self.estimate if layout is None else len(layout[0])

    def set_lines(self, lines: list[Strip] | None, width: int = 0) -> None:
        self.layout = None if lines is None else (lines, width)


B = TypeVar("B", bound=ScrollBlock)


class BlockScroll(ScrollView, Generic[B], can_focus=True):
    # Component classes of the subclass: the current block's first line, the placeholder.
    CURRENT_CLASS: ClassVar[str] = "blockscroll--current"
    PLACEHOLDER_CLASS: ClassVar[str] = "blockscroll--placeholder"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.blocks: list[B] = []
        # Where each block starts, and the end: machine ints (a list of 100,000 took 3.8 MiB).
        self.offsets = array("q", [0])
        self.current = -1
        self._placeholder = ""
        self.stick_to_end = False  # keep the end in view when the size changes (until scrolled)
        self.scroll_pending = False  # a scroll waits for the next refresh
        self._dirty_from: int | None = None  # the first block whose height changed since the layout
        self._base_style: Style | None = None  # `rich_style`, which walks every ancestor

    # ------------------------------------------------------------------ for subclasses
    def layout_block(self, block: B, width: int) -> list[Strip]:
        """The lines of `block` at `width` cells (each at most that wide)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ blocks in
    def set_blocks(self, blocks: list[B], *, at_end: bool, keep_scroll: bool = False, keep: int = 0) -> None:
        """Show `blocks`: from the top, at the end, or (`keep_scroll`) where the view was.
        With `keep`, the first `keep` blocks shown stay (with their layout) and `blocks`
        follow them: a move along a conversation costs the blocks it changes, not a pass
        over 100,000 of them."""
        old_y = int(self.scroll_offset.y)
        if keep_scroll and self.blocks and (self.stick_to_end or old_y >= self.max_scroll_y):
            keep_scroll, at_end = False, True  # a view at the end follows what is added
        keep = keep if 0 < keep <= len(self.blocks) and len(self.offsets) == len(self.blocks) + 1 else 0
        if keep:
            del self.blocks[keep:]
            del self.offsets[keep + 1 :]
            self.blocks.extend(blocks)
            blocks = self.blocks
        else:
            self.blocks = blocks
        if keep_scroll:
            self.current = min(self.current, len(blocks) - 1)
        else:
            self.current = len(blocks) - 1 if at_end else (0 if blocks else -1)
        self.stick_to_end = at_end and not keep_scroll
        self._relayout(keep if self._dirty_from is None else min(keep, self._dirty_from))
        if keep_scroll:
            self.scroll_to(
                y=min(old_y, max(0, self.offsets[-1] - self.scrollable_content_region.height)),
                animate=False,
                immediate=True,
            )
        elif at_end:
            self._settle_end()
            # A view that was not scrollable a moment ago ignores scrolling until laid out.
            self.scroll_pending = True
            self.call_after_refresh(self._settle_end_if_sticking)
        else:
            self.scroll_to(y=0, animate=False, immediate=True, force=True)
            self._prepare_view()
        self.refresh()

    def append_blocks(self, blocks: Sequence[B]) -> None:
        """More blocks at the end (a live context growing); a view at the end stays there."""
        at_end = self.stick_to_end or self.scroll_offset.y >= self.max_scroll_y
        start = len(self.blocks)
        self.blocks.extend(blocks)
        self._relayout(start)
        if at_end:
            self.stick_to_end = True
            self._settle_end()
            self.scroll_pending = True
            self.call_after_refresh(self._settle_end_if_sticking)
        self.refresh()

    def show_placeholder(self, text: str) -> None:
        """No blocks: one line of text instead."""
        self.blocks = []
        self.offsets = array("q", [0])
        self.current = -1
        self._placeholder = text
        self.virtual_size = Size(self._width(), 1)
        self.refresh()

    def relayout_block(self, index: int) -> None:
        """Block `index` looks different now (expanded, say): lay it out again, keep it in view."""
        block = self.blocks[index]
        block.set_lines(None)
        self._layout(block, self._width())
        self._relayout(index)
        self._reveal_current()
        self.refresh()

    # ------------------------------------------------------------------ layout
    def _width(self) -> int:
        return max(10, self.scrollable_content_region.width)

    def _layout(self, block: B, width: int) -> None:
        block.set_lines(self.layout_block(block, width), width)

    def _relayout(self, start: int = 0) -> None:
        """Block offsets from the first block whose height changed (`start`) on."""
        offsets = self.offsets
        if 0 < start < len(offsets) and len(offsets) <= len(self.blocks) + 1:
            del offsets[start + 1 :]
            blocks = self.blocks
            heights = (blocks[i].height for i in range(start, len(blocks)))
            offsets.extend(accumulate(heights, initial=offsets[start]))
            del offsets[start + 1]  # accumulate repeats its initial value
        else:
            self.offsets = array("q", accumulate((b.height for b in self.blocks), initial=0))
        self._dirty_from = None
        set_virtual_size(self, Size(self._width(), max(1, self.offsets[-1])))

    def _settle_end(self) -> None:
        """Scroll to the end, laying out the last blocks first so estimates do not leave a gap."""
        for _ in range(3):
            end = self.offsets[-1]
            self._render_range(max(0, end - self.scrollable_content_region.height - 5), end)
            self.scroll_to(
                y=max(0, self.offsets[-1] - self.scrollable_content_region.height),
                animate=False,
                immediate=True,
                force=True,
            )
            if self.offsets[-1] == end:
                break  # no height changed: another round would lay out and scroll the same

    def _settle_end_if_sticking(self) -> None:
        if self.stick_to_end:
            self._settle_end()
        self.scroll_pending = False

    def _block_at(self, y: int) -> int:
        return max(0, min(len(self.blocks) - 1, bisect_right(self.offsets, y) - 1))

    def _render_range(self, start: int, stop: int) -> None:
        if not self.blocks:
            return
        width = self._width()
        first, last = self._block_at(start), self._block_at(stop)
        changed: int | None = None
        for index in range(first, last + 1):
            block = self.blocks[index]
            if block.lines is None or block.width != width:
                before = block.height
                self._layout(block, width)
                if block.height != before and changed is None:
                    changed = index
        if changed is not None:
            self._relayout(changed)

    def _prepare_view(self) -> None:
        """Lay out the blocks in view; keep the top line's block where it was on screen."""
        if not self.blocks:
            return
        top = int(self.scroll_offset.y)
        anchor = self._block_at(top)
        within = top - self.offsets[anchor]
        self._render_range(top, top + self.scrollable_content_region.height + 2)
        new_top = self.offsets[anchor] + within
        if new_top != top:
            self.scroll_to(y=new_top, animate=False, immediate=True, force=True)
            self._render_range(new_top, new_top + self.scrollable_content_region.height + 2)

    def watch_scroll_y(self, old: float, new: float) -> None:
        # ScrollView skips a hidden scrollbar, which then shows up with a stale thumb.
        self.vertical_scrollbar.position = new
        super().watch_scroll_y(old, new)
        # Scrolling up (wheel, scrollbar, keys) leaves the end; scrolling back to it sticks.
        if new < old and new < self.max_scroll_y:
            self.stick_to_end = False
        elif new > old and new >= self.max_scroll_y:
            self.stick_to_end = True
        if round(old) != round(new):
            self._render_range(int(new), int(new) + self.scrollable_content_region.height + 2)

    def on_resize(self, event: events.Resize) -> None:
        for block in self.blocks:
            block.set_lines(None)
        self._relayout()
        if self.stick_to_end:
            self._settle_end()
        else:
            self._prepare_view()

    # ------------------------------------------------------------------ drawing
    @property
    def base_style(self) -> Style:
        """The scroller's own style (`rich_style`, worked out once until the styles change:
        it walks every ancestor, and a repaint asks for it a few times a line)."""
        if self._base_style is None:
            self._base_style = self.rich_style
        return self._base_style

    def notify_style_update(self) -> None:
        self._base_style = None
        super().notify_style_update()

    def render_line(self, y: int) -> Strip:
        width = self._width()
        absolute = int(self.scroll_offset.y) + y
        base = self.base_style
        if not self.blocks:
            if y == 0 and self._placeholder:
                style = self.get_component_rich_style(self.PLACEHOLDER_CLASS)
                return plain.row(self._placeholder, style, width, glyphs=glyphs_of(self))
            return plain.blank(width, base)
        if absolute >= self.offsets[-1]:
            return plain.blank(width, base)
        index = self._block_at(absolute)
        block = self.blocks[index]
        if block.lines is None or block.width != width:
            before = block.height
            self._layout(block, width)
            if block.height != before:
                if self._dirty_from is None:
                    self.call_after_refresh(self._relayout_if_needed)
                    self._dirty_from = index
                self._dirty_from = min(self._dirty_from, index)
        line = absolute - self.offsets[index]
        if line >= len(block.lines or ()):
            return plain.blank(width, base)
        # Blocks' pieces carry colours only: the scroller's background goes underneath.
        strip = (block.lines or [])[line].apply_style(base)
        if index == self.current and line == 0:
            strip = strip.apply_style(self.get_component_rich_style(self.CURRENT_CLASS, partial=True))
        return strip.crop_extend(0, width, base)

    def _relayout_if_needed(self) -> None:
        if self._dirty_from is not None:
            self._relayout(self._dirty_from)
            if self.stick_to_end:
                self._settle_end()
            self.refresh()

    # ------------------------------------------------------------------ moving (the keys' actions)
    def action_scroll_lines(self, delta: int) -> None:
        self.stick_to_end = False
        self.scroll_to(y=max(0, int(self.scroll_offset.y) + delta), animate=False, immediate=True, force=True)

    def action_to_start(self) -> None:
        self.scroll_to(y=0, animate=False, immediate=True, force=True)
        self._set_current(0)

    def action_to_end(self) -> None:
        self._settle_end()
        self._set_current(len(self.blocks) - 1)

    def action_block(self, step: int) -> None:
        if not self.blocks:
            return
        self._set_current(max(0, min(len(self.blocks) - 1, self.current + step)))
        self._reveal_current()

    def action_toggle_block(self) -> None:
        """Expand or collapse the current block (the one at the top when it is out of view)."""
        if not self.blocks:
            return
        top = int(self.scroll_offset.y)
        if not (
            self.offsets[self.current] < top + self.scrollable_content_region.height
            and self.offsets[self.current + 1] > top
        ):
            self._set_current(self._block_at(top))
        block = self.blocks[self.current]
        block.expanded = not block.expanded
        self.relayout_block(self.current)

    def _set_current(self, index: int) -> None:
        if not self.blocks:
            return
        self.current = max(0, min(len(self.blocks) - 1, index))
        self.refresh()

    def _reveal_current(self) -> None:
        top = int(self.scroll_offset.y)
        start, stop = self.offsets[self.current], self.offsets[self.current + 1]
        if start < top or stop > top + self.scrollable_content_region.height:
            self.scroll_to(y=start, animate=False, immediate=True, force=True)

    async def _on_click(self, event: events.Click) -> None:
        if self.blocks:
            self._set_current(self._block_at(int(self.scroll_offset.y) + event.y))
            if event.chain >= 2:
                self.action_toggle_block()
