"""The branch tree of one session, as rows: a linear run stays flat, forks indent.

Rows come from `core.outline`; this widget keeps them with the cursor, the folds, the view
filter and the search matches, and handles the keys: move, fold, jump between fork points and
branch segments (pi's keys, core/session/tree_moves.py), jump to the active leaf, set or cycle
the view filter, walk search matches. How a row looks (its excerpt, what its branch spent) is
`BranchRows`' (widgets/branch_rows.py); a live change is applied as core decides
(`apply_change`: core/live/tree_change.py).
"""

from __future__ import annotations

from textual.message import Message
from textual.strip import Strip
from textual.worker import Worker

from ..core.live.tree_change import TreeAction, TreeChange
from ..core.projection.branch_costs import BranchTotals
from ..core.session.outline import (
    OutlineRow,
    RowFilter,
    RowIndex,
    RowInsert,
    ViewFilter,
    branch_first_entry,
    nearest_shown_row,
    outline_rows,
    row_filter,
)
from ..core.session.session import Session
from ..core.session.tree_moves import can_fold, segment_start_above, segment_start_below
from .branch_rows import COSTS_GROUP, BranchRows
from .keys import bindings
from .rowlist import RowList
from .spawn_marks import SpawnMarks
from .tree_breaks import TreeBreakMarks
from .worker_failures import tell_failure


