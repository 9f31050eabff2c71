"""How one row of the branch tree looks: guides, kind, label, marks, the entry's excerpt (read
back once) and, on the first row of a branch below a fork point, what that branch spent.

`BranchRows` draws for `BranchTree` (widgets/branch_tree.py), which hands it the row and what
the row shows besides (the mark, the search matches). The branch totals
(core/projection/branch_costs.py) are built once per tree, here for a small session and in a
worker thread for a big one, the first time such a row is drawn; a failing build is told in a
notification (widgets/worker_failures.py). Its marks: edits, a reply that lost the prompt cache
(widgets/tree_breaks.py, as core/projection/cache_breaks.py decides) and the subagents an entry
spawned (widgets/spawn_marks.py).
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len
from textual.strip import Strip
from textual.worker import get_current_worker

from ..core.common.text import one_line, short_cost
from ..core.projection.branch_costs import BranchTotals, branch_totals
from ..core.projection.window import format_tokens
from ..core.session.describe import Excerpts, kind_label
from ..core.session.outline import GUIDE_LEVELS, OutlineRow
from ..core.session.session import Session
from .rowlist import RowList
from .rowtext import RowText
from .spawn_marks import SpawnMarks
from .tree_breaks import TreeBreakMarks

KIND_STYLES = {
    "user": "tree--user",
    "assistant": "tree--assistant",
    "tool": "tree--tool",
    "bash": "tree--tool",
    "system": "tree--system",
    "compaction": "tree--compaction",
    "branch": "tree--compaction",
}
WIDE_ROW = 48  # from this many cells a branch's first row shows its tokens besides its cost
SYNC_COSTS = 5000  # entries: up to this many, branch totals are built as the tree is drawn
COSTS_GROUP = "branch-costs"  # the worker group of the build in a thread


class BranchRows:
    """Draws the rows of `widget` (its styles, glyphs and workers) for the session it shows."""

    def __init__(self, widget: RowList) -> None:
        self.widget = widget
        self.session: Session | None = None
        self.excerpts = Excerpts()
        self.costs: BranchTotals | None = None  # what each subtree spent, once built
        self.costs_pending = False  # being built in a worker thread
        self._failed: tuple[int, int] | None = None  # (generation, tree version) whose build failed
        self.break_marks = TreeBreakMarks(widget)  # the replies that lost the prompt cache
        self.spawn_marks = SpawnMarks()  # subagents, on the entries that spawned them (app/scan_watch.py)

    def show(self, session: Session | None) -> None:
        """Rows of `session` from now on: nothing read back or built for another is kept."""
        self.session = session
        self.excerpts.reset(session)
        self.costs, self._failed = None, None
        self.break_marks.clear()

    def draw(
        self, row: OutlineRow, width: int, selected: bool, marked: str | None, matches: set[str]
    ) -> Strip:
        """`row` at `width` cells; `marked` is the entry marked to compare, `matches` the hits."""
        widget = self.widget
        style = widget.style
        record = row.record
        g = widget.glyphs
        text = RowText(widget.row_style(selected), g)
        guide = style("tree--guide")
        text.add(g.active if row.on_active_path else " ", style("tree--active"), raw=True)
        text.add(" ", raw=True)
        hidden, guides = row.drawn_guides(max(1, min(GUIDE_LEVELS, width // 9)))  # a third of the row
        if hidden:
            text.add(f"{g.ellipsis}{hidden} ", guide, raw=True)
        for continues in guides:
            text.add(g.pipe if continues else g.blank, guide, raw=True)
        if row.branch_start:
            text.add(g.last_branch if row.last_branch else g.branch, guide, raw=True)
        if row.folded:
            text.add(f"{g.folded} ", style("tree--marker"), raw=True)
        kind = kind_label(record)
        text.add(f"{one_line(kind, 24, glyphs=g):<9} ", style(KIND_STYLES.get(kind, "tree--other")), raw=True)
        session = self.session
        label = session.labels.get(record.id) if session else None
        if label:
            # A cell of its own, then a space: never glued to the entry's text.
            text.add(g.label + one_line(str(label), 24, glyphs=g), style("tree--label"))
            text.add(" ", raw=True)
        if record.id == marked:
            text.add(g.mark + " ", style("tree--mark"), raw=True)
        for marker in self._markers(row):
            text.add(marker + " ", style("tree--marker"), raw=True)
        body_style = style("tree--match") if record.id in matches else None
        text.add(self.excerpts.of(record, g), body_style)
        mark = ""
        if row.folded:
            mark = f"+{row.hidden_count}"
        elif row.is_fork_point:
            mark = f"{g.branches}{row.child_count}"
        spent = (
            self.branch_spent(record.id, width, width // 2 - cell_len(mark) - 1) if row.branch_start else ""
        )
        text.right(mark, style("tree--dim"))
        if spent:
            text.right((" " if mark else "") + spent, style("tree--cost"), raw=True)
        return text.strip(width)

    def _markers(self, row: OutlineRow) -> Iterable[str]:
        record = row.record
        edits = self.session.edit_counts.get(record.id) if self.session is not None else None
        g = self.widget.glyphs
        if edits:
            yield g.edit + (str(edits) if edits > 1 else "")
        if record.type == "message" and self.break_marks.get(self.session, record.id) is not None:
            yield g.cache_break
        yield from self.spawn_marks.names(self.session, record.id, g)

    # ------------------------------------------------------------------ what a branch spent
    def branch_spent(self, entry_id: str, width: int, room: int) -> str:
        """What the branch starting at this row spent, in at most `room` cells: tokens and cost
        on a wide row, the cost alone ("" until the totals are built, or when nothing was spent)."""
        costs = self._costs()
        branch = costs.branch(entry_id) if costs is not None else None
        if branch is None or not (branch.totals.cost > 0 or branch.totals.tokens > 0):
            return ""
        cost, tokens = short_cost(branch.totals.cost), format_tokens(branch.totals.tokens)
        # A narrow row keeps its room for the entry's text: the cost alone.
        forms = (f"{tokens} {cost}".strip(), cost) if width >= WIDE_ROW else (cost or tokens,)
        for text in forms:
            if text and cell_len(text) <= room:
                return text
        return ""

    def _costs(self) -> BranchTotals | None:
        """The session's subtree totals, current; built here for a small session, else asked
        for from a worker thread (None until it is done)."""
        session = self.session
        if session is None:
            return None
        costs = self.costs
        if costs is not None and (costs.generation, costs.tree_version) == (
            session.generation,
            session.tree_version,
        ):
            return costs.current(session)  # entries appended since: added in place
        if len(session.records) <= SYNC_COSTS:
            self.costs = branch_totals(session)
            return self.costs
        if not self.costs_pending and self._failed != (session.generation, session.tree_version):
            self.costs_pending = True
            self.widget.run_worker(
                lambda: self._build_costs(session),
                "build_costs",
                COSTS_GROUP,
                exclusive=True,
                thread=True,
                exit_on_error=False,
            )
        return None

    def _build_costs(self, session: Session) -> None:
        """One walk over the tree's structure in memory (no file is read), in a worker thread."""
        try:
            costs: BranchTotals | None = branch_totals(session)
        except (RuntimeError, KeyError):  # the loop changed the tree meanwhile: next time
            costs = None
        if not get_current_worker().is_cancelled:
            self.widget.app.call_from_thread(self._costs_built, session, costs)

    def build_failed(self) -> None:
        """The build in a thread raised (and the tree told the user): not tried again until the
        tree changes, or every frame would fail once more."""
        self.costs_pending = False
        session = self.session
        self._failed = (session.generation, session.tree_version) if session is not None else None

    def _costs_built(self, session: Session, costs: BranchTotals | None) -> None:
        self.costs_pending = False
        if session is self.session and costs is not None:
            self.costs = costs
            self.widget.refresh()
