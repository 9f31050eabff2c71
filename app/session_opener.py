"""Opening a session on the main screen: read in a worker thread (a newer open cancels an older
one), landed on a search hit or a label if asked, then handed to the tree and the context pane;
the context at an entry shown with cyclic collections held until its frame is out; and
closing it when its file is gone.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Protocol

from textual.worker import Worker

from ..core.common.gcpause import COLLECTIONS
from ..core.common.glyphs import Glyphs
from ..core.common.problems import SessionError
from ..core.common.text import redacting
from ..core.live.context_change import nothing_to_show
from ..core.live.watch import SessionWatcher
from ..core.projection.context import project
from ..core.session.session import Session
from ..widgets.branch_tree import BranchTree
from ..widgets.context_view import ContextView
from ..widgets.sidebar import SessionSidebar
from ..widgets.tree_pane import TreePane
from .frame_pacing import PacedScreen

if TYPE_CHECKING:  # (imported where used: the first screen needs none of these)
    from ..core.search.landing import Aim, Landing

COLLECTIONS_HELD_SECONDS = 1.0  # collections held for a frame are released after this at the latest


class OpenerHost(Protocol):
    """What opening a session needs from the screen it is shown on."""

    session: Session | None  # the open session (set here only)

    @property
    def watcher(self) -> SessionWatcher: ...
    @property
    def glyphs(self) -> Glyphs: ...
    @property
    def sidebar(self) -> SessionSidebar: ...
    @property
    def tree_pane(self) -> TreePane: ...
    @property
    def branch_tree(self) -> BranchTree: ...
    @property
    def context_view(self) -> ContextView: ...
    def set_status(self, text: str, *, error: bool = False, replacing: str | None = None) -> None:
        """The status line says `text` (`replacing`: only if it still says that)."""

    def highlighted(self, entry_id: str) -> None:
        """The tree's cursor is on `entry_id` (the context follows)."""


class SessionOpener:
    """Opens, shows and closes the session of one screen (`node` runs the workers)."""

    def __init__(self, node: PacedScreen[None], host: OpenerHost) -> None:
        self.node = node
        self.host = host
        self.last_context_ms = 0.0  # how long the last context shown took (the benchmarks read it)
        self.hit_status: str | None = None  # what the status line says of a hit in the open session

    def open(self, path: str, select: str | None = None, aim: Aim | None = None) -> Worker[None]:
        """Read `path` in a worker thread, then show it (a newer open cancels this one); with
        `aim`, land on that hit or label (the session may be open already)."""
        return self.node.run_worker(
            self._open(path, select, aim), group="open", exclusive=True, exit_on_error=False
        )

    async def _open(self, path: str, select: str | None, aim: Aim | None) -> None:
        host = self.host
        shown = host.session if host.session is not None and host.session.path == path else None

        def read() -> tuple[Session, Landing | None]:
            if redacting():  # (the page's redaction: this file's secrets, wherever quoted)
                from .redaction import prime_with_file

                prime_with_file(path)
            session = shown if shown is not None and aim is not None else Session.open(path)
            if aim is None:
                return session, None
            from ..core.search.landing import land

            return session, land(session, aim)

        try:
            session, landing = await asyncio.to_thread(read)
        except (SessionError, OSError) as e:
            self.opened(path, None, str(e), select)
            return
        if session is not host.session:
            entry = landing.entry_id if landing is not None else None
            self.opened(path, session, None, entry or select, notify=entry is None)
        if landing is not None and session is host.session:
            self._landed(landing)

    def _landed(self, landing: Landing) -> None:
        """The tree on the hit (unfolded, the view switched if it hid it), n / N walking every
        hit of the query, the context at the hit; the status line says where it is."""
        host = self.host
        host.branch_tree.set_matches(list(landing.walk), select=landing.entry_id)
        place = landing.place
        if place.entry_id is None:
            if place.field:
                self.hit_status = f"the hit is in the session's {place.field}"
                host.set_status(self.hit_status)
            return
        from ..core.search.landing import place_words

        where = place_words(place) or "the entry"
        status = f"{place.field.replace('_', ' ') or 'hit'} of {place.entry_id}, {where}"
        ordinal = landing.ordinal()
        if len(landing.walk) > 1:
            at = f"{ordinal} of {len(landing.walk)}" if ordinal is not None else f"{len(landing.walk)}"
            status += f" {host.glyphs.dot} hit {at} in this session: n / N for next / previous"
        host.set_status(status)
        self.hit_status = status

    def opened(
        self,
        path: str,
        session: Session | None,
        error: str | None,
        select: str | None,
        *,
        notify: bool = True,
    ) -> None:
        """`path` was read (`session`) or could not be (`error`): every pane shows it."""
        host = self.host
        self.node.release_frames()  # (the first screen waits for its first session)
        if self.hit_status is not None:  # (about the session shown until now)
            host.set_status("", replacing=self.hit_status)
            self.hit_status = None
        if host.session is not None:
            host.watcher.untrack(host.session)
        host.session = session
        host.sidebar.set_open(path if session else None)
        if session is None:
            host.tree_pane.show_session(None)
            host.context_view.clear(f"cannot open {path}: {error}")
            host.set_status(f"cannot open {path}: {error}", error=True)
            return
        host.watcher.track(session)
        # The context is shown here, not when the tree's announcement comes back: the frame
        # drawn in between would show the tree alone (for a long session, a frame's work).
        host.tree_pane.show_session(session, select=select, notify=False)
        shown = host.branch_tree.current_id()
        if notify and shown is not None:
            host.highlighted(shown)
        empty = nothing_to_show(session)
        if empty is not None:
            host.context_view.clear(empty)
        if session.problems:
            first = session.problems[0]
            host.set_status(
                f"{host.glyphs.problem} {len(session.problems)} problem(s) in this file; first: {first}",
                error=True,
            )

    def close(self, text: str) -> None:
        """Nothing is open any more: every pane says so (`text` in the context pane)."""
        host = self.host
        if host.session is not None:
            host.watcher.untrack(host.session)
        host.session = None
        host.tree_pane.show_session(None)
        host.context_view.clear(text)
        host.sidebar.set_open(None)

    # ------------------------------------------------------------------ the context pane
    def show_context(self, entry_id: str, *, keep_scroll: bool = False) -> None:
        """The context at `entry_id`, chosen by the user (a live change goes through
        app/scan_watch.py)."""
        session = self.host.session
        if session is None or entry_id not in session.by_id:
            return
        started = time.perf_counter()
        self.hold_collections()
        context = self.host.context_view
        COLLECTIONS.keep(context.projection)  # freed once the frame is out
        context.show(session, project(session, entry_id), keep_scroll=keep_scroll)
        self.last_context_ms = (time.perf_counter() - started) * 1000

    def hold_collections(self) -> None:
        """No cyclic collection until the frame showing this change is out (the app releases
        them when it hands a frame over: core/common/gcpause.py), or a second has passed."""
        if not COLLECTIONS.held:
            COLLECTIONS.hold()
            self.node.set_timer(COLLECTIONS_HELD_SECONDS, COLLECTIONS.release)
