"""The main screen's listing, kept current: the first listing (as core/listing/first_screen.py
decides), the full scan and the check of a cached listing in worker threads, the watch, and
every batch of file changes taken in (the open session's as core/live/ decides for each pane).

Every file change goes through the watcher (core/live/watch.py): the watch's, a rescan's and our
own writes' (`after_external_change`). The panes only apply what this hands them.
"""

from __future__ import annotations

import contextlib
import os
import time
from typing import Protocol

from textual.worker import WorkerCancelled, get_current_worker

from ..core.common.glyphs import Glyphs
from ..core.common.locations import SessionsRoot
from ..core.common.text import counted
from ..core.listing.first_screen import (
    FIRST_SESSION_WAIT,
    WATCH_AFTER_SECONDS,
    FirstListing,
    FirstScreen,
    Then,
    first_listing,
)
from ..core.listing.sidebar_rows import SidebarRow
from ..core.listing.store import Listing, SessionStore
from ..core.listing.subagents import Subagents
from ..core.listing.summary import SessionSummary
from ..core.live.activity import Activity
from ..core.live.context_change import context_change
from ..core.live.tree_change import tree_change
from ..core.live.watch import EventKind, SessionWatcher, StoreBatch, StoreEvent
from ..core.session.session import Session
from ..widgets.branch_tree import BranchTree
from ..widgets.context_view import ContextView
from ..widgets.sidebar import SessionSidebar
from ..widgets.tree_pane import TreePane
from .frame_pacing import PacedScreen
from .keymap import first_key
from .search_glue import SearchGlue
from .session_opener import SessionOpener


class ScanHost(Protocol):
    """What the listing needs from the screen it keeps current."""

    @property
    def store(self) -> SessionStore: ...
    @property
    def watcher(self) -> SessionWatcher: ...
    @property
    def activity(self) -> Activity: ...
    @property
    def root(self) -> SessionsRoot: ...
    @property
    def glyphs(self) -> Glyphs: ...
    @property
    def notices(self) -> list[str]: ...
    @property
    def first_screen(self) -> FirstScreen: ...
    @property
    def follow(self) -> bool: ...
    @property
    def session(self) -> Session | None: ...
    @property
    def context_leaf(self) -> str | None: ...
    @property
    def sidebar(self) -> SessionSidebar: ...
    @property
    def tree_pane(self) -> TreePane: ...
    @property
    def branch_tree(self) -> BranchTree: ...
    @property
    def context_view(self) -> ContextView: ...
    @property
    def opener(self) -> SessionOpener: ...
    @property
    def searches(self) -> SearchGlue: ...
    def set_status(self, text: str, *, error: bool = False) -> None: ...
    def focus_pane(self, pane: str) -> None: ...


