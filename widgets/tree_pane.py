"""The tree pane: the open session's branch tree under its title, with a search line.

The title says the view, the number of entries, whether the selection follows new entries,
the problems and the session's name (what changes with keys first: a narrow pane cuts the
end). `/` opens the search line; enter searches every entry in a worker thread
(`core.session_search.tree_matches`: the sessions search's tokens, phrases and re: patterns,
every token in one entry as pi's tree selector wants), marks the matches in the tree and posts
`SearchDone`.
"""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.worker import Worker, WorkerState, get_current_worker

from ..core.common.text import counted, one_line, short_cost
from ..core.live.tree_change import TreeChange
from ..core.session.session import Session
from .branch_tree import BranchTree
from .glyphs import glyphs_of
from .plain import FitStatic, PlainInput


class TreePane(Vertical):
    class SearchDone(Message):
        """A search of the session found `matches` (entry ids, in file order), or could not
        run (`error`: a bad query, a pattern that ran too long); `cut`: `query` is only the
        start of what was typed (see `core.search.query.MAX_QUERY_CHARS`)."""

        def __init__(
            self, pane: TreePane, query: str, matches: list[str], error: str | None = None, cut: bool = False
        ) -> None:
            super().__init__()
            self.pane = pane
            self.query = query
            self.matches = matches
            self.error = error
            self.cut = cut

        @property
        def control(self) -> TreePane:
            return self.pane

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session: Session | None = None
        self.follow = False

    def compose(self) -> ComposeResult:
        yield FitStatic("", id="tree-title", classes="pane-title")
        yield PlainInput(placeholder="search this session (enter)", id="tree-search")
        yield BranchTree(id="tree")

    @property
    def branch_tree(self) -> BranchTree:
        return self.query_one(BranchTree)

    @property
    def search_input(self) -> PlainInput:
        return self.query_one("#tree-search", PlainInput)

    def focus_target(self) -> BranchTree:
        return self.branch_tree

    def on_mount(self) -> None:
        self.search_input.display = False
        self.update_title()

    # ------------------------------------------------------------------ data in
    def show_session(
        self, session: Session | None, select: str | None = None, *, notify: bool = True
    ) -> None:
        self.session = session
        self.branch_tree.show_session(session, select=select, notify=notify)
        self.update_title()

    def apply_change(self, change: TreeChange) -> None:
        """The open session changed: the rows follow (as core/live/tree_change.py decided), then
        the title."""
        self.branch_tree.apply_change(change)
        self.update_title()

    def set_follow(self, follow: bool) -> None:
        self.follow = follow
        self.update_title()

    def update_title(self) -> None:
        glyphs = glyphs_of(self)
        dot = f" {glyphs.dot} "
        title = "Tree"
        session = self.session
        if session is not None:
            count = len(session.records)
            title = f"{self.branch_tree.view.label} view{dot}{count} {'entry' if count == 1 else 'entries'}"
            if self.follow:
                title += f"{dot}following"
            if session.problems:
                title += f"{dot}{glyphs.problem} {len(session.problems)} problem(s)"
            kids = self.branch_tree.spawn_marks.descendants(session)
            if kids:
                # What they spent, on top of this session's (pi-sessions stats --with-subagents)
                spent = short_cost(sum(c.summary.cost for c in kids))
                title += f"{dot}{counted(len(kids), 'subagent')}" + (f" +{spent}" if spent else "")
            if session.name:
                title += f"{dot}{one_line(session.name, 60, glyphs=glyphs)}"
        self.query_one("#tree-title", FitStatic).update(title)

    @on(BranchTree.FilterChanged)
    def _filter_changed(self) -> None:
        self.update_title()

    # ------------------------------------------------------------------ search
    def open_search(self) -> None:
        self.search_input.display = True
        self.search_input.focus()

    def close_search(self) -> bool:
        """Clear and hide the search line and its matches; False when it was not open."""
        search = self.search_input
        if not search.display:
            return False
        search.value = ""
        search.display = False
        self.branch_tree.set_matches([])
        self.branch_tree.focus()
        return True

    @on(PlainInput.Submitted, "#tree-search")
    def _submitted(self, event: PlainInput.Submitted) -> None:
        event.stop()
        if self.session is None or not event.value.strip():
            self.branch_tree.set_matches([])
            return
        self._search(self.session, event.value)

    @work(thread=True, exclusive=True, group="tree-search", exit_on_error=False)
    def _search(self, session: Session, query: str) -> None:
        from ..core.search.in_session import tree_matches
        from ..core.search.matching import PatternTooSlow  # (the search's modules: not at every start)
        from ..core.search.query import parse_query

        parsed = parse_query(query)
        error, matches = parsed.error, []
        if error is None:
            try:
                matches = tree_matches(session, parsed, query)
            except PatternTooSlow as e:
                error = str(e)
        if not get_current_worker().is_cancelled:
            searched = parsed.text if parsed.cut else query  # (a cut query: the part searched)
            self.app.call_from_thread(self._found, session, searched, matches, error, parsed.cut)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self.notify(f"The search failed: {event.worker.error}", severity="error", timeout=10)

    def _found(self, session: Session, query: str, matches: list[str], error: str | None, cut: bool) -> None:
        if session is not self.session:
            return
        self.branch_tree.set_matches(matches)
        self.branch_tree.focus()
        self.post_message(self.SearchDone(self, query, matches, error, cut))
