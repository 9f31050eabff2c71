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
from functools import partial
from typing import Protocol

from textual.dom import DOMNode
from textual.worker import get_current_worker

from ..core.deep_search import DeepHit
from ..core.groups import SidebarRow, filter_rows
from ..core.listing import SessionSummary
from ..core.matching import PatternTooSlow, SearchCancelled
from ..core.session_search import HitPlace, Scope
from ..core.sidebar_search import DeepProgress, SidebarResults, SidebarSearch
from ..widgets.sidebar import SessionSidebar

HAND_OVER_SECONDS = 0.1  # a deep search's hits (and places) reach the loop about this often


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
        rows = sidebar.full_rows
        summaries = sidebar.shown_summaries() if scope == "deep" else sidebar.summaries
        run = partial(self._run, self.generation, text, scope, summaries, rows)
        self.node.run_worker(run, group="search", exclusive=True, thread=True, exit_on_error=False)

    def place(self, results: SidebarResults, paths: list[str]) -> None:
        """Find where the hits of `paths` sit (the hit lines in view asked)."""
        run = partial(self._place, results, paths)
        self.node.run_worker(run, group="place", exclusive=True, thread=True, exit_on_error=False)

    def _placed(self, results: SidebarResults, places: dict[str, HitPlace]) -> None:
        self.host.sidebar.show_places(results, places)

    def _current(self, generation: int) -> bool:
        return generation == self.generation

    def _answer(
        self,
        generation: int,
        results: SidebarResults,
        rows: list[SidebarRow] | None,
        based_on: list[SidebarRow],
    ) -> None:
        if not self._current(generation):
            return  # typed on since
        if results.error is not None:
            self.host.set_status(results.error, error=True)
        self.host.sidebar.show_matches(results, rows, based_on)

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
        rows: list[SidebarRow],
    ) -> None:
        worker = get_current_worker()

        def cancelled() -> bool:
            return worker.is_cancelled or not self._current(generation)

        call = self.node.app.call_from_thread
        try:
            results = self.search.search(text, summaries, scope, cancelled=cancelled)
        except SearchCancelled:
            return
        if scope == "default" or results.error is not None:
            filtered = filter_rows(rows, results.paths) if results.error is None else None
            if not cancelled():
                call(self._answer, generation, results, filtered, rows)
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

        try:
            for hit in self.search.deep_hits(results, summaries, read, cancelled=cancelled):
                found.append(hit)
                if time.monotonic() - last >= HAND_OVER_SECONDS:
                    hand_over()
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
