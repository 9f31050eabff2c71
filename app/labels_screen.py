"""Every label of every session in one list, filterable as you type; enter lands on the entry.

The labels are read in a worker thread (`core.labels.LabelIndex`: a file is read again only
when it changed), rows appearing as files are read, with the progress in the title. Typing
filters what is there (`core.labels.filter_labels`); up and down move the list from the
filter line. The screen answers the label chosen (the main screen lands on its entry as on
a search hit), or None.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from textual import events, on, work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.worker import Worker, WorkerState, get_current_worker

from ..core.common.text import counted
from ..core.listing.summary import SessionSummary
from ..core.search.labels import LabelIndex, LabelRow, filter_labels
from ..core.search.matching import SearchCancelled
from ..widgets.glyphs import glyphs_of
from ..widgets.keys import bindings
from ..widgets.label_list import LabelList
from ..widgets.plain import FitStatic, PlainInput
from ..widgets.rowlist import RowList
from .keymap import hint
from .screens import live_keys

BATCH_SECONDS = 0.1  # rows found are handed to the screen about this often


class LabelsScreen(Screen[LabelRow | None]):
    DEFAULT_CSS = """
    LabelsScreen { layout: vertical; }
    #labels-filter { height: 1; border: none; padding: 0 1; background: $surface; }
    #labels-list { height: 1fr; background: $background; }
    LabelList > .labellist--label { color: $accent; }
    LabelList > .labellist--dim { color: $text-muted; }
    #labels-hint { height: 1; background: $panel; color: $text-muted; padding: 0 1; }
    """
    BINDINGS = bindings("labels")

    def __init__(self, summaries: Sequence[SessionSummary], index: LabelIndex) -> None:
        super().__init__()
        self.summaries = list(summaries)
        self.index = index
        self.found: list[LabelRow] = []
        self.read = 0  # files read so far
        self.done = False

    def compose(self) -> ComposeResult:
        yield FitStatic("", id="labels-title", classes="pane-title")
        yield PlainInput(
            placeholder="filter: words in the label, the session or the entry", id="labels-filter"
        )
        yield LabelList(id="labels-list")
        keys = live_keys(self)  # type: ignore[arg-type]
        yield FitStatic(
            hint(keys, [("list.open", "open at the labelled entry"), ("labels.close", "back")]),
            id="labels-hint",
        )

    @property
    def label_list(self) -> LabelList:
        return self.query_one(LabelList)

    @property
    def filter_input(self) -> PlainInput:
        return self.query_one("#labels-filter", PlainInput)

    def on_mount(self) -> None:
        self.filter_input.focus()
        self._update_title()
        self.read_labels()

    # ------------------------------------------------------------------ reading
    @work(thread=True, exclusive=True, group="labels", exit_on_error=False)
    def read_labels(self) -> None:
        worker = get_current_worker()
        batch: list[LabelRow] = []
        last = 0.0
        try:
            for count, rows in self.index.read(self.summaries, cancelled=lambda: worker.is_cancelled):
                batch.extend(rows)
                now = time.monotonic()
                if now - last >= BATCH_SECONDS:
                    last = now
                    self.app.call_from_thread(self._found, batch, count, False)
                    batch = []
        except SearchCancelled:
            return
        self.app.call_from_thread(self._found, batch, len(self.summaries), True)

    def _found(self, rows: list[LabelRow], read: int, done: bool) -> None:
        self.found.extend(rows)
        self.read, self.done = read, done
        if rows or done:
            self._refilter()
        self._update_title()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self.query_one("#labels-title", FitStatic).update(
                f"reading the labels failed: {event.worker.error}"
            )

    # ------------------------------------------------------------------ filtering and choosing
    def _refilter(self) -> None:
        self.label_list.set_rows(filter_labels(self.found, self.filter_input.value))

    def _update_title(self) -> None:
        dot = f" {glyphs_of(self).dot} "
        shown, total = len(self.label_list.rows), len(self.found)
        count = f"{shown}/{total}" if shown != total else f"{total}"
        title = f"Every label{dot}{count} label{'' if total == 1 else 's'}"
        title += f"{dot}{counted(len(self.summaries), 'session')}"
        if not self.done:
            title += f"{dot}{self.read:,}/{len(self.summaries):,} files read{glyphs_of(self).ellipsis}"
        self.query_one("#labels-title", FitStatic).update(title)

    @on(PlainInput.Changed, "#labels-filter")
    def _filter_changed(self, event: PlainInput.Changed) -> None:
        event.stop()
        self._refilter()
        self._update_title()

    @on(PlainInput.Submitted, "#labels-filter")
    def _submitted(self, event: PlainInput.Submitted) -> None:
        event.stop()
        self._choose()

    @on(RowList.Activated)
    def _activated(self, event: RowList.Activated) -> None:
        event.stop()
        self._choose()

    def _choose(self) -> None:
        row = self.label_list.current()
        if row is not None:
            self.dismiss(row)

    def on_key(self, event: events.Key) -> None:
        if event.key in ("down", "up", "pagedown", "pageup") and self.filter_input.has_focus:
            event.stop()
            moves = {
                "down": self.label_list.action_cursor_down,
                "up": self.label_list.action_cursor_up,
                "pagedown": self.label_list.action_page_down,
                "pageup": self.label_list.action_page_up,
            }
            moves[event.key]()

    def action_close(self) -> None:
        self.workers.cancel_group(self, "labels")
        self.dismiss(None)
