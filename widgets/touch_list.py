"""The rows of the history and edits screens: one touch of a file per line, in columns.

`2025-03-01 10:00:43   changed (edit)   active path, in context   src/a.py   e3   fix the parser`:
the time, what the touch did, its fate at the session's default leaf (shorter in a narrow
list), the file (the edits feed only: a file's history is of one file), the entry, and the
session (its name or first message when listed, else its file). Rows come from
core/index/queries.py; this only draws them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from rich.cells import cell_len
from textual.strip import Strip

from ..core.common.text import fit_words, one_line
from ..core.index.queries import TouchRow
from ..core.projection.file_knowledge import display_path
from .rowlist import RowList
from .rowtext import RowText

WHEN_CELLS = 19  # "2025-03-01 10:00:43"
HOW_CELLS = 18
FATE_CELLS = 27  # "active path, out of context"
PATH_CELLS = 40
WIDE = 120  # from this width on, the fate in full words


def touch_when(row: TouchRow) -> str:
    """The entry's time to the second (UTC, as pi writes it), `?` when it has none."""
    stamp = row.timestamp
    if not stamp:
        return "?"
    return stamp[:19].replace("T", " ")


def touch_how(row: TouchRow) -> str:
    """`read`, `changed (edit)`, `named (ls)`, `changed (!rm)` for a user's `!` command."""
    verb = ("!" if row.tool == "user-bash" else "") + row.verb
    how = row.action if verb == row.action else f"{row.action} ({verb})"
    return how + (", failed" if row.error else "")


def touch_fate(row: TouchRow, short: bool = False) -> str:
    """Where the touch stands at the session's default leaf."""
    if not row.on_active_path:
        return "branch" if short else "abandoned branch"
    if short:
        return "in context" if row.in_context else "not in context"
    return "active path, in context" if row.in_context else "active path, out of context"


class TouchList(RowList):
    COMPONENT_CLASSES = RowList.COMPONENT_CLASSES | {
        "touchlist--dim",
        "touchlist--changed",
        "touchlist--branch",
    }

    def __init__(self, *, show_file: bool, id: str | None = None) -> None:
        super().__init__(id=id)
        self.show_file = show_file  # the edits feed names each file; a file's history names it once
        self.rows: list[TouchRow] = []
        self.titles: Mapping[str, str] = {}  # session path -> its title, for the sessions listed

    def show_note(self, text: str) -> None:
        """No rows (yet): `text` instead ("reading…", none, or why it failed)."""
        self.rows = []
        self.placeholder = [text]
        self.cursor = -1
        self.set_row_count(0)
        self.refresh()

    def set_rows(self, rows: list[TouchRow], note: str) -> None:
        self.rows = rows
        self.placeholder = [note]
        self.set_row_count(len(rows))
        self.cursor = 0 if rows else -1
        self.scroll_to_cursor()
        self.refresh()

    def current(self) -> TouchRow | None:
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    def render_row(self, index: int, width: int, selected: bool) -> Strip:
        row = self.rows[index]
        g = self.glyphs
        text = RowText(self.row_style(selected), g)
        dim = self.style("touchlist--dim")
        text.add(" " + self._column(touch_when(row), WHEN_CELLS), dim, raw=True)
        how_style = self.style("touchlist--changed") if row.action == "changed" else None
        text.add(" " + self._column(touch_how(row), HOW_CELLS), how_style, raw=True)
        fate_style = self.style("touchlist--branch") if not row.on_active_path else dim
        short = width < WIDE
        fate = self._column(touch_fate(row, short), len("not in context") if short else FATE_CELLS)
        text.add(" " + fate, fate_style, raw=True)
        if self.show_file:
            path_cells = min(PATH_CELLS, max(12, width // 4))
            text.add(" " + self._column(display_path(row.path, row.cwd), path_cells), None, raw=True)
        text.add(" " + self._column(row.entry_id, 8), dim, raw=True)
        title = self.titles.get(row.session_path)
        if title is None:
            session = Path(row.session_path)
            title = f"{session.parent.name}/{session.name}"
        text.add(" " + title, None if not self.show_file else dim)
        return text.strip(width)

    def _column(self, value: str, cells: int) -> str:
        """`value` on one line, cut to `cells` at a word boundary, padded to fill them."""
        g = self.glyphs
        fitted = fit_words(one_line(value, 400, glyphs=g), cells, cell_len, glyphs=g)
        return fitted + " " * max(0, cells - cell_len(fitted))
