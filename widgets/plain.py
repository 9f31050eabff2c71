"""The one way text reaches the screen: every Segment, Strip, Static, input, menu option,
log line and table built from text is built here, from sanitised text.

Session text is data. What comes through these helpers has its control characters shown as
placeholders (core/common/text.py, the one sanitiser) and is never read as markup. Widgets and
screens outside this module do not import Segment, Text, Content, Static, Input, Log,
OptionList or Table at all (tests/test_inert.py checks), so a new pane cannot forget.
Notifications go through `PiSessionsApp.notify`, which sanitises too. (The log and the text
area, shown only by screens opened on demand, are in widgets/plain_views.py, part of this
boundary: their Textual widgets were 6 ms of every start.) The placeholders and
the ellipsis follow the app's glyphs: the Line-API helpers are handed them (`glyphs=`), the
widgets here look them up (widgets/glyphs.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Self

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import Input, Static

from ..core.common.glyphs import UNICODE, Glyphs
from ..core.common.shorten import fit_first
from ..core.common.text import fit_words, inline, is_inert, one_line, visible, without_controls
from .glyphs import glyphs_of

if TYPE_CHECKING:
    from textual.widgets import OptionList

Piece = tuple[str, Style | None]


# ---------------------------------------------------------------------- lines (Line API)
def segment(text: str, style: Style | None = None, *, glyphs: Glyphs = UNICODE) -> Segment:
    """One piece of one line: every control character, newline included, made inert."""
    return Segment(inline(text, glyphs=glyphs), style)


def line(pieces: Iterable[Piece], width: int | None = None, *, glyphs: Glyphs = UNICODE) -> Strip:
    """A line from (text, style) pieces, each made inert."""
    return Strip([segment(text, style, glyphs=glyphs) for text, style in pieces], width)


def row(text: str, style: Style, width: int, *, glyphs: Glyphs = UNICODE) -> Strip:
    """One line of text (whitespace folded, cut to fit with an ellipsis) filling `width` cells."""
    return fitted_line([(one_line(text, width * 2, glyphs=glyphs), style)], width, style, glyphs=glyphs)


def fitted_line(
    pieces: Sequence[Piece], width: int, style: Style | None = None, *, glyphs: Glyphs = UNICODE
) -> Strip:
    """A line from (text, style) pieces filling `width` cells: pieces that do not fit are cut
    at a word boundary with an ellipsis (never clipped mid-word without one)."""
    shown = [(inline(text, glyphs=glyphs), piece_style) for text, piece_style in pieces]
    if sum(cell_len(text) for text, _ in shown) > width:
        kept: list[Piece] = []
        used = 0
        for text, piece_style in shown:
            size = cell_len(text)
            if used + size > width:
                kept.append((fit_words(text, width - used, cell_len, glyphs=glyphs), piece_style))
                break
            kept.append((text, piece_style))
            used += size
        shown = kept
    return Strip([Segment(text, piece_style) for text, piece_style in shown]).crop_extend(0, width, style)


def blank(width: int, style: Style | None = None) -> Strip:
    return Strip([Segment(" " * max(width, 0), style)], max(width, 0))


def in_cursor_colours(strip: Strip, cursor: Style) -> Strip:
    """The cursor row in the cursor's own colours, each piece's other styles kept: a role's
    colour on the cursor's background can be all but invisible (the open session's dot is
    the cursor's own colour)."""
    colours = Style(color=cursor.color, bgcolor=cursor.bgcolor)
    if colours.color is None and colours.bgcolor is None:
        return strip
    return Strip(
        [Segment(text, style + colours if style else colours, control) for text, style, control in strip],
        strip.cell_length,
    )


def wrapped(
    text: str, style: Style, width: int, console: Console, indent: str = "  ", *, glyphs: Glyphs = UNICODE
) -> list[Strip]:
    """Plain text (never markup) wrapped to `width` cells, each line indented: newlines are
    kept, tabs expanded, every other control character shown as a placeholder."""
    rich_text = Text(visible(text, glyphs=glyphs).expandtabs(4), style=style, no_wrap=False, end="")
    options = console.options.update(
        width=max(1, width - len(indent)), no_wrap=False, highlight=False, markup=False
    )
    rendered = console.render_lines(rich_text, options, pad=False)
    lead = Segment(inline(indent, glyphs=glyphs), style)
    return [Strip([lead, *segments]) for segments in rendered]


# ---------------------------------------------------------------------- rich renderables
def plain_text(text: str, style: str | Style = "", *, glyphs: Glyphs = UNICODE) -> Text:
    """A rich Text of `text` as it is (newlines kept, controls as placeholders)."""
    return Text(visible(text, glyphs=glyphs), style=style, end="")


def key_table(
    rows: Sequence[Sequence[str]],
    key_style: str,
    heading_style: str,
    note_style: str = "dim",
    *,
    glyphs: Glyphs = UNICODE,
) -> Table:
    """Columns (key, what it does[, a note]); a row with nothing but its first cell is a
    heading. Cells wrap at spaces, never inside a word that fits."""
    notes = any(len(row) > 2 for row in rows)
    table = Table(box=None, show_header=False, padding=(0, 1), expand=True)
    table.add_column(style=key_style, no_wrap=True, max_width=24)
    table.add_column(ratio=3)
    if notes:
        table.add_column(style=note_style, ratio=1)
    for row in rows:
        key, *rest = row
        if any(rest):
            cells = [plain_text(key, glyphs=glyphs), *(plain_text(cell, glyphs=glyphs) for cell in rest)]
            table.add_row(*cells, *([plain_text("")] * (len(table.columns) - len(cells))))
        else:
            table.add_row(
                plain_text(key, heading_style, glyphs=glyphs), *([plain_text("")] * (len(table.columns) - 1))
            )
    return table


