"""The main screen: sessions | branch tree | context, wired together.

Attributes go down, messages come up: the screen hands each pane what to show and listens to
what the user did there. It owns the store, the watcher and the open session; it decides
nothing itself. Core decides (core/live/context_change.py and core/session/outline.py for a change of the open
session, core/search/sidebar.py for a search), the panes apply (widgets/), layout is
widgets/panes.py's, and what the user does with a session is app/actions.py's (this screen is
its `ActionHost`). File work runs in worker threads; a worker that fails says so in the status
line instead of taking the app down.

Where things go: a new pane is a widget yielded in `compose` inside `Panes`; a new action is a
flow in app/actions.py, a binding here and a one-line `action_*`. (Over 450 lines: this is the
one place where the store, the watcher, the open session, the panes and the actions meet; each
method only hands something on, and splitting them would scatter one path over files.)
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import subprocess
import time
from collections.abc import Coroutine, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

from textual import events, on, work
from textual.app import ComposeResult, SuspendNotSupported
from textual.screen import Screen
from textual.worker import Worker, WorkerCancelled, WorkerState, get_current_worker

from ..core.common.gcpause import COLLECTIONS, paused_gc
from ..core.common.glyphs import Glyphs
from ..core.common.locations import SessionsRoot
from ..core.common.problems import SessionError
from ..core.common.text import one_line
from ..core.listing.sidebar_rows import SessionRow, SidebarRow
from ..core.listing.store import Listing, SessionStore
from ..core.listing.summary import SessionSummary
from ..core.live.activity import Activity
from ..core.live.context_change import context_change, nothing_to_show
from ..core.live.watch import EventKind, SessionWatcher, StoreBatch, StoreEvent
from ..core.projection.context import project
from ..core.session.session import Session
from ..widgets.branch_tree import BranchTree
from ..widgets.context_view import ContextView
from ..widgets.glyphs import glyphs_of
from ..widgets.key_footer import KeyFooter
from ..widgets.keys import bindings
from ..widgets.panes import Panes
from ..widgets.plain import FitStatic
from ..widgets.sidebar import SessionList, SessionSidebar
from ..widgets.tree_pane import TreePane
from .actions import Actions
from .config import Settings
from .frame_pacing import PacedScreen
from .keymap import first_key
from .marks_flow import MarkActions, load_marks

if TYPE_CHECKING:  # (imported where used: the first screen needs none of these, 45 ms together)
    from ..core.projection.file_knowledge import FileTracker
    from ..core.search.labels import LabelIndex, LabelRow
    from ..core.search.landing import Aim, Landing
    from ..core.search.sidebar import SidebarSearch
    from .search_flow import SearchFlow

T = TypeVar("T")

QUICK_SCAN_BYTES = 4 * 1024 * 1024  # up to this much to read, the first listing is done inline
WATCH_AFTER_SECONDS = 0.5  # the watch starts this long after the first listing
FIRST_SESSION_WAIT = 0.3  # the first frame waits this long at most for the first session
FIRST_ROWS = 60  # rows of the sidebar checked on disk before a first screen from the cache, at least
PANES = ("sidebar", "tree", "context")


class MainScreen(PacedScreen[None]):
    BINDINGS = bindings("main")

    def __init__(
        self,
        settings: Settings,
        root: SessionsRoot,
        *,
        open_path: str | None = None,
        current_cwd: str | None = None,
        cache_dir: str | None = None,
        notices: Sequence[str] = (),
        pi_agent_dir: str | None = None,
    ) -> None:
        super().__init__()
        self.settings = settings
        self.pi_agent_dir = pi_agent_dir  # pi's models.json and settings (None: pi's default folder)
        self.notices = list(notices)  # shown once the sessions are listed (status line and a notice)
        self.root = root
        self.open_path = open_path
        self.current_cwd = current_cwd if current_cwd is not None else os.getcwd()
        self.store = SessionStore(root.path, cache_dir=cache_dir, keep_text=True)
        # Every file change goes through the watcher (it watches once the first listing is up).
        self.watcher = SessionWatcher(self.store, poll=settings.poll)
        self.activity = Activity()
        self._search: SidebarSearch | None = None  # (made when first needed: see `search`)
        self._searching: SearchFlow | None = None
        self._label_index: LabelIndex | None = None
        self.actions = Actions(self)
        self.session: Session | None = None
        self.file_tracker: FileTracker | None = None  # the open session's, kept across entries
        self.follow = False
        self.scanned = False
        self._first_opened: str | None = None  # the session the first screen opened by itself
        self._user_acted = False  # a key pressed or a click since the start
        self.last_context_ms = 0.0

    # ------------------------------------------------------------------ the panes
    def compose(self) -> ComposeResult:
        with Panes(PANES, id="panes"):
            yield SessionSidebar(self.current_cwd, self.activity, id="sidebar")
            yield TreePane(id="tree-pane")
            yield ContextView(id="context", agent_dir=self.pi_agent_dir)
        yield FitStatic("", id="status")
        yield KeyFooter()

    @property
    def search(self) -> SidebarSearch:
        """The sidebar search, made when a search first needs it (its modules were ~10 ms of
        the start); until then there is no index to reset or update."""
        if self._search is None:
            from ..core.search.sidebar import SidebarSearch

            self._search = SidebarSearch(self.store.texts)
        return self._search

    @property
    def searching(self) -> SearchFlow:
        if self._searching is None:
            from .search_flow import SearchFlow

            self._searching = SearchFlow(self, self, self.search)
        return self._searching

    @property
    def label_index(self) -> LabelIndex:
        """Every label of the listed sessions (made when the labels screen first opens)."""
        if self._label_index is None:
            from ..core.search.labels import LabelIndex

            self._label_index = LabelIndex()
        return self._label_index

    @property
    def glyphs(self) -> Glyphs:
        return glyphs_of(self)

    @property
    def panes(self) -> Panes:
        return self.query_one(Panes)

    @property
    def sidebar(self) -> SessionSidebar:
        return self.query_one(SessionSidebar)

    @property
    def tree_pane(self) -> TreePane:
        return self.query_one(TreePane)

    @property
    def branch_tree(self) -> BranchTree:
        return self.query_one(BranchTree)

    @property
    def context_view(self) -> ContextView:
        return self.query_one(ContextView)

    @property
    def active_pane(self) -> str:
        return self.panes.active

    @property
    def context_leaf(self) -> str | None:
        """The entry of the open session whose context is shown (None: none is)."""
        context = self.context_view
        return context.leaf if context.session is not None and context.session is self.session else None

    def on_mount(self) -> None:
        self.sidebar.set_status(f"reading{self.glyphs.ellipsis}")
        self.context_view.clear("")
        self.sidebar.session_list.focus()
        self.notices.extend(filter(None, [load_marks(self.sidebar)]))  # pins and tags, before any row
        # With a usable index cache the listing is a stat per file: do it right here, before
        # the first frame, rather than in a thread that competes with that frame for the GIL.
        # What it makes lives as long as the app: frozen, no collection walks it (the first
        # one after the scan took 35 ms at 30,000 sessions).
        with paused_gc():
            if self._list_from_cache():
                gc.freeze()
                return
            report = self.store.scan(read_limit=QUICK_SCAN_BYTES)
            if report is not None:
                listing = self.store.listing()
                self._scan_done(listing.summaries, listing.skipped, report.cache_problem)
                gc.freeze()
        if report is None:
            self.scan_sessions()

    def _list_from_cache(self) -> bool:
        """The first listing as the index cache has it, if no session was created, deleted or
        renamed since and the sessions it shows first are as the cache says on disk: the first
        frame then waits for no look at the other files (a stat each, 65 ms at 30,000
        sessions). They are checked right after it (`check_listing`); a session that changed
        meanwhile is then corrected, as a live change would be (one that became the newest is
        then opened, if the user has not moved yet: `_listing_checked`). Nothing is listed
        unless the cache is taken: the scan's listing puts the cursor on its own top row."""
        if self.open_path or not self.store.load_cached():
            return False  # (a session to open: its row may be anywhere in the list)
        listing = self.store.listing()
        if not listing.summaries:
            return False
        rows = self.sidebar.rows_for(listing.summaries)
        shown = max(self.app.size.height, FIRST_ROWS)  # (the size may not be known yet)
        if self.store.stale([row.summary.path for row in rows[:shown] if isinstance(row, SessionRow)]):
            return False  # (the caller's scan reads what changed and lists it)
        self._scan_done(listing.summaries, listing.skipped, None, checked=False, rows=rows)
        return True

    def focus_pane(self, pane: str) -> None:
        self.panes.focus_pane(pane)

    def action_next_pane(self) -> None:
        self.panes.next_pane(1)

    def action_previous_pane(self) -> None:
        self.panes.next_pane(-1)

    # ------------------------------------------------------------------ the status line
    def set_status(self, text: str, *, error: bool = False) -> None:
        status = self.query_one("#status", FitStatic)
        status.update(one_line(text, 400, glyphs=self.glyphs))
        status.set_class(error, "-error")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Every worker of this screen that fails (they run with `exit_on_error=False`) says so."""
        if event.state is WorkerState.ERROR:
            error = event.worker.error
            what = event.worker.group or event.worker.name
            self.set_status(f"{what} failed: {error}", error=True)
            self.notify(f"Something went wrong ({what}): {error}", severity="error", timeout=10)

    def run_flow(self, flow: Coroutine[Any, Any, None]) -> None:
        """One of app/actions.py's flows, as a worker (its dialogs need one)."""
        self.run_worker(flow, group="action", exit_on_error=False)

    # ------------------------------------------------------------------ scanning and watching
    @work(thread=True, exclusive=True, group="scan", exit_on_error=False)
    def scan_sessions(self) -> None:
        report = self.store.scan()
        listing = self.store.listing()
        if not get_current_worker().is_cancelled:
            problem = report.cache_problem if report is not None else None
            self.app.call_from_thread(self._scan_done, listing.summaries, listing.skipped, problem)

    @work(thread=True, exclusive=True, group="check", exit_on_error=False)
    def check_listing(self) -> None:
        """Every file compared with the cached listing shown first (see `_list_from_cache`);
        what changed is listed again. The watch starts once this is done: it compares every
        file with what the store holds."""
        listing: Listing | None = None
        problem: str | None = None
        try:
            report = self.store.scan()
            # (listed again also to say that the index could not be saved, as a scan would)
            if report is not None and (report.listing_changed or report.cache_problem):
                listing, problem = self.store.listing(), report.cache_problem
        finally:  # (the watch starts even if the check failed: it is then reported)
            if not get_current_worker().is_cancelled:
                self.app.call_from_thread(self._listing_checked, listing, problem)

    def _listing_checked(self, listing: Listing | None, cache_problem: str | None) -> None:
        if listing is not None:
            current = self.sidebar.session_list.current()
            self._scan_done(listing.summaries, listing.skipped, cache_problem)
            if not self._user_acted and current is not None and current.path == self._first_opened:
                # The user has not moved yet: the first screen opens the newest session, as a
                # full scan's first listing would have (e.g. an old session resumed since).
                self._open_initial()
        self.set_timer(WATCH_AFTER_SECONDS, self.watch_sessions)

    def on_key(self) -> None:
        self._user_acted = True  # (a key, a click, a scroll: the first screen is the user's now)

    def _forward_event(self, event: events.Event) -> None:
        # Every mouse event comes through here on its way to its widget (which may stop it
        # before it would reach the screen: a scroll does). (Textual is pinned: the app hands
        # a screen its input events in `_forward_event`.)
        if isinstance(event, (events.MouseDown, events.MouseScrollDown, events.MouseScrollUp)):
            self._user_acted = True
        super()._forward_event(event)

    @work(thread=True, exclusive=True, group="index", exit_on_error=False)
    def build_search_index(self) -> None:
        """The search index, built once the search line opens (not before: it holds every
        message's text), in a thread while the user types the first letters."""
        listed = self.sidebar.summaries
        self.search.build(list(listed))
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._index_built, listed)

    def _index_built(self, listed: list[SessionSummary]) -> None:
        if self.sidebar.summaries is not listed:
            # The listing changed meanwhile. (Only then: looking at 30,000 unchanged
            # sessions on the event loop paused typing for 200 ms.)
            self.search.update(self.sidebar.summaries)
        # The listing and the index live as long as the app: collections stop walking them
        # (at 30,000 sessions a full collection took 0.2 s, a pause of typing and drawing).
        gc.freeze()

    def _scan_done(
        self,
        summaries: list[SessionSummary],
        skipped: list[tuple[str, str]],
        cache_problem: str | None,
        *,
        checked: bool = True,
        rows: list[SidebarRow] | None = None,
    ) -> None:
        """A listing to show (`checked`: its files were compared with the disk; `rows`: the
        sidebar's rows of it, made already)."""
        if self._search is not None:
            self._search.reset()
        first_scan = not self.scanned
        self.scanned = True
        dot = f" {self.glyphs.dot} "
        self.sidebar.set_status("")
        self.sidebar.set_summaries(summaries, rows=rows)
        if not summaries:
            self._show_empty_state()
        else:
            note = f"{len(summaries)} sessions in {self.root.describe()}"
            if skipped:
                note += f"{dot}{len(skipped)} other file(s) skipped (unreadable or not pi sessions)"
            if cache_problem:
                note += f"{dot}{cache_problem}"
            self.set_status(note)
        if first_scan and self.notices:
            # Once: in the status line, and each in full in a notice (a status line is cut).
            self.set_status(f"{self.glyphs.problem} " + dot.join(self.notices), error=True)
            self.notify("\n".join(self.notices), title="Settings", severity="warning", timeout=15)
        if first_scan:
            self._open_initial()
            # Once the first screen is up: starting the watch imports watchfiles and anyio
            # (30 ms the first screen waited for). Nothing is missed meanwhile: once the OS
            # watch is in place the watcher compares every file with what the scan read.
            if checked:
                self.set_timer(WATCH_AFTER_SECONDS, self.watch_sessions)
            else:
                self.call_after_frame(self.check_listing)
        # The search index is built when the search line opens (or at the first query); a
        # listing read again gets a new one at once if the user has searched.
        if self._search is not None and self._search.wanted:
            self.set_timer(0.1, self.build_search_index)

    def _show_empty_state(self) -> None:
        where = self.root.describe()
        demo = first_key(self.app.key_bindings, "ui.demo")  # type: ignore[attr-defined]
        how = f"Press {demo} to open" if demo else "Run pi-sessions --demo for"
        # Paragraphs: the list wraps them to its width.
        self.sidebar.session_list.placeholder = [
            "No pi sessions here yet.",
            "",
            "Looked in:",
            f"  {self.root.path}",
            f"  ({self.root.source})",
            "",
            f"{how} the bundled demo (a temporary copy), or start pi and come back: new sessions "
            "appear as they are written.",
        ]
        self.sidebar.session_list.refresh()
        self.context_view.clear(f"No pi sessions found in {where}.")
        # What to do first: a narrow status line is cut at its end.
        hint = f"press {demo} for a demo (or run pi-sessions --demo)" if demo else "run pi-sessions --demo"
        self.set_status(f"No sessions here: {hint}. Looked in {where}.")

    def _open_initial(self) -> None:
        if self.open_path:
            path = os.path.abspath(self.open_path)
            self.sidebar.select_path(path)
            self.hold_frames(FIRST_SESSION_WAIT)
            self.open_session(path)
            self.focus_pane("tree")
            return
        session_list = self.sidebar.session_list
        first = session_list.first_selectable()
        if first is not None:
            session_list.move_cursor(first, notify=False)
        current = session_list.current()
        if current is not None and current.path != self._first_opened:
            self._first_opened = current.path
            self.hold_frames(FIRST_SESSION_WAIT)
            self.open_session(current.path)

    @work(exclusive=True, group="watch", exit_on_error=False)
    async def watch_sessions(self) -> None:
        notice_shown = False
        async for batch in self.watcher.events():
            if self.watcher.notice and not notice_shown:
                notice_shown = True
                self.notify(self.watcher.notice, title="Watching", severity="warning", timeout=8)
            self.apply_store_events(batch)

    def apply_store_events(self, batch: StoreBatch, *, ours: bool = False) -> None:
        """New, grown, replaced, renamed and vanished sessions, from one batch of the store's
        events (read in a worker thread; `ours`: a change we made ourselves, which neither
        marks the session live nor is announced)."""
        had_none = not self.sidebar.summaries
        current = self.sidebar.session_list.current()
        select: str | None = None
        now = time.time()
        for event in batch:
            if event.kind in (EventKind.GREW, EventKind.APPEARED) and not ours:
                self.activity.grew(event.path, now)
            if event.kind is EventKind.RENAMED and event.old_path is not None:
                self.activity.moved(event.old_path, event.path)
                if current is not None and current.path == event.old_path:
                    select = event.path  # the sidebar's cursor goes with the file
            if event.kind is EventKind.VANISHED:
                self.activity.forget(event.path)
            if self.session is not None and event.session is self.session:
                self._open_session_changed(event, ours=ours)
        self.sidebar.set_summaries(batch.listing.summaries)
        if select is not None:
            self.sidebar.select_path(select)
        self.sidebar.set_open(self.session.path if self.session is not None else None)
        if self.session is None and batch.listing.summaries and (had_none or ours):
            # The first session of a folder that had none, or the one after ours that went.
            current = self.sidebar.session_list.current()
            if current is not None:
                self.open_session(current.path)
        if self._search is not None:
            self._search.update(batch.listing.summaries)

    def _open_session_changed(self, event: StoreEvent, *, ours: bool = False) -> None:
        """The open session's file changed: core says what that means for each pane (the
        rows in `outline.extend_rows`, the context in `live.context_change`), the panes
        apply it."""
        session = self.session
        if session is None:
            return
        if event.kind is EventKind.VANISHED or event.error:
            why = event.error or "the file is gone"
            self._close_session(f"The open session cannot be shown any more: {why}.\n{event.path}")
            if not ours:
                self.set_status(f"the open session is gone: {why}: {event.path}", error=True)
            return
        if event.kind is EventKind.RENAMED and not ours:
            self.set_status(f"the open session was renamed to {event.path}")
        delta = event.append
        if delta is None or not delta.changed:
            return
        self._hold_collections()
        self.tree_pane.take_delta(delta)
        if delta.reloaded and not ours:
            what = "cut short" if delta.truncated else "rewritten"
            self.set_status(f"the open session was {what} on disk: read again")
        context = self.context_view
        shown = context.projection if context.session is session else None
        change = context_change(
            session,
            delta,
            shown,
            self.context_leaf if shown is not None else None,
            follow=self.follow,
            show_excluded=context.show_excluded,
        )
        context.apply(session, change)

    def _close_session(self, text: str) -> None:
        """Nothing is open any more: every pane says so."""
        if self.session is not None:
            self.watcher.untrack(self.session)
        self.session = None
        self.tree_pane.show_session(None)
        self.context_view.clear(text)
        self.sidebar.set_open(None)

    def action_rescan(self) -> None:
        self.sidebar.set_status(f"reading{self.glyphs.ellipsis}")
        self.scan_sessions()

    async def after_external_change(
        self, path: str, *, select_session: str | None = None, by_us: bool = True
    ) -> None:
        """We wrote, moved or ran something on `path` (or found someone else did): bring the
        store and every pane up to date now (the watcher would, a moment later), the way every
        file change goes."""
        self.apply_store_events(await self.watcher.process([path]), ours=by_us)
        if select_session is not None:
            self.sidebar.select_path(select_session)
            with contextlib.suppress(WorkerCancelled):  # the user opened another one meanwhile
                await self.open_session(select_session).wait()

    # ------------------------------------------------------------------ opening a session
    @on(SessionSidebar.SessionHighlighted)
    def _session_highlighted(self, event: SessionSidebar.SessionHighlighted) -> None:
        path = event.summary.path
        if self.session is None or self.session.path != path:
            self.open_session(path, aim=self._search_aim(path))

    @on(SessionSidebar.SessionChosen)
    def _session_chosen(self, event: SessionSidebar.SessionChosen) -> None:
        path = event.summary.path
        aim = self._search_aim(path)
        if self.session is None or self.session.path != path or aim is not None:
            self.open_session(path, aim=aim)
        self.focus_pane("tree")

    def _search_aim(self, path: str) -> Aim | None:
        """With a search on, the session's hit: opening it lands there."""
        results = self.sidebar.matches
        if results is None or path not in results:
            return None
        from ..core.search.landing import Aim

        return Aim(results.query, results.scope, results.hit(path), results.place(path))

    def open_session(self, path: str, select: str | None = None, aim: Aim | None = None) -> Worker[None]:
        """Read `path` in a worker thread, then show it (a newer open cancels this one); with
        `aim`, land on that hit or label (the session may be open already)."""
        return self.run_worker(
            self._open_session(path, select, aim), group="open", exclusive=True, exit_on_error=False
        )

    async def _open_session(self, path: str, select: str | None, aim: Aim | None) -> None:
        shown = self.session if self.session is not None and self.session.path == path else None

        def read() -> tuple[Session, Landing | None]:
            session = shown if shown is not None and aim is not None else Session.open(path)
            if aim is None:
                return session, None
            from ..core.search.landing import land

            return session, land(session, aim)

        try:
            session, landing = await asyncio.to_thread(read)
        except (SessionError, OSError) as e:
            self._session_opened(path, None, str(e), select)
            return
        if session is not self.session:
            entry = landing.entry_id if landing is not None else None
            self._session_opened(path, session, None, entry or select, notify=entry is None)
        if landing is not None and session is self.session:
            self._landed(landing)

    def _landed(self, landing: Landing) -> None:
        """The tree on the hit (unfolded, the view switched if it hid it), n / N walking every
        hit of the query, the context at the hit; the status line says where it is."""
        self.branch_tree.set_matches(list(landing.walk), select=landing.entry_id)
        place = landing.place
        if place.entry_id is None:
            if place.field:
                self.set_status(f"the hit is in the session's {place.field}")
            return
        from ..core.search.landing import place_words

        where = place_words(place) or "the entry"
        status = f"{place.field.replace('_', ' ') or 'hit'} of {place.entry_id}, {where}"
        ordinal = landing.ordinal()
        if len(landing.walk) > 1:
            at = f"{ordinal} of {len(landing.walk)}" if ordinal is not None else f"{len(landing.walk)}"
            status += f" {self.glyphs.dot} hit {at} in this session: n / N for next / previous"
        self.set_status(status)

    def _session_opened(
        self,
        path: str,
        session: Session | None,
        error: str | None,
        select: str | None,
        *,
        notify: bool = True,
    ) -> None:
        self.release_frames()  # (the first screen waits for its first session: `_open_initial`)
        if self.session is not None:
            self.watcher.untrack(self.session)
        self.session = session
        self.sidebar.set_open(path if session else None)
        if session is None:
            self.tree_pane.show_session(None)
            self.context_view.clear(f"cannot open {path}: {error}")
            self.set_status(f"cannot open {path}: {error}", error=True)
            return
        self.watcher.track(session)
        # The context is shown here, not when the tree's announcement comes back: the frame
        # drawn in between would show the tree alone (for a long session, a frame's work).
        self.tree_pane.show_session(session, select=select, notify=False)
        shown = self.branch_tree.current_id()
        if notify and shown is not None:
            self._highlighted(shown)
        empty = nothing_to_show(session)
        if empty is not None:
            self.context_view.clear(empty)
        if session.problems:
            first = session.problems[0]
            self.set_status(
                f"{self.glyphs.problem} {len(session.problems)} problem(s) in this file; first: {first}",
                error=True,
            )

    # ------------------------------------------------------------------ the context pane
    @on(BranchTree.EntryHighlighted)
    def _entry_highlighted(self, event: BranchTree.EntryHighlighted) -> None:
        self._highlighted(event.entry_id)

    def _highlighted(self, entry_id: str) -> None:
        if self.follow and self.session is not None and entry_id != self.session.default_leaf:
            self._set_follow(False)
        self.show_context(entry_id)

    @on(BranchTree.EntryChosen)
    def _entry_chosen(self, event: BranchTree.EntryChosen) -> None:
        self.show_context(event.entry_id)
        self.focus_pane("context")

    def show_context(self, entry_id: str, *, keep_scroll: bool = False) -> None:
        """The context at `entry_id`, chosen by the user (a live change goes through
        `_open_session_changed`)."""
        session = self.session
        if session is None or entry_id not in session.by_id:
            return
        started = time.perf_counter()
        self._hold_collections()
        COLLECTIONS.keep(self.context_view.projection)  # freed once the frame is out
        self.context_view.show(session, project(session, entry_id), keep_scroll=keep_scroll)
        self.last_context_ms = (time.perf_counter() - started) * 1000

    def _hold_collections(self) -> None:
        """No cyclic collection until the frame showing this change is out (the app releases
        them when it hands a frame over: core/common/gcpause.py), or a second has passed."""
        if not COLLECTIONS.held:
            COLLECTIONS.hold()
            self.set_timer(1.0, COLLECTIONS.release)

    def action_toggle_excluded(self) -> None:
        self.context_view.toggle_excluded()

    def action_toggle_follow(self) -> None:
        self._set_follow(not self.follow)
        if self.follow and self.session is not None and self.session.default_leaf:
            self.branch_tree.select(self.session.default_leaf)
        self.notify("following the newest entry" if self.follow else "follow off", timeout=2)

    def _set_follow(self, follow: bool) -> None:
        self.follow = follow
        self.tree_pane.set_follow(follow)

    # ------------------------------------------------------------------ search
    @on(SessionSidebar.SearchOpened)
    def _search_opened(self) -> None:
        if self.search.index is None:
            self.build_search_index()

    @on(SessionSidebar.SearchChanged)
    def _search_sessions(self, event: SessionSidebar.SearchChanged) -> None:
        self.searching.start(event.query, event.scope)

    @on(SessionList.PlacesWanted)
    def _places_wanted(self, event: SessionList.PlacesWanted) -> None:
        self.searching.place(event.results, event.paths)

    @on(TreePane.SearchDone)
    def _tree_matches(self, event: TreePane.SearchDone) -> None:
        found, query = event.matches, event.query
        if event.error:
            self.set_status(event.error, error=True)
            return
        self.set_status(
            f"{len(found)} entries match {query!r}: n / N for next / previous"
            if found
            else f"nothing matches {query!r}"
        )

    def action_labels(self) -> None:
        from .labels_screen import LabelsScreen

        screen = LabelsScreen(self.sidebar.shown_summaries() or self.sidebar.summaries, self.label_index)
        self.app.push_screen(screen, self._label_chosen)

    def _label_chosen(self, row: LabelRow | None) -> None:
        """Land on the labelled entry; n / N walk that session's labels."""
        if row is None:
            return
        self.sidebar.select_path(row.path)
        from ..core.search.in_session import HitPlace
        from ..core.search.landing import Aim

        place = HitPlace(row.entry_id, "label", row.on_active_path, row.branch_from)
        labelled = tuple(r.entry_id for r in self.label_index.labels_of(row.path))
        self.open_session(row.path, aim=Aim(None, "deep", place=place, walk=labelled or (row.entry_id,)))
        self.focus_pane("tree")

    def action_search(self) -> None:
        if self.active_pane == "sidebar":
            self.sidebar.action_search()
        else:
            self.tree_pane.open_search()

    def action_escape(self) -> None:
        if self.tree_pane.close_search():
            return
        if self.active_pane == "context":
            self.focus_pane("tree")
        elif self.active_pane == "tree":
            self.focus_pane("sidebar")

    # ------------------------------------------------------------------ what actions need (ActionHost)
    def selected_entry(self) -> str | None:
        return self.branch_tree.current_id()

    def selected_summary(self) -> SessionSummary | None:
        return self.sidebar.session_list.current()

    def is_live(self, path: str) -> bool:
        return self.activity.is_live(path, time.time())

    async def push_screen_wait(self, screen: Screen[T]) -> T:
        return cast(T, await self.app.push_screen_wait(screen))

    def run_in_terminal(self, argv: list[str], cwd: str) -> int:
        try:
            with self.app.suspend():
                return subprocess.run(argv, cwd=cwd).returncode
        except SuspendNotSupported:
            # Headless (tests, some web terminals): run it without handing over the terminal.
            quiet = subprocess.DEVNULL
            return subprocess.run(argv, cwd=cwd, stdin=quiet, stdout=quiet, stderr=quiet).returncode

    def exit_app(self) -> None:
        self.app.exit()

    def osc52_from_thread(self, text: str) -> None:
        self.app.call_from_thread(self.app.copy_to_clipboard, text)

    # ------------------------------------------------------------------ actions
    def action_inspect(self) -> None:
        session = self.session
        entry_id = self.branch_tree.current_id()
        if self.active_pane == "context":
            entry_id = self.context_view.body.current_entry() or entry_id
        if session is None or entry_id is None:
            return
        record = session.by_id[entry_id]
        try:
            value = session.entry_dict(record)
        except (SessionError, OSError) as e:
            self.set_status(f"cannot read line {record.line}: {e}", error=True)
            return
        title = f"{entry_id} {self.glyphs.dot} line {record.line} of {session.path}"
        from .screens import RawJsonScreen

        self.app.push_screen(RawJsonScreen(title, value))

    @on(BranchTree.MarkChanged)
    def _mark_changed(self, event: BranchTree.MarkChanged) -> None:
        if event.entry_id is None:
            self.set_status("mark cleared")
            return
        compare = first_key(self.app.key_bindings, "tree.compare")  # type: ignore[attr-defined]
        how = f"press {compare}" if compare else "use the palette's Compare"
        self.set_status(f"marked {event.entry_id}: move to another entry and {how} to compare the two")

    def action_compare(self) -> None:
        session, marked, selected = self.session, self.branch_tree.marked, self.selected_entry()
        if session is None or selected is None:
            return
        if marked is None or marked not in session.by_id:
            mark = first_key(self.app.key_bindings, "tree.mark")  # type: ignore[attr-defined]
            how = f"press {mark} on an entry" if mark else "mark an entry (the palette)"
            self.set_status(f"nothing is marked to compare: {how}, move to another and compare")
            return
        if marked == selected:
            self.set_status("the marked entry is the selected one: move to another entry to compare")
            return
        from .compare_screen import CompareScreen

        screen = CompareScreen(session, marked, selected)
        self.app.push_screen(screen, lambda to: self.go_to_entry(session, to))

    def action_files(self) -> None:
        session, entry = self.session, self.selected_entry()
        if session is None or entry is None:
            return
        from ..core.projection.file_knowledge import FileTracker
        from .files_screen import FilesScreen

        if self.file_tracker is None or self.file_tracker.session is not session:
            self.file_tracker = FileTracker(session)
        shown = self.context_view.projection if self.context_leaf == entry else None
        screen = FilesScreen(session, entry, self.file_tracker, shown)
        self.app.push_screen(screen, lambda to: self.go_to_entry(session, to))

    def go_to_entry(self, session: Session, entry_id: str | None) -> None:
        """A view chose an entry of `session`: the tree's cursor goes there, the context follows."""
        if entry_id is None or session is not self.session or entry_id not in session.by_id:
            return
        self.focus_pane("tree")
        self.branch_tree.select(entry_id)

    def action_resume(self) -> None:
        self.run_flow(self.actions.resume())

    def action_fork(self) -> None:
        self.run_flow(self.actions.fork())

    def action_copy(self) -> None:
        self.run_flow(self.actions.copy())

    def action_copy_entry_text(self) -> None:
        self.run_flow(self.actions.copy_entry_text())

    def action_clone(self) -> None:
        self.run_flow(self.actions.clone())

    def action_rename(self) -> None:
        self.run_flow(self.actions.rename())

    def action_label(self) -> None:
        self.run_flow(self.actions.label())

    def action_pin(self) -> None:
        self.run_flow(MarkActions(self).pin())

    def action_archive(self) -> None:
        self.run_flow(MarkActions(self).archive())

    def action_tag(self) -> None:
        self.run_flow(MarkActions(self).tag())

    def action_delete(self) -> None:
        self.run_flow(self.actions.delete())

    def action_export(self) -> None:
        self.run_flow(self.actions.export())

    def action_export_context(self) -> None:
        self.run_flow(self.actions.export_into("context"))

    def action_export_tree(self) -> None:
        self.run_flow(self.actions.export_into("tree"))

    def action_compaction_audit(self) -> None:
        self.run_flow(self.actions.compaction_audit())

    def action_size_doctor(self) -> None:
        self.run_flow(self.actions.size_doctor())

    def action_demo(self) -> None:
        if self.scanned and not self.store.entries:
            open_demo = getattr(self.app, "open_demo", None)
            if callable(open_demo):
                open_demo()