class ScanWatch:
    """Lists the sessions on `node` (the screen whose workers and timers these are) and keeps
    the listing and the open session current."""

    def __init__(self, node: PacedScreen[None], host: ScanHost) -> None:
        self.node = node
        self.host = host
        self.scanned = False  # the first listing is shown

    # ------------------------------------------------------------------ the first listing
    def start(self) -> None:
        """Before the first frame: the first listing as core decides it."""
        host = self.host
        first = first_listing(
            host.store,
            open_path=host.first_screen.open_path,
            rows_for=host.sidebar.rows_for,
            shown=self.node.app.size.height,  # (it may not be known yet: FIRST_ROWS are checked at least)
            show=self._show_first,
        )
        if first.then is Then.SCAN:
            self.scan()

    def _show_first(self, first: FirstListing) -> None:
        if first.listing is not None:
            listing, checked = first.listing, first.then is Then.WATCH
            problem = first.cache_problem
            self.scan_done(listing.summaries, listing.skipped, problem, checked=checked, rows=first.rows)

    def scan(self) -> None:
        """Every file read again (what changed), in a worker thread; then listed."""
        self.node.run_worker(
            self._scan, "scan_sessions", "scan", exclusive=True, thread=True, exit_on_error=False
        )

    def _scan(self) -> None:
        store = self.host.store
        report = store.scan()
        listing = store.listing()
        if not get_current_worker().is_cancelled:
            problem = report.cache_problem if report is not None else None
            self.node.app.call_from_thread(self.scan_done, listing.summaries, listing.skipped, problem)

    def _check(self) -> None:
        """Every file compared with the cached listing shown first; what changed is listed
        again. The watch starts once this is done: it compares every file with the store."""
        listing: Listing | None = None
        problem: str | None = None
        try:
            store = self.host.store
            report = store.scan()
            # (listed again also to say that the index could not be saved, as a scan would)
            if report is not None and (report.listing_changed or report.cache_problem):
                listing, problem = store.listing(), report.cache_problem
        finally:  # (the watch starts even if the check failed: it is then reported)
            if not get_current_worker().is_cancelled:
                self.node.app.call_from_thread(self._listing_checked, listing, problem)

    def check(self) -> None:
        self.node.run_worker(
            self._check, "check_listing", "check", exclusive=True, thread=True, exit_on_error=False
        )

    def _listing_checked(self, listing: Listing | None, cache_problem: str | None) -> None:
        host = self.host
        if listing is not None:
            current = host.sidebar.session_list.current()
            self.scan_done(listing.summaries, listing.skipped, cache_problem)
            if host.first_screen.reopen_after_check(current.path if current is not None else None):
                self.open_initial()
        self.node.set_timer(WATCH_AFTER_SECONDS, self.watch)

    def scan_done(
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
        host, node = self.host, self.node
        host.searches.reset()
        first_scan = not self.scanned
        self.scanned = True
        dot = f" {host.glyphs.dot} "
        host.sidebar.set_status("")
        host.sidebar.set_summaries(summaries, rows=rows)
        if not summaries:
            self._show_empty_state()
        else:
            note = f"{counted(len(summaries), 'session')} in {host.root.describe()}"
            if skipped:
                note += f"{dot}{len(skipped)} other file(s) skipped (unreadable or not pi sessions)"
            if cache_problem:
                note += f"{dot}{cache_problem}"
            host.set_status(note)
        if first_scan and host.notices:
            # Once: in the status line, and each in full in a notice (a status line is cut).
            host.set_status(f"{host.glyphs.problem} " + dot.join(host.notices), error=True)
            node.notify("\n".join(host.notices), title="Settings", severity="warning", timeout=15)
        if first_scan:
            self.open_initial()
            # Once the first screen is up: starting the watch imports watchfiles and anyio
            # (the first screen would wait for them). Nothing is missed meanwhile: once the OS
            # watch is in place the watcher compares every file with what the scan read.
            if checked:
                node.set_timer(WATCH_AFTER_SECONDS, self.watch)
            else:
                node.call_after_frame(self.check)
        host.searches.listing_changed()
        self.find_subagents(summaries)

    def find_subagents(self, summaries: list[SessionSummary]) -> None:
        """The subagent sessions of the listing (core/listing/subagents.py) and the sessions of
        the extra roots (config `extra_roots`), in a worker thread (the parents' files are read
        for their spawning entries); then folded and labelled in the sidebar."""
        self.node.run_worker(
            lambda: self._find_subagents(summaries),
            "find_subagents",
            "subagents",
            exclusive=True,
            thread=True,
            exit_on_error=False,
        )

    def _find_subagents(self, summaries: list[SessionSummary]) -> None:
        from ..core.listing.store import list_sessions
        from ..core.listing.subagents import find
        from .config import extra_roots

        settings = getattr(self.node.app, "settings", None)
        cache = self.host.store.cache_dir
        roots: list[tuple[str, list[SessionSummary]]] = []
        for path, label in extra_roots(settings) if settings is not None else []:
            if os.path.normpath(path) != os.path.normpath(self.host.root.path):
                listed = list_sessions(path, cache_dir=str(cache) if cache is not None else None).summaries
                roots.append((label, listed))
        everyone = summaries + [s for _, listed in roots for s in listed]
        found = find(self.host.root.path, everyone)
        for path, _ in extra_roots(settings) if settings is not None else []:
            more = find(path, everyone)
            found.children.update(more.children)
            found.extra.extend(more.extra)
        if not get_current_worker().is_cancelled:
            self.node.app.call_from_thread(self._subagents_found, found, roots)

    def _subagents_found(self, found: Subagents, roots: list[tuple[str, list[SessionSummary]]]) -> None:
        self.host.sidebar.set_extra_roots(roots)
        self.host.sidebar.set_subagents(found)
        self.host.branch_tree.spawn_marks.set(found)
        self.host.branch_tree.refresh()
        self.host.tree_pane.update_title()

    def _show_empty_state(self) -> None:
        host = self.host
        where = host.root.describe()
        demo = first_key(self.node.app.key_bindings, "ui.demo")  # type: ignore[attr-defined]
        how = f"Press {demo} to open" if demo else "Run pi-sessions --demo for"
        # Paragraphs: the list wraps them to its width.
        host.sidebar.session_list.placeholder = [
            "No pi sessions here yet.",
            "",
            "Looked in:",
            f"  {host.root.path}",
            f"  ({host.root.source})",
            "",
            f"{how} the bundled demo (a temporary copy), or start pi and come back: new sessions "
            "appear as they are written.",
        ]
        host.sidebar.session_list.refresh()
        host.context_view.clear(f"No pi sessions found in {where}.")
        # What to do first: a narrow status line is cut at its end.
        hint = f"press {demo} for a demo (or run pi-sessions --demo)" if demo else "run pi-sessions --demo"
        host.set_status(f"No sessions here: {hint}. Looked in {where}.")

    def open_initial(self) -> None:
        """The session the first screen opens by itself (core/listing/first_screen.py)."""
        host = self.host
        path = host.first_screen.open_path
        if path is not None:
            host.sidebar.select_path(path)
            self.node.hold_frames(FIRST_SESSION_WAIT)
            host.opener.open(path)
            host.focus_pane("tree")
            return
        session_list = host.sidebar.session_list
        first = session_list.first_selectable()
        if first is not None:
            session_list.move_cursor(first, notify=False)
        current = session_list.current()
        path = host.first_screen.to_open(current.path if current is not None else None)
        if path is not None:
            self.node.hold_frames(FIRST_SESSION_WAIT)
            host.opener.open(path)

    # ------------------------------------------------------------------ the watch
    def watch(self) -> None:
        self.node.run_worker(self._watch(), "watch_sessions", "watch", exclusive=True, exit_on_error=False)

    async def _watch(self) -> None:
        watcher = self.host.watcher
        notice_shown = False
        async for batch in watcher.events():
            if watcher.notice and not notice_shown:
                notice_shown = True
                self.node.notify(watcher.notice, title="Watching", severity="warning", timeout=8)
            self.apply_store_events(batch)

    def apply_store_events(self, batch: StoreBatch, *, ours: bool = False) -> None:
        """New, grown, replaced, renamed and vanished sessions, from one batch of the store's
        events (read in a worker thread; `ours`: a change we made ourselves, which neither
        marks the session live nor is announced)."""
        host = self.host
        sidebar, activity = host.sidebar, host.activity
        had_none = not sidebar.summaries
        current = sidebar.session_list.current()
        select: str | None = None
        now = time.time()
        for event in batch:
            if event.kind in (EventKind.GREW, EventKind.APPEARED) and not ours:
                activity.grew(event.path, now)
            if event.kind is EventKind.RENAMED and event.old_path is not None:
                activity.moved(event.old_path, event.path)
                if current is not None and current.path == event.old_path:
                    select = event.path  # the sidebar's cursor goes with the file
            if event.kind is EventKind.VANISHED:
                activity.forget(event.path)
            if host.session is not None and event.session is host.session:
                self.open_session_changed(event, ours=ours)
        sidebar.set_summaries(batch.listing.summaries)
        if select is not None:
            sidebar.select_path(select)
        session = host.session
        sidebar.set_open(session.path if session is not None else None)
        if session is None and batch.listing.summaries and (had_none or ours):
            # The first session of a folder that had none, or the one after ours that went.
            current = sidebar.session_list.current()
            if current is not None:
                host.opener.open(current.path)
        host.searches.update(batch.listing.summaries)
        if any(event.kind is not EventKind.GREW for event in batch):
            self.find_subagents(batch.listing.summaries)  # (a session came or went)

    def open_session_changed(self, event: StoreEvent, *, ours: bool = False) -> None:
        """The open session's file changed: core says what that means for each pane
        (core/live/tree_change.py, core/live/context_change.py), the panes apply it."""
        host = self.host
        session = host.session
        if session is None:
            return
        if event.kind is EventKind.VANISHED or event.error:
            why = event.error or "the file is gone"
            host.opener.close(f"The open session cannot be shown any more: {why}.\n{event.path}")
            if not ours:
                host.set_status(f"the open session is gone: {why}: {event.path}", error=True)
            return
        if event.kind is EventKind.RENAMED and not ours:
            host.set_status(f"the open session was renamed to {event.path}")
        delta = event.append
        if delta is None or not delta.changed:
            return
        host.opener.hold_collections()
        tree = host.branch_tree
        rows, index, view = tree.rows, tree.index_by_id, tree.live_filter()
        rows_change = tree_change(session, delta, rows, index, view, tree.current_id(), follow=host.follow)
        host.tree_pane.apply_change(rows_change)
        if delta.reloaded and not ours:
            what = "cut short" if delta.truncated else "rewritten"
            host.set_status(f"the open session was {what} on disk: read again")
        context = host.context_view
        shown = context.projection if context.session is session else None
        change = context_change(
            session,
            delta,
            shown,
            host.context_leaf if shown is not None else None,
            follow=host.follow,
            show_excluded=context.show_excluded,
        )
        context.apply(session, change)

    async def after_external_change(
        self, path: str, *, select_session: str | None = None, by_us: bool = True
    ) -> None:
        """We wrote, moved or ran something on `path` (or found someone else did): bring the
        store and every pane up to date now (the watcher would, a moment later), the way every
        file change goes."""
        host = self.host
        self.apply_store_events(await host.watcher.process([path]), ours=by_us)
        if select_session is not None:
            host.sidebar.select_path(select_session)
            with contextlib.suppress(WorkerCancelled):  # the user opened another one meanwhile
                await host.opener.open(select_session).wait()
