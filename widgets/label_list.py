"""The rows of the labels list: every label of every session, one line each, in columns.

`label   session   the labelled entry's text   age   active path | branch from 1a2b3c4d`: the
label and the session's title in columns of their own, the entry's text in what is left, the
age and the place on the right. Rows come from core/search/labels.py; this only draws them.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual.strip import Strip

from ..core.common.text import age, fit_words, one_line
from ..core.search.in_session import HitPlace
from ..core.search.labels import LabelRow
from ..core.search.landing import place_words
from . import sidebar
from .rowlist import RowList
from .rowtext import RowText

LABEL_CELLS = 24
TITLE_CELLS = 30


class LabelList(RowList):
    COMPONENT_CLASSES = RowList.COMPONENT_CLASSES | {"labellist--label", "labellist--dim"}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[LabelRow] = []
        self.now = sidebar.clock()

    def set_rows(self, rows: list[LabelRow]) -> None:
        """New rows, the cursor kept on the same label when it is still there."""
        current = self.current()
        self.rows = rows
        self.now = sidebar.clock()
        self.set_row_count(len(rows))
        index = rows.index(current) if current is not None and current in rows else 0
        self.cursor = index if rows else -1
        self.scroll_to_cursor()
        self.refresh()

    def current(self) -> LabelRow | None:
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    def render_row(self, index: int, width: int, selected: bool) -> Strip:
        row = self.rows[index]
        g = self.glyphs
        text = RowText(self.row_style(selected), g)
        dim = self.style("labellist--dim")
        label_cells = min(LABEL_CELLS, max(8, width // 5))
        title_cells = min(TITLE_CELLS, max(8, width // 4))
        text.add(
            " " + self._column(g.label + row.text, label_cells), self.style("labellist--label"), raw=True
        )
        text.add(" " + self._column(row.session_title, title_cells), None, raw=True)
        text.add(" " + row.excerpt, dim)
        when = row.timestamp_ms
        seconds = self.now - when / 1000 if when is not None else None
        tail = place_words(HitPlace(row.entry_id, "label", row.on_active_path, row.branch_from))
        if seconds is not None:
            tail += f" {age(seconds):>3}"
        text.right(tail, dim)
        return text.strip(width)

    def _column(self, value: str, cells: int) -> str:
        """`value` on one line, cut to `cells` at a word boundary, padded to fill them."""
        g = self.glyphs
        fitted = fit_words(one_line(value, 400, glyphs=g), cells, cell_len, glyphs=g)
        return fitted + " " * max(0, cells - cell_len(fitted))
