"""The recent edits feed (`e`): every file the agent changed, across all sessions, newest first,
with each change's fate; enter lands on the entry. The rows are `pi-sessions edits --json`'s
(core/index/queries.py), read from the index in a worker as the history screen reads them."""

from __future__ import annotations

import sqlite3

from ..core.index.queries import TouchRow, changed_files
from ..widgets.keys import bindings
from .history_screen import TouchesScreen


class EditsScreen(TouchesScreen):
    BINDINGS = bindings("edits")
    GROUP = "edits"
    CLOSE = "edits.close"
    SHOW_FILE = True

    def query_rows(self, conn: sqlite3.Connection) -> list[TouchRow]:
        return list(changed_files(conn))

    def heading(self) -> str:
        return "Recent edits (all sessions)"

    def empty_note(self) -> str:
        return "The agent changed no file in these sessions."
