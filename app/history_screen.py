"""A file's history across every session (`H`, or `h` in the files view): each entry that read,
changed or named it, newest first, with its fate at the session's default leaf; enter lands
on the entry. The rows are `pi-sessions history PATH --json`'s (core/index/queries.py).

The index is brought up to date in a worker thread (a first build reads every session file:
the title counts them meanwhile) and asked there; the first frame never waits for it.
`TouchesScreen` is that reading and the list, shared with the edits feed (app/edits_screen.py).
The screen answers the row chosen with the same file's other touches in that session (the main
screen opens the session at the entry, n / N walk those), or None.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.worker import Worker, WorkerState, get_current_worker

from ..core.common.problems import SessionError
from ..core.index.queries import TouchRow, file_history
from ..widgets.glyphs import glyphs_of
from ..widgets.keys import bindings
from ..widgets.plain import FitStatic
from ..widgets.rowlist import RowList
from ..widgets.touch_list import TouchList
from .keymap import hint
from .screens import live_keys

PROGRESS_SECONDS = 0.1  # the reading's progress reaches the title about this often


@dataclass(frozen=True, slots=True)
class TouchChoice:
    row: TouchRow
    walk: tuple[str, ...]  # the entries touching the same file in that session, oldest first


class _Cancelled(Exception):
    """The screen closed while the index was being brought up to date."""


class TouchesScreen(Screen[TouchChoice | None]):
    """Rows of file touches read from the index in a worker; subclasses say which."""

    DEFAULT_CSS = """
    TouchesScreen { layout: vertical; }
    TouchesScreen .touches-list { height: 1fr; background: $background; }
    TouchList > .touchlist--dim { color: $text-muted; }
    TouchList > .touchlist--changed { color: $accent; }
    TouchList > .touchlist--branch { color: $warning; }
    TouchesScreen .touches-hint { height: 1; background: $panel; color: $text-muted; padding: 0 1; }
    """
    GROUP = "touches"
    CLOSE = "history.close"
    SHOW_FILE = False

    def __init__(
        self,
        root: str,
        cache_base: Path | None = None,
        titles: Callable[[], Mapping[str, str]] | None = None,
    ) -> None:
        super().__init__()
        self.root = root
        self.cache_base = cache_base
        self.titles = titles  # the listed sessions' titles by path (asked once the rows are in)
        self.rows: list[TouchRow] | None = None  # None until read
        self.progress: tuple[int, int] | None = None  # (files read, files to read) in a first build
        self.notice: str | None = None

    # ------------------------------------------------------------------ for subclasses
    def query_rows(self, conn: sqlite3.Connection) -> list[TouchRow]:
        raise NotImplementedError

    def heading(self) -> str:
        raise NotImplementedError

    def empty_note(self) -> str:
        raise NotImplementedError

    # ------------------------------------------------------------------ the screen
    def compose(self) -> ComposeResult:
        yield FitStatic(self._title(), classes="pane-title touches-title")
        yield TouchList(show_file=self.SHOW_FILE, id=f"{self.GROUP}-list").add_class("touches-list")
        keys = live_keys(self)  # type: ignore[arg-type]
        yield FitStatic(
            hint(keys, [("list.open", "open the session at the entry"), (self.CLOSE, "back")]),
            classes="touches-hint",
        )

    @property
    def touch_list(self) -> TouchList:
        return self.query_one(TouchList)

    def on_mount(self) -> None:
        self.touch_list.show_note(f"reading{glyphs_of(self).ellipsis}")
        self.touch_list.focus()
        self._read()

    @work(thread=True, exclusive=True, group="touches", exit_on_error=False)
    def _read(self) -> None:
        from ..core.index.refresh import updated_index

        worker = get_current_worker()
        last = 0.0

        def progress(done: int, total: int, first_build: bool) -> None:
            nonlocal last
            if worker.is_cancelled:
                raise _Cancelled  # (between two files: every file read so far is kept)
            now = time.monotonic()
            if first_build and now - last >= PROGRESS_SECONDS:
                last = now
                self.app.call_from_thread(self._progressed, done, total)

        try:
            db, _ = updated_index(self.root, base=self.cache_base, progress=progress)
        except _Cancelled:
            return
        try:
            rows = self.query_rows(db.conn)
        finally:
            db.close()
        if not worker.is_cancelled:
            self.app.call_from_thread(self._take, rows, db.notice)

    def _progressed(self, done: int, total: int) -> None:
        self.progress = (done, total)
        self._update_title()

    def _take(self, rows: list[TouchRow], notice: str | None) -> None:
        self.rows, self.notice, self.progress = rows, notice, None
        if self.titles is not None:
            self.touch_list.titles = self.titles()
        self.touch_list.set_rows(rows, self.empty_note())
        self._update_title()
        if notice:
            self.notify(notice, severity="warning")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            error = event.worker.error
            known = isinstance(error, (sqlite3.Error, SessionError, OSError))
            why = str(error) if known else f"{type(error).__name__}: {error}"
            self.touch_list.show_note(f"reading the index failed: {why}")

    def _title(self) -> str:
        g = glyphs_of(self)
        dot = f" {g.dot} "
        title = self.heading()
        if self.rows is not None:
            count = len(self.rows)
            title += f"{dot}{count:,} {'entry' if count == 1 else 'entries'}"
        elif self.progress is not None:
            done, total = self.progress
            title += f"{dot}reading{g.ellipsis} {done:,}/{total:,} sessions indexed"
        else:
            title += f"{dot}reading{g.ellipsis}"
        return title

    def _update_title(self) -> None:
        self.query_one(".touches-title", FitStatic).update(self._title())

    # ------------------------------------------------------------------ choosing
    @on(RowList.Activated)
    def _activated(self, event: RowList.Activated) -> None:
        event.stop()
        row = self.touch_list.current()
        if row is not None:
            self.dismiss(TouchChoice(row, self.walk_of(row)))

    def walk_of(self, row: TouchRow) -> tuple[str, ...]:
        """The entries that touched `row`'s file in its session, oldest first (n / N walk them)."""
        key = (row.session_path, row.path)
        same = (r.entry_id for r in reversed(self.rows or []) if (r.session_path, r.path) == key)
        return tuple(dict.fromkeys(same))

    def action_close(self) -> None:
        self.workers.cancel_group(self, "touches")
        self.dismiss(None)


class HistoryScreen(TouchesScreen):
    BINDINGS = bindings("history")
    GROUP = "history"
    CLOSE = "history.close"

    def __init__(
        self,
        root: str,
        path: str,
        cache_base: Path | None = None,
        titles: Callable[[], Mapping[str, str]] | None = None,
    ) -> None:
        super().__init__(root, cache_base, titles)
        self.path = path

    def query_rows(self, conn: sqlite3.Connection) -> list[TouchRow]:
        return file_history(conn, self.path)

    def heading(self) -> str:
        return f"History of {self.path}"

    def empty_note(self) -> str:
        return f"No session read, changed or named {self.path}."
