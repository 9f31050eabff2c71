"""The files view: every file the tool calls on the path to an entry named, with what the model
knew of each there (core/projection/file_knowledge.py), and the exact text the model saw
of the file through its last read or edit (or any other touch), with a jump to the entry that
holds it. Dismissed with the entry to go to (None: stay where the tree is), or with a row of
the cursor's file's history across sessions (`h`: app/history_screen.py) to open.

The path's tool calls are read back in a worker thread (the first time, a second for 100,000
entries); the tracker the screen is handed remembers them for the next entry. The projection is
made on the event loop (only the loop changes the session); when the session was read again
meanwhile, or the reading failed (the loop may read bodies through the same cache at the same
time), the files are read once more, a few times at most.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.worker import Worker, WorkerState, get_current_worker

from ..core.common.problems import SessionError
from ..core.common.text import one_line
from ..core.projection.context import Fate, Projection, project
from ..core.projection.file_knowledge import FileKnowledge, FilesAtLeaf, FileTracker, Touch, seen_text
from ..core.projection.stale import StaleFile
from ..core.session.session import Session
from ..widgets.files_view import FileList, touch_fate, touch_line
from ..widgets.glyphs import glyphs_of
from ..widgets.keys import bindings
from ..widgets.plain import FitStatic, PlainStatic
from ..widgets.plain_views import PlainLog
from ..widgets.rowlist import RowList
from .history_screen import HistoryScreen, TouchChoice
from .keymap import hint
from .screens import live_keys

MAX_TEXT_LINES = 20_000  # a longer text shows its first lines and says how many more there are
READ_TRIES = 3  # a reading overtaken by a change of the session, or failed: this many in all


class FilesScreen(ModalScreen[str | TouchChoice | None]):
    BINDINGS = bindings("files")

    def __init__(
        self,
        session: Session,
        leaf: str,
        tracker: FileTracker,
        projection: Projection | None = None,
        index: tuple[str, Path | None, Callable[[], Mapping[str, str]]] | None = None,
    ) -> None:
        super().__init__()
        self.index = index  # (the sessions folder, the index's folder, the titles): for a file's history
        self.last_file: str | None = None  # the path of the file the cursor was last on
        self.session = session
        self.leaf = leaf
        self.tracker = tracker
        self.given = projection
        self.report: FilesAtLeaf | None = None
        self.stale: dict[str, StaleFile] = {}  # path -> how it changed on disk since the model saw it
        self.fates: dict[int, Fate] = {}  # record index -> its fate at the leaf
        self.touch_index = -1  # which touch of the cursor's file is shown
        self.tries = 0
        self.reading: tuple[int, int] = (-1, -1)  # (generation, tree version) the reading started on

    def compose(self) -> ComposeResult:
        glyphs = glyphs_of(self)
        with Vertical(id="files-box", classes="dialog"):
            yield FitStatic(
                f"Files at {one_line(self.leaf, 40, glyphs=glyphs)}", id="files-title", classes="dialog-title"
            )
            with Vertical(id="files-panes"):
                yield FileList(id="files-list")
                with Vertical(id="files-seen"):
                    yield FitStatic("", id="files-touch", classes="one-line")
                    yield FitStatic("", id="files-fate", classes="one-line dim")
                    yield PlainLog(id="files-text", highlight=False, auto_scroll=False)
            keys = live_keys(self)
            touches = hint(
                keys,
                [
                    ("files.previousTouch", "earlier"),
                    ("files.nextTouch", "later read or edit"),
                    ("files.history", "history (all sessions)"),
                ],
            )
            yield PlainStatic(
                f"enter: go to the entry shown    {touches}    tab: the text    "
                + hint(keys, [("files.close", "close")]),
                classes="dialog-hint",
            )

    @property
    def file_list(self) -> FileList:
        return self.query_one(FileList)

    @property
    def text_log(self) -> PlainLog:
        return self.query_one("#files-text", PlainLog)

    def on_mount(self) -> None:
        self.file_list.show_note(f"reading{glyphs_of(self).ellipsis}")
        self.file_list.focus()
        self._start()

    # ------------------------------------------------------------------ reading the files
    def _start(self) -> None:
        session = self.session
        projection = self.given
        current = (self.leaf, session.tree_version)
        if projection is None or (projection.leaf_id, projection.tree_version) != current:
            try:
                projection = project(session, self.leaf)  # on the loop: only the loop changes a session
            except (SessionError, OSError, ValueError) as e:
                self.file_list.show_note(f"cannot read the files at this entry: {e}")
                return
        self.given = None  # a second try projects again
        self.tries += 1
        self.reading = (session.generation, session.tree_version)
        self._read(projection)

    @work(thread=True, exclusive=True, group="files", exit_on_error=False)
    def _read(self, projection: Projection) -> None:
        from ..core.projection.stale import stale_files  # (StaleFile above: the same module)
        from ..core.writing.gitprobe import open_probe

        report = self.tracker.files_at(self.leaf, projection)
        # What changed on disk since the model saw it (marked on its row).
        self.stale = {s.path: s for s in stale_files(self.session, report, open_probe(self.session.cwd))}
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._read_done, report)

    def _changed_meanwhile(self) -> bool:
        """The session was read again (or its tree rebuilt) since the reading started."""
        return self.reading != (self.session.generation, self.session.tree_version)

    def _read_done(self, report: FilesAtLeaf) -> None:
        if not self.is_attached:
            return
        if self._changed_meanwhile() and self.tries < READ_TRIES:
            self._start()  # the session was read again meanwhile: what was read may be stale
            return
        self.report = report
        self.fates = {fate.record.index: fate for fate in report.projection.fates}
        count = len(report.files)
        dot = f" {glyphs_of(self).dot} "
        self.query_one("#files-title", FitStatic).update(
            f"Files at {self.leaf}{dot}{count} {'file' if count == 1 else 'files'} named by the tool calls "
            f"on the path{dot}cwd {self.session.cwd or '?'}"
        )
        self.file_list.show(report, self.stale)
        if not report.files:
            self._show_touch(None, None)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is not WorkerState.ERROR or not self.is_attached:
            return
        if self.tries < READ_TRIES:
            self._start()
            return
        self.file_list.show_note(f"cannot read the files at this entry: {event.worker.error}")

    # ------------------------------------------------------------------ the text a touch showed
    @on(RowList.CursorMoved, "#files-list")
    def _file_moved(self, event: RowList.CursorMoved) -> None:
        event.stop()
        known = self.file_list.current_file()
        if known is None:
            return
        self.last_file = known.path
        latest = known.latest
        touches = known.touches
        self.touch_index = touches.index(latest) if latest is not None else len(touches) - 1
        self._show_touch(known, touches[self.touch_index] if touches else None)

    def action_touch(self, step: int) -> None:
        known = self.file_list.current_file()
        if known is None or not known.touches:
            return
        index = max(0, min(len(known.touches) - 1, self.touch_index + step))
        if index != self.touch_index:
            self.touch_index = index
            self._show_touch(known, known.touches[index])

    def shown_touch(self) -> Touch | None:
        known = self.file_list.current_file()
        if known is None or not 0 <= self.touch_index < len(known.touches):
            return None
        return known.touches[self.touch_index]

    def _show_touch(self, known: FileKnowledge | None, touch: Touch | None) -> None:
        glyphs = glyphs_of(self)
        dot = f" {glyphs.dot} "
        log = self.text_log
        log.clear()
        if known is None or touch is None:
            self.query_one("#files-touch", FitStatic).update("")
            self.query_one("#files-fate", FitStatic).update("")
            return
        count = len(known.touches)
        where = f"{self.touch_index + 1} of {count}"
        latest = " (the latest)" if touch is known.latest else ""
        self.query_one("#files-touch", FitStatic).update(
            f"{known.display}{dot}{touch_line(touch, glyphs=glyphs)}{dot}{where}{latest}"
        )
        fate = touch_fate(touch, self.fates.get(touch.entry.index))
        visible = known.visible
        if touch is known.latest and visible is not None and visible is not touch:
            fate += f"{dot}still in context: {touch_line(visible, glyphs=glyphs)}"
        self.query_one("#files-fate", FitStatic).update(fate)
        try:
            text = seen_text(self.session, touch).text
        except (SessionError, OSError, ValueError) as e:
            log.write_lines([f"(cannot read this entry back: {e})"])
            return
        lines = text.expandtabs(4).split("\n") if text else ["(empty)"]
        more = len(lines) - MAX_TEXT_LINES
        log.write_lines(lines[:MAX_TEXT_LINES])
        if more > 0:
            log.write_lines([f"{glyphs.ellipsis} {more} more lines (the raw JSON of the entry has them all)"])
        log.scroll_home(animate=False)

    # ------------------------------------------------------------------ leaving
    @on(RowList.Activated, "#files-list")
    def _activated(self, event: RowList.Activated) -> None:
        event.stop()
        touch = self.shown_touch()
        if touch is not None:
            self.dismiss(touch.entry.id)

    def action_history(self) -> None:
        """The cursor's file across every session; a row chosen there closes this view too."""
        known = self.file_list.current_file()
        if known is None or self.index is None:
            return
        root, base, titles = self.index
        self.app.push_screen(HistoryScreen(root, known.path, base, titles), self._history_chosen)

    def _history_chosen(self, choice: TouchChoice | None) -> None:
        if choice is not None:
            self.dismiss(choice)

    def action_close(self) -> None:
        self.dismiss(None)