class BranchTree(RowList):
    """Rows of the open session. Posts `EntryHighlighted` as the cursor moves."""

    COMPONENT_CLASSES = RowList.COMPONENT_CLASSES | {
        "tree--guide",
        "tree--active",
        "tree--user",
        "tree--assistant",
        "tree--tool",
        "tree--system",
        "tree--compaction",
        "tree--other",
        "tree--label",
        "tree--marker",
        "tree--dim",
        "tree--match",
        "tree--mark",
        "tree--cost",
    }

    BINDINGS = bindings("tree")

    class EntryMessage(Message):
        def __init__(self, tree: BranchTree, entry_id: str) -> None:
            super().__init__()
            self.tree = tree
            self.entry_id = entry_id

        @property
        def control(self) -> BranchTree:
            return self.tree

    class EntryHighlighted(EntryMessage):
        """The cursor is on another entry."""

    class EntryChosen(EntryMessage):
        """Enter on an entry."""

    class MarkChanged(Message):
        """The entry marked to compare is another one (`entry_id`), or none (None)."""

        def __init__(self, tree: BranchTree, entry_id: str | None) -> None:
            super().__init__()
            self.tree = tree
            self.entry_id = entry_id

        @property
        def control(self) -> BranchTree:
            return self.tree

    class Note(Message):
        """A key did nothing here, and `text` says why (for the status line)."""

        def __init__(self, tree: BranchTree, text: str) -> None:
            super().__init__()
            self.tree = tree
            self.text = text

        @property
        def control(self) -> BranchTree:
            return self.tree

    class FilterChanged(Message):
        def __init__(self, tree: BranchTree, view: ViewFilter) -> None:
            super().__init__()
            self.tree = tree
            self.view = view

        @property
        def control(self) -> BranchTree:
            return self.tree

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session: Session | None = None
        self.rows: list[OutlineRow] = []
        self.index_by_id = RowIndex(None, self.rows)
        self.folded: set[str] = set()
        self.view = ViewFilter.DEFAULT
        self.matches: list[str] = []
        self.match_set: set[str] = set()
        self.marked: str | None = None  # the entry marked to compare with another (`m`)
        self.scroll_pending = False  # a scroll to the cursor waits for the next refresh
        self.painter = BranchRows(self)

    # ------------------------------------------------------------------ data in
    def show_session(
        self, session: Session | None, select: str | None = None, *, notify: bool = True
    ) -> None:
        if self.marked is not None and (
            session is not self.session or session is None or self.marked not in session.by_id
        ):
            self.marked = None  # another session, or the marked entry is gone (read again)
        self.session = session
        self.folded = set()
        self.matches = []
        self.match_set = set()
        self.painter.show(session)
        self.rebuild(select=select or (session.default_leaf if session else None), center=True, notify=notify)

    def rebuild(
        self, select: str | None = None, center: bool = False, keep_view: bool = False, notify: bool = True
    ) -> None:
        """Recompute rows (after a fold, a filter change or new entries) keeping the cursor on
        the same entry and, with `keep_view`, the same entry at the top of the view. The cursor
        landing on another entry (or `center`: another session) is announced unless `notify`
        is off."""
        session = self.session
        previous = self.current_id()
        top_id = (
            self.rows[int(self.scroll_offset.y)].record.id
            if keep_view and self.rows and int(self.scroll_offset.y) < len(self.rows)
            else None
        )
        if session is None:
            self.rows = []
            self.index_by_id = RowIndex(None, self.rows)
            self.set_row_count(0)
            return
        view = row_filter(self.view)
        if view is not None:
            # Like pi: the active leaf is always shown, and so are search matches.
            leaf = {session.default_leaf} if session.default_leaf is not None else set()
            view = view.with_always(self.match_set | leaf)
        self.rows = outline_rows(session, folded=self.folded, view=view)
        self.index_by_id = RowIndex(session, self.rows)
        self.set_row_count(len(self.rows))
        target = select if select is not None else previous
        index = self._nearest(target) if target else None
        if index is None:
            index = len(self.rows) - 1
        self.cursor = -1 if not self.rows else index
        if top_id is not None and top_id in self.index_by_id:
            # New rows (live) must not move what the user is looking at.
            self.scroll_to(y=self.index_by_id[top_id], animate=False, immediate=True, force=True)
        elif self.rows:
            # After the refresh: a list that was not scrollable a moment ago ignores scrolling.
            self.scroll_pending = True
            self.call_after_refresh(self._deferred_scroll, center)
        if notify and self.rows and (center or self.rows[index].record.id != previous):
            self.post_message(self.EntryHighlighted(self, self.rows[index].record.id))
        self.refresh()

    def apply_change(self, change: TreeChange) -> None:
        """A live change of the open session, as core/live/tree_change.py decided it. The
        cursor moving is not announced (the screen decides the context)."""
        session = self.session
        if session is None or change.action is TreeAction.KEEP:
            return
        if change.action is TreeAction.RESHOW:
            self.show_session(session, select=change.select, notify=False)
            return
        if change.insert is not None:
            self.insert_rows(change.insert)
        else:
            self.rebuild(keep_view=True, notify=False)
        if change.select is not None:
            self.select(change.select, notify=False)

    def live_filter(self) -> RowFilter | None:
        """The view's filter with what it always shows (search matches), for `extend_rows`."""
        view = row_filter(self.view)
        return view.with_always(self.match_set) if view is not None else None

    def insert_rows(self, change: RowInsert) -> None:
        """Rows core made for new entries below the active leaf (core/live/tree_change.py),
        put in place with the cursor and the view kept on the same entries."""
        at = change.at
        top = int(self.scroll_offset.y)
        self.rows[at] = change.parent_row
        self.rows[at + 1 : at + 1] = change.rows
        added = len(change.rows)
        # Rows below moved down: so do their indexes, the cursor and the view.
        self.index_by_id.inserted(at + 1, added)
        if self.cursor > at:
            self.cursor += added
        self.set_row_count(len(self.rows))
        if added and top > at:
            self.scroll_to(y=top + added, animate=False, immediate=True, force=True)
        self.refresh()

    def _deferred_scroll(self, center: bool) -> None:
        self.scroll_to_cursor(center=center)
        self.scroll_pending = False

    def _nearest(self, entry_id: str | None) -> int | None:
        return nearest_shown_row(self.session, self.index_by_id, entry_id)

    def current_id(self) -> str | None:
        if 0 <= self.cursor < len(self.rows):
            entry_id: str = self.rows[self.cursor].record.id  # every ingested record has a string id
            return entry_id
        return None

    def select(self, entry_id: str, *, notify: bool = True) -> bool:
        if entry_id not in self.index_by_id and self.session is not None:
            self._unfold_to(entry_id)
            if entry_id not in self.index_by_id and self.view is not ViewFilter.ALL:
                self.view = ViewFilter.ALL
                self.post_message(self.FilterChanged(self, self.view))
            self.rebuild(select=entry_id, notify=False)
        index = self.index_by_id.get(entry_id)
        if index is None:
            return False
        self.move_cursor(index, notify=notify, center=True)
        return True

    def _unfold_to(self, entry_id: str) -> None:
        session = self.session
        if session is None:
            return
        for record in session.path_to(entry_id)[:-1]:
            self.folded.discard(record.id)

    # ------------------------------------------------------------------ drawing (widgets/branch_rows.py)
    def render_row(self, index: int, width: int, selected: bool) -> Strip:
        return self.painter.draw(self.rows[index], width, selected, self.marked, self.match_set)

    @property
    def costs(self) -> BranchTotals | None:
        """What each subtree spent, once built (None until then)."""
        return self.painter.costs

    @property
    def break_marks(self) -> TreeBreakMarks:
        """The replies that lost the prompt cache (widgets/tree_breaks.py)."""
        return self.painter.break_marks

    @property
    def spawn_marks(self) -> SpawnMarks:
        """Subagents, on the entries that spawned them (set by app/scan_watch.py)."""
        return self.painter.spawn_marks

    @property
    def costs_pending(self) -> bool:
        """The branch totals are being built in a worker thread."""
        return self.painter.costs_pending

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != COSTS_GROUP:
            return
        if tell_failure(self, event, "Working out what each branch spent"):
            self.painter.build_failed()

    # ------------------------------------------------------------------ keys
    def action_toggle_mark(self) -> None:
        """Mark the entry under the cursor to compare it with another (again: unmark)."""
        entry = self.current_id()
        if entry is None:
            return
        self.marked = None if self.marked == entry else entry
        self.refresh()
        self.post_message(self.MarkChanged(self, self.marked))

    def action_fold(self) -> None:
        entry = self.current_id()
        if entry is None or self.session is None:
            return
        row = self.rows[self.cursor]
        if row.child_count and not row.folded:
            self.folded.add(entry)
            self.rebuild(select=entry)
            return
        # Fold the branch this row belongs to: its nearest fork ancestor's child.
        branch_root = branch_first_entry(self.session, entry)
        if branch_root is not None:
            self.folded.add(branch_root)
            self.rebuild(select=branch_root)
        else:
            self.post_message(
                self.Note(self, "nothing to fold: no entries below this one, and no fork above it")
            )

    def action_unfold(self) -> None:
        entry = self.current_id()
        if entry is not None and entry in self.folded:
            self.folded.discard(entry)
            self.rebuild(select=entry)
        elif entry is not None:
            self.post_message(self.Note(self, "nothing to unfold: this entry is not folded"))

    def action_toggle_fold(self) -> None:
        entry = self.current_id()
        if entry is None:
            return
        if entry in self.folded:
            self.action_unfold()
        elif self.rows[self.cursor].child_count:
            self.folded.add(entry)
            self.rebuild(select=entry)

    def action_prev_fork(self) -> None:
        for index in range(self.cursor - 1, -1, -1):
            if self.rows[index].is_fork_point:
                self.move_cursor(index)
                return

    def action_next_fork(self) -> None:
        for index in range(self.cursor + 1, len(self.rows)):
            if self.rows[index].is_fork_point:
                self.move_cursor(index)
                return

    def action_active_leaf(self) -> None:
        if self.session is not None and self.session.default_leaf:
            self.select(self.session.default_leaf)

    def action_fold_or_up(self) -> None:
        """pi's `app.tree.foldOrUp`: fold this segment, or go to the segment start above."""
        if not 0 <= self.cursor < len(self.rows):
            return
        if can_fold(self.rows, self.cursor):
            entry = self.rows[self.cursor].record.id
            self.folded.add(entry)
            self.rebuild(select=entry)
            return
        self._move_to(segment_start_above(self.rows, self.cursor))

    def action_unfold_or_down(self) -> None:
        """pi's `app.tree.unfoldOrDown`: unfold, or go to the next segment start (or the end)."""
        if not 0 <= self.cursor < len(self.rows):
            return
        row = self.rows[self.cursor]
        if row.folded:
            self.folded.discard(row.record.id)
            self.rebuild(select=row.record.id)
            return
        self._move_to(segment_start_below(self.rows, self.cursor))

    def _move_to(self, index: int) -> None:
        if index != self.cursor:
            self.move_cursor(index)

    def set_view(self, view: ViewFilter) -> None:
        """Another view filter; folds are cleared, as pi does on every filter key."""
        self.view = view
        self.folded.clear()
        self.rebuild()
        self.post_message(self.FilterChanged(self, self.view))

    def action_cycle_filter(self) -> None:
        self.set_view(self.view.next())

    def action_cycle_filter_back(self) -> None:
        order = list(ViewFilter)
        self.set_view(order[(order.index(self.view) - 1) % len(order)])

    def action_set_filter(self, name: str) -> None:
        self.set_view(ViewFilter(name))

    def action_toggle_filter(self, name: str) -> None:
        """pi's filter keys: this view, or back to the default when it is on already."""
        view = ViewFilter(name)
        self.set_view(ViewFilter.DEFAULT if self.view is view else view)

    def set_matches(self, ids: list[str], select: str | None = None) -> None:
        """Search hits: unfold to each, show them whatever the filter, go to `select` (by
        default the first)."""
        self.matches = ids
        self.match_set = set(ids)
        for entry_id in ids:
            self._unfold_to(entry_id)
        self.rebuild(notify=select is None)
        target = select if select is not None else (ids[0] if ids else None)
        if target is not None:
            self.select(target)

    def action_next_match(self) -> None:
        self._jump_match(1)

    def action_prev_match(self) -> None:
        self._jump_match(-1)

    def _jump_match(self, step: int) -> None:
        if not self.matches:
            return
        positions = [self.index_by_id[m] for m in self.matches if m in self.index_by_id]
        if not positions:
            return
        positions.sort()
        if step > 0:
            target = next((p for p in positions if p > self.cursor), positions[0])
        else:
            target = next((p for p in reversed(positions) if p < self.cursor), positions[-1])
        self.move_cursor(target, center=True)

    # ------------------------------------------------------------------ messages out
    def move_cursor(self, index: int, *, notify: bool = True, center: bool = False) -> None:
        if notify and self.rows:
            # Announced before the rows are drawn again: the screen then shows the context
            # before the next frame, and one frame shows both (announced after, the context
            # waited for the frame after the tree's).
            self._announce(self.rows[max(0, min(index, len(self.rows) - 1))].record.id)
        super().move_cursor(index, notify=False, center=center)

    def _announce(self, entry_id: str) -> None:
        """`EntryHighlighted`, handed straight to the screen (bubbling up takes a turn of the
        event loop per widget, and a frame may be drawn in between)."""
        target = self.screen if self.is_attached else self
        target.post_message(self.EntryHighlighted(self, entry_id))

    def action_activate(self) -> None:
        entry = self.current_id()
        if entry is not None:
            self.post_message(self.EntryChosen(self, entry))
