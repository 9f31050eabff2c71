"""The main screen: sessions | branch tree | context, coordinated here.

Attributes go down (the screen hands each pane what to show), messages come up (a pane says
what the user did). All reading happens in core; long reads run in worker threads.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.events import Resize
from textual.screen import Screen
from textual.widget import Widget
from textual.worker import get_current_worker

from ..core.context import project
from ..core.listing import SessionSummary
from ..core.live import ContextAction, ContextChange, context_change, nothing_to_show
from ..core.locations import SessionsRoot
from ..core.outline import extend_rows, search_entries
from ..core.problems import SessionError
from ..core.search import PatternTooSlow, SearchIndex, SessionText, parse_query
from ..core.session import Session
from ..core.store import SessionStore
from ..core.text import GLYPHS, one_line
from ..core.watch import EventKind, SessionWatcher, StoreBatch, StoreEvent
from ..widgets.branch_tree import BranchTree
from ..widgets.context_view import ContextView
from ..widgets.glyphs import Glyphs
from ..widgets.key_footer import KeyFooter
from ..widgets.keys import bindings
from ..widgets.plain import FitStatic, PlainInput
from ..widgets.sidebar import SessionSidebar
from .config import Settings
from .keymap import first_key
from .screens import RawJsonScreen

QUICK_SCAN_BYTES = 4 * 1024 * 1024  # up to this much to read, the first listing is done inline
WIDE = 110  # below this many columns, two panes at a time
NARROW = 70  # below this, one pane at a time
PANES = ("sidebar", "tree", "context")


class MainScreen(Screen[None]):
    BINDINGS = bindings("main")

    def __init__(
        self,
        settings: Settings,
        root: SessionsRoot,
        glyphs: Glyphs,
        *,
        open_path: str | None = None,
        current_cwd: str | None = None,
        cache_dir: str | None = None,
        notices: Sequence[str] = (),
    ) -> None:
        super().__init__()
        self.settings = settings
        self.notices = list(notices)  # shown once the sessions are listed (status line and a notice)
        self.root = root
        self.glyphs = glyphs
        self.open_path = open_path
        self.current_cwd = current_cwd if current_cwd is not None else os.getcwd()
        self.store = SessionStore(root.path, cache_dir=cache_dir, keep_text=True)
        # Every file change goes through the watcher (it watches once the first listing is up).
        self.watcher = SessionWatcher(self.store, poll=settings.poll)
        self.session: Session | None = None
        self.search_index: SearchIndex[SessionText] | None = None
        # path -> (the summary it was made from, its search text): a summary object is new
        # exactly when its file changed, so a live batch joins and hashes only those texts.
        self._search_texts: dict[str, tuple[SessionSummary, SessionText]] = {}
        self.context_leaf: str | None = None
        self.follow = False
        self.active_pane = "sidebar"
        self.scanned = False
        self.last_context_ms = 0.0

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        with Horizontal(id="panes"):
            yield SessionSidebar(self.glyphs, self.current_cwd, id="sidebar")
            with Vertical(id="tree-pane"):
                yield FitStatic("", id="tree-title", classes="pane-title")
                yield PlainInput(placeholder="search this session (enter)", id="tree-search")
                yield BranchTree(self.glyphs, id="tree")
            yield ContextView(self.glyphs, id="context")
        yield FitStatic("", id="status")
        yield KeyFooter()

    @property
    def sidebar(self) -> SessionSidebar:
        return self.query_one(SessionSidebar)

    @property
    def tree(self) -> BranchTree:
        return self.query_one(BranchTree)

    @property
    def context_view(self) -> ContextView:
        return self.query_one(ContextView)

    def on_mount(self) -> None:
        self.query_one("#tree-search", PlainInput).display = False
        self.sidebar.search_fn = self._search_sessions
        self.sidebar.set_status("reading…")
        self.context_view.clear("")
        self._set_tree_title()
        self._apply_layout(self.size.width)
        self.sidebar.session_list.focus()
        # With a usable index cache the listing is a stat per file: do it right here, before
        # the first frame, rather than in a thread that competes with that frame for the GIL.
        report = self.store.scan(read_limit=QUICK_SCAN_BYTES)
        if report is None:
            self.scan_sessions()
        else:
            listing = self.store.listing()
            self._scan_done(listing.summaries, listing.skipped, report.cache_problem)

    def on_resize(self, event: Resize) -> None:
        self._apply_layout(event.size.width)

    def _apply_layout(self, width: int) -> None:
        """Three panes when wide; else the focused pane and a neighbour (or only it)."""
        panes = {"sidebar": self.sidebar, "tree": self.query_one("#tree-pane"), "context": self.context_view}
        if width >= WIDE:
            shown = set(PANES)
        elif width >= NARROW:
            shown = {"sidebar", "tree"} if self.active_pane == "sidebar" else {"tree", "context"}
        else:
            shown = {self.active_pane}
        for name, pane in panes.items():
            pane.display = name in shown
        self.set_class(width < WIDE, "-narrow")

    def _pane_widget(self, pane: str) -> Widget:
        return {"sidebar": self.sidebar.session_list, "tree": self.tree, "context": self.context_view.body}[
            pane
        ]

    def focus_pane(self, pane: str) -> None:
        self.active_pane = pane
        self._apply_layout(self.size.width)
        self._pane_widget(pane).focus()

    def on_descendant_focus(self, event: object) -> None:
        widget = self.focused
        if widget is None:
            return
        for pane, container in (
            ("sidebar", self.sidebar),
            ("tree", self.query_one("#tree-pane")),
            ("context", self.context_view),
        ):
            if widget is container or container in widget.ancestors:
                if pane != self.active_pane:
                    self.active_pane = pane
                    self._apply_layout(self.size.width)
                return

    def action_next_pane(self) -> None:
        self.focus_pane(PANES[(PANES.index(self.active_pane) + 1) % len(PANES)])

    def action_previous_pane(self) -> None:
        self.focus_pane(PANES[(PANES.index(self.active_pane) - 1) % len(PANES)])

    # ------------------------------------------------------------------ status
    def set_status(self, text: str, *, error: bool = False) -> None:
        status = self.query_one("#status", FitStatic)
        status.update(one_line(text, 400))
        status.set_class(error, "-error")

    def _set_tree_title(self) -> None:
        title = "Tree"
        session = self.session
        if session is not None:
            # What changes with keys comes first: narrow panes cut the end of the line.
            count = len(session.records)
            title = f"{self.tree.view.label} view {GLYPHS.dot} {count} {'entry' if count == 1 else 'entries'}"
            if self.follow:
                title += f" {GLYPHS.dot} following"
            if session.problems:
                title += f" {GLYPHS.dot} {self.glyphs.problem} {len(session.problems)} problem(s)"
            if session.name:
                title += f" {GLYPHS.dot} {one_line(session.name, 60)}"
        self.query_one("#tree-title", FitStatic).update(title)

    # ------------------------------------------------------------------ scanning and watching
    @work(thread=True, exclusive=True, group="scan")
    def scan_sessions(self) -> None:
        report = self.store.scan()
        assert report is not None
        listing = self.store.listing()
        worker = get_current_worker()
        if worker.is_cancelled:
            return
        self.app.call_from_thread(self._scan_done, listing.summaries, listing.skipped, report.cache_problem)

    @work(thread=True, exclusive=True, group="index")
    def build_search_index(self) -> None:
        """The search index, built after the first screen is up (it competes for the GIL)."""
        summaries = list(self.sidebar.summaries)
        index = SearchIndex(self._search_items(summaries))
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._index_ready, index)

    def _index_ready(self, index: SearchIndex[SessionText]) -> None:
        if self.search_index is None:
            # Batches that arrived while it was being built changed the listing.
            index.update(self._search_items(self.sidebar.summaries))
            self.search_index = index

    def _scan_done(
        self, summaries: list[SessionSummary], skipped: list[tuple[str, str]], cache_problem: str | None
    ) -> None:
        self.search_index = None
        first_scan = not self.scanned
        self.scanned = True
        self.sidebar.set_status("")
        self.sidebar.set_summaries(summaries)
        if not summaries:
            self._show_empty_state()
        else:
            note = f"{len(summaries)} sessions in {self.root.describe()}"
            if skipped:
                note += f" {GLYPHS.dot} {len(skipped)} other file(s) skipped (unreadable or not pi sessions)"
            if cache_problem:
                note += f" {GLYPHS.dot} {cache_problem}"
            self.set_status(note)
        if first_scan and self.notices:
            # Once: in the status line, and each in full in a notice (a status line is cut).
            self.set_status(f"{self.glyphs.problem} " + f" {GLYPHS.dot} ".join(self.notices), error=True)
            self.notify("\n".join(self.notices), title="Settings", severity="warning", timeout=15)
        if first_scan:
            self._open_initial(summaries)
            self.watch_sessions()
        # Searching works at once (the index is built on the first keystroke if need be);
        # building it in the background waits until the first screen is drawn.
        self.set_timer(1.0 if first_scan else 0.1, self.build_search_index)

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

    def _open_initial(self, summaries: list[SessionSummary]) -> None:
        if self.open_path:
            path = os.path.abspath(self.open_path)
            self.sidebar.select_path(path)
            self.open_session(path)
            self.focus_pane("tree")
            return
        current = self.sidebar.session_list.current()
        if current is not None:
            self.open_session(current.path)

    @work(exclusive=True, group="watch")
    async def watch_sessions(self) -> None:
        notice_shown = False
        async for batch in self.watcher.events():
            if self.watcher.notice and not notice_shown:
                notice_shown = True
                self.notify(self.watcher.notice, title="Watching", severity="warning", timeout=8)
            self.apply_store_events(batch)

    def apply_store_events(self, batch: StoreBatch, *, ours: bool = False) -> None:
        """New, grown, replaced, renamed and vanished sessions, from one batch of the store's
        events (read in a worker thread; `ours`: a change we made ourselves)."""
        had_none = not self.sidebar.summaries
        current = self.sidebar.session_list.current()
        select: str | None = None
        for event in batch:
            if event.kind in (EventKind.GREW, EventKind.APPEARED):
                self.sidebar.mark_live(event.path)
            if event.kind is EventKind.RENAMED and current is not None and current.path == event.old_path:
                select = event.path  # the sidebar's cursor goes with the file
            if self.session is not None and event.session is self.session:
                self._open_session_changed(event, ours=ours)
        self.sidebar.set_summaries(batch.listing.summaries)
        if select is not None:
            self.sidebar.select_path(select)
        self.sidebar.set_open(self.session.path if self.session is not None else None)
        if self.session is None and had_none and batch.listing.summaries:
            current = self.sidebar.session_list.current()
            if current is not None:
                self.open_session(current.path)  # the first session of a folder that had none
        if self.search_index is not None:
            self.search_index.update(self._search_items(batch.listing.summaries))

    def _open_session_changed(self, event: StoreEvent, *, ours: bool = False) -> None:
        """The open session's file changed: core says what that means for each pane (the
        rows in `outline.extend_rows`, the context in `live.context_change`), the panes
        apply it, and the titles follow."""
        session = self.session
        assert session is not None
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
        tree = self.tree
        if delta.reloaded:
            keep = tree.current_id()
            select = session.default_leaf if self.follow or keep not in session.by_id else keep
            tree.show_session(session, select=select, notify=False)
            if not ours:
                what = "cut short" if delta.truncated else "rewritten"
                self.set_status(f"the open session was {what} on disk: read again")
        else:
            rows = extend_rows(session, tree.rows, tree.index_by_id, delta, tree.live_filter())
            if rows is not None:
                tree.insert_rows(rows)
            else:
                tree.rebuild(keep_view=True, notify=False)
            if self.follow and session.default_leaf:
                tree.select(session.default_leaf, notify=False)
        shown = self.context_view.projection if self.context_view.session is session else None
        change = context_change(
            session,
            delta,
            shown,
            self.context_leaf if shown is not None else None,
            follow=self.follow,
            show_excluded=self.context_view.show_excluded,
        )
        self._apply_context(session, change)
        self._set_tree_title()

    def _apply_context(self, session: Session, change: ContextChange) -> None:
        if change.action is ContextAction.KEEP:
            return
        if change.action is ContextAction.CLEAR or change.projection is None:
            self.context_leaf = None
            self.context_view.clear(change.text)
            return
        self.context_leaf = change.projection.leaf_id
        note = "(live)" if change.live else ""
        if change.action is ContextAction.EXTEND:
            self.context_view.extend(session, change.projection, change.start, live_note=note)
        else:
            self.context_view.show(session, change.projection, keep_scroll=change.keep_scroll, live_note=note)

    def _close_session(self, text: str) -> None:
        """Nothing is open any more: every pane says so."""
        if self.session is not None:
            self.watcher.untrack(self.session)
        self.session = None
        self.context_leaf = None
        self.tree.show_session(None)
        self.context_view.clear(text)
        self.sidebar.set_open(None)
        self._set_tree_title()

    def action_rescan(self) -> None:
        self.sidebar.set_status("reading…")
        self.scan_sessions()

    # ------------------------------------------------------------------ opening a session
    @on(SessionSidebar.SessionHighlighted)
    def _session_highlighted(self, event: SessionSidebar.SessionHighlighted) -> None:
        if self.session is None or self.session.path != event.summary.path:
            self.open_session(event.summary.path)

    @on(SessionSidebar.SessionChosen)
    def _session_chosen(self, event: SessionSidebar.SessionChosen) -> None:
        if self.session is None or self.session.path != event.summary.path:
            self.open_session(event.summary.path)
        self.focus_pane("tree")

    @work(thread=True, exclusive=True, group="open")
    def open_session(self, path: str, select: str | None = None) -> None:
        try:
            session: Session | None = Session.open(path)
            error = None
        except (SessionError, OSError) as e:
            session, error = None, str(e)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._session_opened, path, session, error, select)

    def _session_opened(
        self, path: str, session: Session | None, error: str | None, select: str | None
    ) -> None:
        if self.session is not None:
            self.watcher.untrack(self.session)
        self.session = session
        self.sidebar.set_open(path if session else None)
        if session is None:
            self.tree.show_session(None)
            self.context_view.clear(f"cannot open {path}: {error}")
            self.set_status(f"cannot open {path}: {error}", error=True)
            self._set_tree_title()
            return
        self.watcher.track(session)
        self.context_leaf = None
        self.tree.show_session(session, select=select)
        empty = nothing_to_show(session)
        if empty is not None:
            self.context_view.clear(empty)
        if session.problems:
            first = session.problems[0]
            self.set_status(
                f"{self.glyphs.problem} {len(session.problems)} problem(s) in this file; first: {first}",
                error=True,
            )
        self._set_tree_title()

    # ------------------------------------------------------------------ the context pane
    @on(BranchTree.EntryHighlighted)
    def _entry_highlighted(self, event: BranchTree.EntryHighlighted) -> None:
        if self.follow and self.session is not None and event.entry_id != self.session.default_leaf:
            self.follow = False
            self._set_tree_title()
        self.show_context(event.entry_id)

    @on(BranchTree.EntryChosen)
    def _entry_chosen(self, event: BranchTree.EntryChosen) -> None:
        self.show_context(event.entry_id)
        self.focus_pane("context")

    @on(BranchTree.FilterChanged)
    def _filter_changed(self, event: BranchTree.FilterChanged) -> None:
        self._set_tree_title()

    def show_context(self, entry_id: str, *, keep_scroll: bool = False) -> None:
        """The context at `entry_id`, chosen by the user (a live change goes through
        `_open_session_changed`)."""
        session = self.session
        if session is None or entry_id not in session.by_id:
            return
        started = time.perf_counter()
        self.context_leaf = entry_id
        self.context_view.show(session, project(session, entry_id), keep_scroll=keep_scroll)
        self.last_context_ms = (time.perf_counter() - started) * 1000

    def action_toggle_excluded(self) -> None:
        self.context_view.toggle_excluded()

    def action_toggle_follow(self) -> None:
        self.follow = not self.follow
        if self.follow and self.session is not None and self.session.default_leaf:
            self.tree.select(self.session.default_leaf)
        self.notify("following the newest entry" if self.follow else "follow off", timeout=2)
        self._set_tree_title()

    # ------------------------------------------------------------------ search
    def _search_items(self, summaries: list[SessionSummary]) -> list[SessionText]:
        known = self._search_texts
        fresh: dict[str, tuple[SessionSummary, SessionText]] = {}
        for summary in summaries:
            pair = known.get(summary.path)
            if pair is None or pair[0] is not summary:
                pair = (summary, SessionText.from_summary(summary, self.store.texts(summary.path)))
            fresh[summary.path] = pair
        self._search_texts = fresh
        return [text for _, text in fresh.values()]

    def _search_sessions(self, query: str) -> Mapping[str, str] | None:
        """path -> where it matched (and an excerpt of the message that matched)."""
        if self.search_index is None:
            # Typed before the background index was ready: build it now, once.
            self.search_index = SearchIndex(self._search_items(self.sidebar.summaries))
        parsed = parse_query(query)
        if parsed.error:
            self.set_status(parsed.error, error=True)
            return None
        try:
            hits = self.search_index.search(parsed)
        except PatternTooSlow as e:
            self.set_status(str(e), error=True)
            return None
        found: dict[str, str] = {}
        for hit in hits:
            where = "in " + ", ".join(dict.fromkeys(f.rstrip("~") for f in hit.fields)) if hit.fields else ""
            excerpt = hit.excerpt() if hit.in_text else None
            if excerpt is not None:
                where += f": {excerpt.text}"
            found[hit.item.path] = where
        return found

    def action_search(self) -> None:
        if self.active_pane == "sidebar":
            self.sidebar.action_search()
            return
        search = self.query_one("#tree-search", PlainInput)
        search.display = True
        search.focus()

    @on(PlainInput.Submitted, "#tree-search")
    def _tree_search(self, event: PlainInput.Submitted) -> None:
        event.stop()
        if self.session is None or not event.value.strip():
            self.tree.set_matches([])
            return
        self.search_session(self.session, event.value)

    @work(thread=True, exclusive=True, group="tree-search")
    def search_session(self, session: Session, query: str) -> None:
        matches = search_entries(session, query)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._tree_matches, session, query, matches)

    def _tree_matches(self, session: Session, query: str, matches: list[str]) -> None:
        if session is not self.session:
            return
        self.tree.set_matches(matches)
        self.tree.focus()
        self.set_status(
            f"{len(matches)} entries match {query!r}: n / N for next / previous"
            if matches
            else f"nothing matches {query!r}"
        )

    def action_escape(self) -> None:
        search = self.query_one("#tree-search", PlainInput)
        if search.display:
            search.value = ""
            search.display = False
            self.tree.set_matches([])
            self.tree.focus()
        elif self.active_pane == "context":
            self.focus_pane("tree")
        elif self.active_pane == "tree":
            self.focus_pane("sidebar")

    # ------------------------------------------------------------------ small actions
    def action_inspect(self) -> None:
        session = self.session
        entry_id = self.tree.current_id()
        if self.active_pane == "context":
            body = self.context_view.body
            if 0 <= body.current < len(body.blocks) and body.blocks[body.current].entry_id:
                entry_id = body.blocks[body.current].entry_id
        if session is None or entry_id is None:
            return
        record = session.by_id[entry_id]
        try:
            value = session.entry_dict(record)
        except (SessionError, OSError) as e:
            self.set_status(f"cannot read line {record.line}: {e}", error=True)
            return
        self.app.push_screen(
            RawJsonScreen(f"{entry_id} {GLYPHS.dot} line {record.line} of {session.path}", value)
        )

    def action_resume(self) -> None:
        from .actions import resume_selected

        resume_selected(self)

    def action_fork(self) -> None:
        from .actions import fork_selected

        fork_selected(self)

    def action_copy(self) -> None:
        from .actions import copy_menu

        copy_menu(self)

    def action_copy_entry_text(self) -> None:
        from .actions import copy_entry_text

        copy_entry_text(self)

    def action_clone(self) -> None:
        from .actions import clone_selected

        clone_selected(self)

    def action_rename(self) -> None:
        from .actions import rename_selected

        rename_selected(self)

    def action_label(self) -> None:
        from .actions import label_selected

        label_selected(self)

    def action_delete(self) -> None:
        from .actions import delete_selected

        delete_selected(self)

    def action_export(self) -> None:
        from .actions import export_menu

        export_menu(self)

    def action_export_context(self) -> None:
        from .actions import ask_export_folder

        ask_export_folder(self, "context")

    def action_export_tree(self) -> None:
        from .actions import ask_export_folder

        ask_export_folder(self, "tree")

    def action_demo(self) -> None:
        if self.scanned and not self.store.entries:
            self.app.open_demo()  # type: ignore[attr-defined]

    def after_external_change(self, path: str, select_session: str | None = None) -> None:
        """We wrote, moved or ran something on `path`: bring the store and the panes up to
        date now (the watcher would, a moment later), the way every file change goes."""
        self._external_change(path, select_session)

    @work(group="external")
    async def _external_change(self, path: str, select_session: str | None) -> None:
        self.apply_store_events(await self.watcher.process([path]), ours=True)
        if select_session is not None:
            self.sidebar.select_path(select_session)
            self.open_session(select_session)
