"""The sidebar's search, off the event loop: every query in a worker thread, stale answers dropped.

A keystroke starts a search (`start`); the one before it is cancelled (an exclusive worker,
and the index's `cancelled` callback that looks at it every few hundred sessions), so typing
is never blocked and echoed at once whatever the number of sessions. An answer reaches the
sidebar only if no newer query was typed since (a generation number); the rows of a
default-scope answer are filtered in the worker too, so the loop only swaps them in. A deep
search reads files: its hits stream in (handed over about every 100 ms, with the files read
so far). The hit lines in view ask where their hits sit (`place`): another worker reads those
files. A pattern that runs too long, or a bad query, says so in the status line.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Protocol

from textual.dom import DOMNode
from textual.worker import get_current_worker

from ..core.listing.sidebar_rows import ResultRows, SessionRow, SidebarRow
from ..core.listing.summary import SessionSummary
from ..core.search.deep import DeepHit
from ..core.search.in_session import HitPlace, Scope
from ..core.search.matching import PatternTooSlow, SearchCancelled
from ..core.search.sidebar import DeepProgress, SidebarResults, SidebarSearch
from ..widgets.sidebar import SessionSidebar

HAND_OVER_SECONDS = 0.1  # a deep search's hits (and places) reach the loop about this often
PLACE_WITH_ANSWER_SECONDS = 0.02  # the rows in view are placed with the answer for this long at most


@dataclass(frozen=True, slots=True)
class View:
    """Where the sessions list is when a query starts: what will be in view of its answer."""

    top: int
    height: int
    current: str | None  # the session under the cursor (kept there if it is a result)

    def cursor(self, rows: Sequence[SidebarRow]) -> int | None:
        """Where the current session is in `rows` (None: not there)."""
        current = self.current
        return next(
            (i for i, r in enumerate(rows) if type(r) is SessionRow and r.summary.path == current), None
        )

    def paths(self, rows: Sequence[SidebarRow], cursor: int | None) -> list[str]:
        """The results whose hit lines will be in view (as `SessionList.set_rows` scrolls)."""
        if cursor is None:
            cursor = next((i for i, r in enumerate(rows) if type(r) is SessionRow), 0)
        top = min(max(self.top, cursor - self.height + 1), cursor)
        top = max(0, min(top, len(rows) - self.height))
        shown = rows[top : top + self.height + 1]
        return [r.summary.path for r in shown if type(r) is SessionRow]


class SearchHost(Protocol):
    """What the search needs from the screen it runs on (its workers run on `node`)."""

    @property
    def sidebar(self) -> SessionSidebar: ...
    def set_status(self, text: str, *, error: bool = False) -> None: ...


class SearchFlow:
    """Runs the sidebar's queries and hands their answers to the sidebar (event loop side:
    `start`, `place`; the rest runs in worker threads on `node`)."""

    def __init__(self, node: DOMNode, host: SearchHost, search: SidebarSearch) -> None:
        self.node = node
        self.host = host
        self.search = search
        self.generation = 0  # the latest query's number: an answer to an older one is dropped

    # ------------------------------------------------------------------ the event loop's side
    def start(self, text: str, scope: Scope) -> None:
        """A new query (blank: the search is over); whatever ran for the last one stops."""
        self.generation += 1
        workers = self.node.workers
        workers.cancel_group(self.node, "place")
        if not text.strip():
            workers.cancel_group(self.node, "search")
            return
        sidebar = self.host.sidebar
        # Mark words (`tag:auth`, `is:archived`) choose the rows searched; the rest is the query.
        query, rows = sidebar.search_rows(text)
        summaries = sidebar.shown_summaries() if scope == "deep" else sidebar.summaries
        if query is not text and scope == "deep":  # (the index is of every session: never these)
            summaries = [row.summary for row in rows.rows if type(row) is SessionRow]
        shown = sidebar.session_list
        current = shown.current()
        path = current.path if current is not None else None
        view = View(int(shown.scroll_offset.y), shown.scrollable_content_region.height, path)
        run = partial(self._run, self.generation, text, scope, summaries, rows, view, query)
        self._run_worker(run, "search", text)

    def place(self, results: SidebarResults, paths: list[str]) -> None:
        """Find where the hits of `paths` sit (the hit lines in view asked)."""
        run = partial(self._place, results, paths)
        self._run_worker(run, "place", results.text)

    def _run_worker(self, run: Callable[[], None], group: str, text: str) -> None:
        # Named here: Textual would describe the worker by the repr of its callable, whose
        # arguments are the whole listing (25 ms a keystroke at 2,000 sessions).
        description = f"{group} {text[:80]!r}"
        self.node.run_worker(run, group, group, description, exit_on_error=False, exclusive=True, thread=True)

    def _placed(self, results: SidebarResults, places: dict[str, HitPlace]) -> None:
        self.host.sidebar.show_places(results, places)

    def _current(self, generation: int) -> bool:
        return generation == self.generation

    def _answer(
        self,
        generation: int,
        results: SidebarResults,
        rows: list[SidebarRow] | None,
        based_on: ResultRows,
        at: int | None = None,
    ) -> None:
        if not self._current(generation):
            return  # typed on since
        if results.error is not None:
            self.host.set_status(results.error, error=True)
        self.host.sidebar.show_matches(results, rows, based_on, at)

    def _more(
        self,
        generation: int,
        results: SidebarResults,
        found: list[DeepHit],
        progress: DeepProgress,
        done: bool,
    ) -> None:
        if not self._current(generation):
            return
        results.progress = progress
        results.done = done
        sidebar = self.host.sidebar
        if found:
            results.add(found)
            sidebar.show_matches(results)
        else:
            sidebar.show_progress(results)

    def _deep_failed(self, generation: int, results: SidebarResults, error: str) -> None:
        if self._current(generation):
            results.done = True
            self.host.set_status(error, error=True)
            self.host.sidebar.show_progress(results)

    # ------------------------------------------------------------------ worker threads
    def _run(
        self,
        generation: int,
        text: str,
        scope: Scope,
        summaries: Sequence[SessionSummary],
        rows: ResultRows,
        view: View,
        query: str | None = None,
    ) -> None:
        worker = get_current_worker()

        def cancelled() -> bool:
            return worker.is_cancelled or not self._current(generation)

        call = self.node.app.call_from_thread
        try:
            asked = text if query is None else query
            results = self.search.search(asked, summaries, scope, cancelled=cancelled)
        except SearchCancelled:
            return
        results.text = text  # (the answer to what was typed, mark words and all)
        if scope == "default" or results.error is not None:
            filtered = results.rows_of(rows) if results.error is None else None
            at = view.cursor(filtered) if filtered is not None else None
            if filtered is not None:
                # The rows in view come placed (one frame, not two): nobody sees them yet.
                deadline = time.monotonic() + PLACE_WITH_ANSWER_SECONDS
                try:
                    for path, place in self.search.place(
                        results, view.paths(filtered, at), cancelled=cancelled, deadline=deadline
                    ):
                        results.places[path] = place
                except SearchCancelled:
                    return
            if not cancelled():
                call(self._answer, generation, results, filtered, rows, at)
            return
        call(self._answer, generation, results, None, rows)
        self._stream(generation, results, summaries, cancelled)

    def _stream(
        self,
        generation: int,
        results: SidebarResults,
        summaries: Sequence[SessionSummary],
        cancelled: Callable[[], bool],
    ) -> None:
        """A deep search's hits, handed over in batches with the progress."""
        call = self.node.app.call_from_thread
        found: list[DeepHit] = []
        progress = DeepProgress(0, len(summaries))
        last = time.monotonic()

        def hand_over(done: bool = False) -> None:
            nonlocal found, last
            call(self._more, generation, results, found, progress, done)
            found, last = [], time.monotonic()

        def read(now: DeepProgress) -> None:
            nonlocal progress
            progress = now
            if time.monotonic() - last >= HAND_OVER_SECONDS:
                hand_over()

        first = True
        try:
            for hit in self.search.deep_hits(results, summaries, read, cancelled=cancelled):
                found.append(hit)
                if first or time.monotonic() - last >= HAND_OVER_SECONDS:
                    hand_over()  # the first hit at once: the next file may take long
                    first = False
        except SearchCancelled:
            return
        except PatternTooSlow as e:
            call(self._deep_failed, generation, results, str(e))
            return
        hand_over(done=True)

    def _place(self, results: SidebarResults, paths: list[str]) -> None:
        worker = get_current_worker()
        call = self.node.app.call_from_thread
        placed: dict[str, HitPlace] = {}
        last = time.monotonic()
        try:
            for path, place in self.search.place(results, paths, cancelled=lambda: worker.is_cancelled):
                placed[path] = place
                if time.monotonic() - last >= HAND_OVER_SECONDS:
                    call(self._placed, results, placed)
                    placed, last = {}, time.monotonic()
        except SearchCancelled:
            return
        if placed:
            call(self._placed, results, placed)
