"""The rows of the secrets view: one finding of the audit per line, in columns, never the value.

`github-token   gh…2e (40 chars)   in context   user text   u1   session`: the kind, the
preview (first and last two characters and the length, core/audit/rules.py `preview`), where
it stands at the session's default leaf, what brought it in, the entry, and (over every
session) the session. Rows come from core/audit/scan.py; this only draws them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from rich.cells import cell_len
from textual.strip import Strip

from ..core.audit.scan import Finding
from ..core.common.text import fit_words, one_line
from .rowlist import RowList
from .rowtext import RowText

KIND_CELLS = 22  # "aws-secret-access-key"
PREVIEW_CELLS = 18  # "gh…2e (40 chars)"
FATE_CELLS = 18  # "abandoned branch"
SOURCE_CELLS = 20


def secret_fate(finding: Finding) -> str:
    """Where the secret stands at the session's default leaf, in words."""
    if finding.in_context:
        return "in context"
    if finding.fate == "off-path":
        return "abandoned branch"
    if finding.fate == "header":
        return "session header"
    return f"out ({finding.fate})"


def secret_source(finding: Finding) -> str:
    """What brought it in: `bash tool-result`, `user text`."""
    return f"{finding.source} {finding.part}"


class SecretList(RowList):
    COMPONENT_CLASSES = RowList.COMPONENT_CLASSES | {
        "secretlist--kind",
        "secretlist--dim",
        "secretlist--live",
    }

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[Finding] = []
        self.show_session = False  # over every session: each row names its session
        self.titles: Mapping[str, str] = {}  # session path -> its title, for the sessions listed

    def show_note(self, text: str) -> None:
        """No rows (yet): `text` instead ("reading…", none, or why it failed)."""
        self.rows = []
        self.placeholder = [text]
        self.cursor = -1
        self.set_row_count(0)
        self.refresh()

    def set_rows(self, rows: list[Finding], note: str) -> None:
        self.rows = rows
        self.placeholder = [note]
        self.set_row_count(len(rows))
        self.cursor = 0 if rows else -1
        self.scroll_to_cursor()
        self.refresh()

    def current(self) -> Finding | None:
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    def render_row(self, index: int, width: int, selected: bool) -> Strip:
        row = self.rows[index]
        text = RowText(self.row_style(selected), self.glyphs)
        dim = self.style("secretlist--dim")
        text.add(" " + self._column(row.kind, KIND_CELLS), self.style("secretlist--kind"), raw=True)
        text.add(" " + self._column(row.preview, PREVIEW_CELLS), None, raw=True)
        fate_style = self.style("secretlist--live") if row.in_context else dim
        text.add(" " + self._column(secret_fate(row), FATE_CELLS), fate_style, raw=True)
        text.add(" " + self._column(secret_source(row), SOURCE_CELLS), dim, raw=True)
        entry = row.entry_id or "(header)"
        text.add(" " + self._column(entry + (f" x{row.count}" if row.count > 1 else ""), 12), dim, raw=True)
        if self.show_session:
            title = self.titles.get(row.session_path)
            if title is None:
                session = Path(row.session_path)
                title = f"{session.parent.name}/{session.name}"
            text.add(" " + title, None)
        return text.strip(width)

    def _column(self, value: str, cells: int) -> str:
        """`value` on one line, cut to `cells` at a word boundary, padded to fill them."""
        g = self.glyphs
        fitted = fit_words(one_line(value, 400, glyphs=g), cells, cell_len, glyphs=g)
        return fitted + " " * max(0, cells - cell_len(fitted))