def palette_text(text: str) -> str:
    """A command palette title or help line: Textual reads those as markup, so our text
    (which may show a key such as `[`) is escaped, and made inert first."""
    from textual.markup import escape

    return escape(one_line(text, 300))


# ---------------------------------------------------------------------- widgets
class PlainStatic(Static):
    """Shows its text as it is: `[/x]` in a session name is text, not markup (which would
    also raise on an unmatched tag), and an ESC in it is a visible U+241B. A rich Text or
    Table can only have been built by this module (nothing else may import them)."""

    def __init__(self, content: str | Text | Table = "", **kwargs: Any) -> None:
        super().__init__("", markup=False, **kwargs)
        self.update(content)

    def update(self, content: str | Text | Table = "", *, layout: bool = True) -> None:  # type: ignore[override]
        super().update(_inert(content, glyphs_of(self)), layout=layout)


def _inert(content: str | Text | Table, glyphs: Glyphs) -> str | Text | Table:
    if isinstance(content, str):
        return visible(content, glyphs=glyphs)
    if isinstance(content, Text) and not is_inert(content.plain.replace("\n", "")):
        return visible(content.plain, glyphs=glyphs)  # never expected: our Texts are built inert
    return content


class FitStatic(PlainStatic):
    """One line that fits its width whatever the width: the first of its wordings that fits
    (`update(..., shorter=...)`: the same line with fewer words around its figures), else
    its paths shortened from the middle and then cut at a word boundary with an ellipsis
    (`...` under `--ascii`), never in the middle of a word that would fit
    (core/common/shorten.py). The whole text stays in `full_text`."""

    def __init__(self, content: str = "", **kwargs: Any) -> None:
        self._content = ""
        self._shorter: tuple[str, ...] = ()
        super().__init__("", **kwargs)
        self._content = content

    @property
    def full_text(self) -> str:
        return one_line(self._content, 2000, glyphs=glyphs_of(self))

    @property
    def shown_text(self) -> str:
        """What the line shows at its width now."""
        return self._fitted(self.content_region.width)

    def update(  # type: ignore[override]
        self, content: str | Text | Table = "", *, layout: bool = False, shorter: Sequence[str] = ()
    ) -> None:
        """New text (`shorter`: shorter wordings of it, in the order to try). Its size never
        depends on its text (one line, as wide as its place), so by default only it is drawn
        again: a layout would redraw the whole screen (a title or the status line changes
        with every keystroke of a search)."""
        text = content if isinstance(content, str) else str(content)
        wordings = tuple(shorter)
        if text != self._content or wordings != self._shorter or layout:
            self._content = text
            self._shorter = wordings
            self.refresh(layout=layout)

    def _fitted(self, width: int) -> str:
        full = self.full_text
        if width <= 0:
            return full
        glyphs = glyphs_of(self)
        wordings = [full, *(one_line(w, 2000, glyphs=glyphs) for w in self._shorter)]
        return fit_first(wordings, width, cell_len, glyphs=glyphs)

    def render(self) -> Text:
        return Text(self._fitted(self.content_region.width), end="", no_wrap=True, overflow="crop")


class PlainInput(Input):
    """An input line whose value never holds a control character: a value pre-filled from
    a file (a session name, a label) and pasted text lose theirs."""

    def __init__(self, value: str | None = None, placeholder: str = "", **kwargs: Any) -> None:
        super().__init__(
            value=without_controls(value) if value else value,
            placeholder=without_controls(placeholder),
            **kwargs,
        )

    def validate_value(self, value: str) -> str:
        return without_controls(value)

    def replace(self, text: str, start: int, end: int) -> None:
        super().replace(without_controls(text), start, end)

    # Textual's Input lays the whole screen out again on every keystroke (the value's width
    # is its virtual size, a layout-changing reactive); an input whose size its styles fix
    # moves nothing then, and a layout redraws every pane: at 160x48, most of a keystroke's
    # time. (Textual is pinned: `_watch_value` is its Input's watcher of `value`.)
    _value_changing = False

    def _watch_value(self, value: str) -> None:
        self._value_changing = True
        try:
            super()._watch_value(value)
        finally:
            self._value_changing = False

    def refresh(
        self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False
    ) -> Self:
        if layout and self._value_changing and not self.styles.auto_dimensions:
            layout = False
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)


def menu(
    choices: Sequence[tuple[str, str]], id: str | None = None, *, glyphs: Glyphs = UNICODE
) -> OptionList:
    """A list of (key, label) choices, numbered from 1; each option's id is its key."""
    from textual.widgets import OptionList
    from textual.widgets.option_list import Option

    return OptionList(
        *[
            Option(plain_text(f"{i + 1}  {one_line(label, 300, glyphs=glyphs)}", glyphs=glyphs), id=key)
            for i, (key, label) in enumerate(choices)
        ],
        id=id,
    )


__all__ = [
    "FitStatic",
    "PlainInput",
    "PlainStatic",
    "blank",
    "key_table",
    "line",
    "menu",
    "palette_text",
    "plain_text",
    "row",
    "segment",
    "wrapped",
]
