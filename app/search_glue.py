"""The main screen's searches, wired: the sidebar search made when first needed, its index built
in a worker thread when the search line opens and kept current with the listing, the queries
handed to app/search_flow.py, a hit turned into where opening its session lands, and the tree
search's answer said in the status line.

(Apart from app/search_flow.py so the first screen imports none of the search: its modules
were a good part of a start.)
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from textual.dom import DOMNode
from textual.worker import get_current_worker

from ..core.listing.first_screen import freeze_long_lived
from ..core.listing.store import SessionStore
from ..core.listing.summary import SessionSummary
from ..widgets.sidebar import SessionSidebar

if TYPE_CHECKING:  # (imported where used: the first screen needs none of these)
    from ..core.search.in_session import Scope
    from ..core.search.labels import LabelIndex
    from ..core.search.landing import Aim
    from ..core.search.sidebar import SidebarResults, SidebarSearch
    from ..core.search.text_index import TextIndex
    from .search_flow import SearchFlow

SHOW_PROGRESS_FROM = 200  # writing this many texts to the index says how far it got
INDEX_AGAIN_SECONDS = 0.1  # a listing read again gets a new index this soon, if the user searched


class GlueHost(Protocol):
    """What the searches need from the screen they run on."""

    @property
    def store(self) -> SessionStore: ...
    @property
    def sidebar(self) -> SessionSidebar: ...
    def set_status(self, text: str, *, error: bool = False) -> None: ...


class SearchGlue:
    """The searches of one screen (`node` runs their workers)."""

    def __init__(self, node: DOMNode, host: GlueHost) -> None:
        self.node = node
        self.host = host
        self._search: SidebarSearch | None = None
        self._flow: SearchFlow | None = None
        self._label_index: LabelIndex | None = None
        self._texts: TextIndex | None = None
        self._opening = threading.Lock()  # (opened by the first worker that needs it)

    @property
    def search(self) -> SidebarSearch:
        """The sidebar search, made when a search first needs it; until then there is no index
        to reset or update."""
        if self._search is None:
            from ..core.search.sidebar import SidebarSearch

            self._search = SidebarSearch(self.host.store.texts, open_texts=self._text_index)
        return self._search

    @property
    def flow(self) -> SearchFlow:
        if self._flow is None:
            from .search_flow import SearchFlow

            self._flow = SearchFlow(self.node, self.host, self.search)
        return self._flow

    @property
    def label_index(self) -> LabelIndex:
        """Every label of the listed sessions (made when the labels screen first opens)."""
        if self._label_index is None:
            from ..core.search.labels import LabelIndex

            self._label_index = LabelIndex()
        return self._label_index

    # ------------------------------------------------------------------ the index and the listing
    def reset(self) -> None:
        """A new listing: the index is made again."""
        if self._search is not None:
            self._search.reset()

    def listing_changed(self) -> None:
        """The search index is built when the search line opens (or at the first query); a
        listing read again gets a new one at once if the user has searched."""
        if self._search is not None and self._search.wanted:
            self.node.set_timer(INDEX_AGAIN_SECONDS, self.build_index)

    def update(self, summaries: Sequence[SessionSummary]) -> None:
        if self._search is not None:
            self._search.update(summaries)

    def opened(self) -> None:
        """The search line opened: its index is built while the user types the first letters."""
        if self.search.index is None:
            self.build_index()

    def build_index(self) -> None:
        self.node.run_worker(
            self._build_index, "build_search_index", "index", exclusive=True, thread=True, exit_on_error=False
        )

    def _build_index(self) -> None:
        """The search index, in a worker thread: the texts the SQLite index holds as listed
        stay there; the others are held in memory, and then written to the index (the first
        time, every session: minutes at 30,000, with a progress line) so that the next index
        holds none of them."""
        worker = get_current_worker()
        listed = self.host.sidebar.summaries
        search = self.search
        search.build(list(listed))  # (the first build opens the index's texts)
        text_index = search.text_index
        if worker.is_cancelled:
            return
        call = self.node.app.call_from_thread
        call(self._index_built, listed)
        if text_index is None or not text_index.stale(listed):
            return
        last = 0.0

        def progress(done: int, total: int) -> None:
            nonlocal last
            if total >= SHOW_PROGRESS_FROM and time.monotonic() - last >= 0.5:
                last = time.monotonic()
                call(self.host.set_status, f"search index: {done:,} of {total:,} sessions written")

        written = text_index.sync(
            listed, self.host.store.texts, cancelled=lambda: worker.is_cancelled, progress=progress
        )
        if written and not worker.is_cancelled:
            # The texts written leave memory: their sessions now match from the index. (Here,
            # not on the loop: 30,000 sessions looked at again would pause typing.)
            search.update(list(self.host.sidebar.summaries))
            if written >= SHOW_PROGRESS_FROM:
                call(self.host.set_status, f"search index: {written:,} sessions written")

    def _text_index(self) -> TextIndex | None:
        """The search texts of the SQLite index (opened once, in a worker; None without a
        cache, or where the file cannot be used: the texts are then held in memory)."""
        with self._opening:
            return self._open_text_index()

    def _open_text_index(self) -> TextIndex | None:
        if self._texts is None:
            store = self.host.store
            if not store.use_cache:
                return None
            from ..core.search.text_index import open_text_index

            texts, notice = open_text_index(store.root, store.cache_dir)
            if notice:
                self.node.app.call_from_thread(self.host.set_status, notice)
            if texts is None:
                return None
            self._texts = texts
        return self._texts

    def _index_built(self, listed: list[SessionSummary]) -> None:
        summaries = self.host.sidebar.summaries
        if summaries is not listed:
            # The listing changed meanwhile. (Only then: looking at every unchanged session
            # on the event loop paused typing.)
            self.search.update(summaries)
        freeze_long_lived()  # (the listing and the index live as long as the app)

    # ------------------------------------------------------------------ queries and hits
    def start(self, query: str, scope: Scope) -> None:
        self.flow.start(query, scope)

    def place(self, results: SidebarResults, paths: list[str]) -> None:
        self.flow.place(results, paths)

    def aim(self, path: str) -> Aim | None:
        """With a search on, the session's hit: opening it lands there."""
        results = self.host.sidebar.matches
        if results is None or path not in results:
            return None
        from ..core.search.landing import Aim

        return Aim(results.query, results.scope, results.hit(path), results.place(path))

    def tree_search_done(
        self, found: Sequence[str], query: str, error: str | None, *, cut: bool = False
    ) -> None:
        """The tree's search answered: the status line says what it found (and that a long
        query was cut to what is matched)."""
        from ..core.search.query import QUERY_CUT_NOTE  # (loaded by the search already)

        note = f" ({QUERY_CUT_NOTE})" if cut else ""
        if error:
            self.host.set_status(error + note, error=True)
            return
        self.host.set_status(
            f"{len(found)} entries match {query!r}{note}: n / N for next / previous"
            if found
            else f"nothing matches {query!r}{note}"
        )
