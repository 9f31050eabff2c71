"""The main screen: sessions | branch tree | context, wired together.

Attributes go down, messages come up: the screen hands each pane what to show and listens to
what the user did there. It decides little (whether a session chosen needs opening, when a
move turns follow off) and hands the rest on: the listing, the scan and the watch are
app/scan_watch.py's (what the first frame shows is core/listing/first_screen.py's, what a
change means for each pane core/live/'s), opening a session and showing a context
app/session_opener.py's, the searches app/search_glue.py's, and every action on what is
selected a flow of app/actions.py's (`action_flow`; this screen is its host). Layout is
widgets/panes.py's. File work runs in worker threads; a worker that fails says so in the
status line instead of taking the app down.

Where things go: a new pane is a widget yielded in `compose` inside `Panes`; a new action is a
flow in app/actions.py and a binding `flow('name')` in widgets/keys.py (nothing here).
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Coroutine, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

from textual import events, on
from textual.app import ComposeResult, SuspendNotSupported
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from ..core.common.glyphs import Glyphs
from ..core.common.locations import SessionsRoot
from ..core.common.text import one_line
from ..core.listing.first_screen import FirstScreen
from ..core.listing.store import SessionStore
from ..core.listing.summary import SessionSummary
from ..core.live.activity import Activity
from ..core.live.watch import SessionWatcher
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
from .marks_flow import load_marks
from .scan_watch import ScanWatch
from .search_glue import SearchGlue
from .session_opener import SessionOpener

if TYPE_CHECKING:  # (imported where used: the first screen needs none of these)
    from pathlib import Path

    from ..core.projection.context import Projection
    from ..core.projection.file_knowledge import FileTracker
    from ..core.search.labels import LabelIndex
    from ..core.search.landing import Aim

T = TypeVar("T")

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
        self.actions = Actions(self)
        self.searches = SearchGlue(self, self)  # the sidebar's and the tree's searches, wired
        self.opener = SessionOpener(self, self)  # opening a session, showing a context
        self.scan_watch = ScanWatch(self, self)  # the listing, the scan and the watch
        self.session: Session | None = None
        self.file_tracker: FileTracker | None = None  # the open session's, kept across entries
        self.follow = False
        self.first_screen = FirstScreen(open_path)  # what the first screen opens by itself

    # ------------------------------------------------------------------ the panes
    def compose(self) -> ComposeResult:
        with Panes(PANES, id="panes"):
            yield SessionSidebar(self.current_cwd, self.activity, id="sidebar")
            yield TreePane(id="tree-pane")
            yield ContextView(id="context", agent_dir=self.pi_agent_dir)
        yield FitStatic("", id="status")
        yield KeyFooter()

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
        self.sidebar.key_of = self.key_of  # (its hints name the keys as the keymap has them)
        self.context_view.clear("")
        self.sidebar.session_list.focus()
        self.notices.extend(filter(None, [load_marks(self.sidebar)]))  # pins and tags, before any row
        self.scan_watch.start()

    def focus_pane(self, pane: str) -> None:
        self.panes.focus_pane(pane)

    def action_next_pane(self) -> None:
        self.panes.next_pane(1)

    def action_previous_pane(self) -> None:
        self.panes.next_pane(-1)

    # ------------------------------------------------------------------ the status line
    def set_status(self, text: str, *, error: bool = False, replacing: str | None = None) -> None:
        status = self.query_one("#status", FitStatic)
        if replacing is not None and status.full_text != one_line(replacing, 2000, glyphs=self.glyphs):
            return  # (it says something newer)
        status.update(one_line(text, 2000, glyphs=self.glyphs))  # (fitted to its width when drawn)
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

    # ------------------------------------------------------------------ listing (app/scan_watch.py)
    @property
    def scanned(self) -> bool:
        return self.scan_watch.scanned

    def on_key(self) -> None:
        self.first_screen.user_acted = True  # (a key, a click, a scroll: the first screen is the user's now)

    def _forward_event(self, event: events.Event) -> None:
        # Every mouse event comes through here on its way to its widget (which may stop it
        # before it would reach the screen: a scroll does). (Textual is pinned: the app hands
        # a screen its input events in `_forward_event`.)
        if isinstance(event, (events.MouseDown, events.MouseScrollDown, events.MouseScrollUp)):
            self.first_screen.user_acted = True
        super()._forward_event(event)

    def action_rescan(self) -> None:
        self.sidebar.set_status(f"reading{self.glyphs.ellipsis}")
        self.scan_watch.scan()

    async def after_external_change(
        self, path: str, *, select_session: str | None = None, by_us: bool = True
    ) -> None:
        await self.scan_watch.after_external_change(path, select_session=select_session, by_us=by_us)

    # ------------------------------------------------------------------ opening a session
    @on(SessionSidebar.SessionHighlighted)
    def _session_highlighted(self, event: SessionSidebar.SessionHighlighted) -> None:
        path = event.summary.path
        if self.session is None or self.session.path != path:
            self.open_session(path, aim=self.searches.aim(path))

    @on(SessionSidebar.SessionChosen)
    def _session_chosen(self, event: SessionSidebar.SessionChosen) -> None:
        path = event.summary.path
        aim = self.searches.aim(path)
        if self.session is None or self.session.path != path or aim is not None:
            self.open_session(path, aim=aim)
        self.focus_pane("tree")

    def open_session(self, path: str, select: str | None = None, aim: Aim | None = None) -> Worker[None]:
        return self.opener.open(path, select, aim)

    # ------------------------------------------------------------------ the context pane
    @on(BranchTree.EntryHighlighted)
    def _entry_highlighted(self, event: BranchTree.EntryHighlighted) -> None:
        self.highlighted(event.entry_id)

    def highlighted(self, entry_id: str) -> None:
        if self.follow and self.session is not None and entry_id != self.session.default_leaf:
            self._set_follow(False)
        self.show_context(entry_id)

    @on(BranchTree.EntryChosen)
    def _entry_chosen(self, event: BranchTree.EntryChosen) -> None:
        self.show_context(event.entry_id)
        self.focus_pane("context")

    def show_context(self, entry_id: str, *, keep_scroll: bool = False) -> None:
        self.opener.show_context(entry_id, keep_scroll=keep_scroll)

    @property
    def last_context_ms(self) -> float:
        return self.opener.last_context_ms

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
        self.searches.opened()

    @on(SessionSidebar.SearchChanged)
    def _search_sessions(self, event: SessionSidebar.SearchChanged) -> None:
        self.searches.start(event.query, event.scope)

    @on(SessionList.PlacesWanted)
    def _places_wanted(self, event: SessionList.PlacesWanted) -> None:
        self.searches.place(event.results, event.paths)

    @on(TreePane.SearchDone)
    def _tree_matches(self, event: TreePane.SearchDone) -> None:
        self.searches.tree_search_done(event.matches, event.query, event.error, cut=event.cut)

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

    def listed_summaries(self) -> list[SessionSummary]:
        return self.sidebar.shown_summaries() or self.sidebar.summaries

    @property
    def label_index(self) -> LabelIndex:
        return self.searches.label_index

    def inspected_entry(self) -> str | None:
        entry_id = self.branch_tree.current_id()
        if self.active_pane == "context":
            entry_id = self.context_view.body.current_entry() or entry_id
        return entry_id

    def marked_entry(self) -> str | None:
        return self.branch_tree.marked

    def shown_projection(self, entry_id: str) -> Projection | None:
        return self.context_view.projection if self.context_leaf == entry_id else None

    def tracker_for(self, session: Session) -> FileTracker:
        from ..core.projection.file_knowledge import FileTracker

        if self.file_tracker is None or self.file_tracker.session is not session:
            self.file_tracker = FileTracker(session)
        return self.file_tracker

    def key_of(self, binding_id: str) -> str:
        return first_key(self.app.key_bindings, binding_id)  # type: ignore[attr-defined]

    @property
    def index_root(self) -> tuple[str, Path | None]:
        return self.root.path, self.store.cache_dir

    def session_titles(self) -> dict[str, str]:
        return {summary.path: summary.title for summary in self.sidebar.summaries}

    def open_at(self, path: str, aim: Aim) -> None:
        self.sidebar.select_path(path)
        self.open_session(path, aim=aim)
        self.focus_pane("tree")

    def go_to_entry(self, session: Session, entry_id: str | None) -> None:
        """A view chose an entry of `session`: the tree's cursor goes there, the context follows."""
        if entry_id is None or session is not self.session or entry_id not in session.by_id:
            return
        self.focus_pane("tree")
        self.branch_tree.select(entry_id)

    # ------------------------------------------------------------------ actions
    def action_flow(self, name: str, *args: str) -> None:
        """Every action on what is selected, by name: a flow of `Actions` (app/actions.py), run
        as a worker (its dialogs need one). The bindings say `flow('fork')`."""
        self.run_flow(self.actions.flow(name, *args))

    @on(BranchTree.Note)
    def _tree_note(self, event: BranchTree.Note) -> None:
        self.set_status(event.text)

    @on(SessionSidebar.Note)
    def _sidebar_note(self, event: SessionSidebar.Note) -> None:
        self.set_status(event.text)

    @on(BranchTree.MarkChanged)
    def _mark_changed(self, event: BranchTree.MarkChanged) -> None:
        if event.entry_id is None:
            self.set_status("mark cleared")
            return
        compare = self.key_of("tree.compare")
        how = f"press {compare}" if compare else "use the palette's Compare"
        self.set_status(f"marked {event.entry_id}: move to another entry and {how} to compare the two")

    def action_demo(self) -> None:
        if self.scanned and not self.store.entries:
            open_demo = getattr(self.app, "open_demo", None)
            if callable(open_demo):
                open_demo()
