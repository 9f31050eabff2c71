"""Building one row of text from pieces, safely.

Session text is data: every piece is folded to one line by `one_line` (our own glyphs keep
their spacing) and the row is drawn by `plain.line`, which makes every piece inert. Rows are
plain Segments, never markup, so `[bold]` in a message is shown as the six characters it is.
A piece that does not fit is cut at a word boundary, with an ellipsis.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.style import Style
from textual.strip import Strip

from ..core.common.glyphs import UNICODE, Glyphs
from ..core.common.text import fit_words, inline, one_line
from . import plain


class RowText:
    """Segments laid out left to right, with an optional right-aligned tail."""

    __slots__ = ("_left", "_right", "base", "glyphs")

    def __init__(self, base: Style, glyphs: Glyphs = UNICODE) -> None:
        self.base = base
        self.glyphs = glyphs
        self._left: list[tuple[str, Style]] = []
        self._right: list[tuple[str, Style]] = []

    def add(self, text: str, style: Style | None = None, *, raw: bool = False) -> RowText:
        """Append text; `raw` keeps the spacing of our own glyphs (still made inert), the
        rest is folded to one line."""
        if text:
            shown = inline(text, glyphs=self.glyphs) if raw else one_line(text, 400, glyphs=self.glyphs)
            self._left.append((shown, self.base + style if style else self.base))
        return self

    def right(self, text: str, style: Style | None = None, *, raw: bool = False) -> RowText:
        """Append to the right-aligned tail (`raw`: our own text, its spacing kept)."""
        if text:
            shown = inline(text, glyphs=self.glyphs) if raw else one_line(text, 80, glyphs=self.glyphs)
            self._right.append((shown, self.base + style if style else self.base))
        return self

    def strip(self, width: int) -> Strip:
        right_width = sum(cell_len(t) for t, _ in self._right)
        if right_width > width // 2:
            self._right = []
            right_width = 0
        room = max(0, width - right_width - (1 if right_width else 0))
        pieces: list[tuple[str, Style | None]] = []
        used = 0
        for text, style in self._left:
            length = cell_len(text)
            if used + length > room:
                cut = _cut(text, room - used, self.glyphs)
                if cut:
                    pieces.append((cut, style))
                    used += cell_len(cut)
                break
            pieces.append((text, style))
            used += length
        if right_width:
            pieces.append((" " * (width - used - right_width), self.base))
            pieces.extend(self._right)
            used = width
        if used < width:
            pieces.append((" " * (width - used), self.base))
        return plain.line(pieces, width, glyphs=self.glyphs)


def _cut(text: str, width: int, glyphs: Glyphs) -> str:
    """Cut to `width` cells at a word boundary, with an ellipsis (core.text.fit_words)."""
    return fit_words(text, width, cell_len, glyphs=glyphs) if width > 0 else ""
