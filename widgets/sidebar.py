"""The sessions sidebar: every session grouped by working directory, searchable as you type.

Each session row ends with its marks, age, messages, cost and (where there is room) tokens;
`s` sorts by recent, name, size or cost. Pinned sessions show a star and tags as `#tag`;
archived ones are listed only by a search whose mark words ask (`is:archived`, `search_rows`).
The rows come from core/listing/sidebar_rows.py; which sessions are
live from core/live/activity.py (the screen records growth there); what a search matched from
core/search/sidebar.py (the screen answers `SearchChanged` with `show_matches`, and
`PlacesWanted` with `show_places`). Under each result a hit line says where it matched (the
field, on the active path or a branch) with the matched text highlighted, cut to the row's
width when drawn. The sidebar draws, keeps its toggles (the deep scope among them) and says
what the user did. (Over 450 lines: the list, its hit lines, the search line and the toggles
share one set of rows; what they decide lives in core.)
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip

from ..core.common.glyphs import Glyphs
from ..core.common.text import age, fit_words, human_count, one_line, short_cost
from ..core.listing.lookalikes import Row, told_apart
from ..core.listing.marks import DEFAULT_FILTER, NO_MARKS, MarkFilter, Marks, kept_summaries, split_filter
from ..core.listing.sidebar_rows import (
    HIT_LINE,
    GroupRow,
    ResultRows,
    SessionRow,
    SidebarRow,
    SortOrder,
    build_rows,
)
from ..core.listing.sidebar_words import Listed, none_listed, title_wordings
from ..core.listing.summary import SessionSummary
from ..core.live.activity import Activity
from ..core.projection.window import format_tokens
from .glyphs import glyphs_of
from .keys import bindings
from .plain import FitStatic, PlainInput
from .rowlist import RowList
from .rowtext import RowText

if TYPE_CHECKING:  # (the search's modules: imported when a search runs)
    from ..core.listing.subagents import Subagents
    from ..core.search.in_session import HitPlace, Scope
    from ..core.search.sidebar import SidebarResults

WIDE_ROW = 44  # from this many cells a session row shows its tokens besides its cost
LOOKALIKE_REACH = 24  # rows either side, in its folder, a row is told apart from (a screen's worth)


def _subagents_label(row: SessionRow) -> str:
    return f" ({row.subagents} subagent{'s' if row.subagents != 1 else ''})"


def _row_of(summary: SessionSummary, glyphs: Glyphs) -> Row:
    return Row(one_line(summary.title, 400, glyphs=glyphs), summary.created, summary.id)


def clock() -> float:
    """Now, for ages and live markers (tests pin it for stable snapshots)."""
    return time.time()


class SessionList(RowList):
    """The rows of the sidebar (group headers are not selectable)."""

    COMPONENT_CLASSES = RowList.COMPONENT_CLASSES | {
        "sessionlist--group",
        "sessionlist--current-group",
        "sessionlist--dim",
        "sessionlist--live",
        "sessionlist--problem",
        "sessionlist--match",
        "sessionlist--highlight",
        "sessionlist--open",
    }

    class PlacesWanted(Message):
        """Hit lines in view whose place (entry, path or branch) is not known yet: answer
        with `SessionSidebar.show_places`."""

        def __init__(self, session_list: SessionList, results: SidebarResults, paths: list[str]) -> None:
            super().__init__()
            self.session_list = session_list
            self.results = results
            self.paths = paths

        @property
        def control(self) -> SessionList:
            return self.session_list

    def __init__(self, activity: Activity, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[SidebarRow] = []
        self.activity = activity  # which sessions are being written (kept by the screen)
        self.open_path: str | None = None
        self.results: SidebarResults | None = None  # what the hit lines show
        self.marks: Marks = NO_MARKS  # pins and tags, drawn in the rows
        self._places_check = False  # a look at the hit lines in view is scheduled
        self.now = clock()
        # Titles cut to a room, and as each row shows its own (told apart), for these rows and width:
        self._cuts: dict[tuple[int, int], str] = {}  # (row, room) -> its title cut
        self._shown: dict[int, tuple[int, str]] = {}
        self._cuts_rows: list[SidebarRow] | None = None
        self._cuts_width = 0

    def is_selectable(self, index: int) -> bool:
        return isinstance(self.rows[index], SessionRow)

    def set_rows(self, rows: list[SidebarRow], keep_path: str | None = None, at: int | None = None) -> None:
        """New rows, the cursor kept on `keep_path` if it is there (`at`: where, if known)."""
        self.rows = rows
        self.now = clock()
        self.set_row_count(len(rows))
        self.check_places()
        if keep_path is not None:
            index = at if at is not None and self._is_row_of(at, keep_path) else self.index_of(keep_path)
            if index is not None:
                self.move_cursor(index, notify=False)
                return
        if self.cursor < 0 or self.cursor >= len(rows) or not self.is_selectable(self.cursor):
            first = self.first_selectable()
            self.cursor = -1 if first is None else first
            self.scroll_to_cursor()
        self.refresh()

    # ------------------------------------------------------------------ hit lines in view
    def check_places(self) -> None:
        """Soon (once per refresh), ask for the places of the hit lines in view."""
        if self.results is not None and not self._places_check:
            self._places_check = True
            self.call_after_refresh(self._want_places)

    def _want_places(self) -> None:
        self._places_check = False
        results = self.results
        if results is None:
            return
        top = int(self.scroll_offset.y)
        rows = self.rows
        end = min(len(rows), top + max(self.scrollable_content_region.height, 1))
        results_in_view = [rows[i - 1] for i in range(max(top, 1), end) if rows[i] is HIT_LINE]
        wanted = [
            r.summary.path
            for r in results_in_view
            if isinstance(r, SessionRow) and results.place(r.summary.path) is None
        ]
        if wanted:
            self.post_message(self.PlacesWanted(self, results, wanted))

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self.check_places()

    def on_resize(self, event: events.Resize) -> None:  # RowList's handler runs too
        self.check_places()

    def _is_row_of(self, index: int, path: str) -> bool:
        row = self.rows[index] if 0 <= index < len(self.rows) else None
        return isinstance(row, SessionRow) and row.summary.path == path

    def index_of(self, path: str) -> int | None:
        for index, row in enumerate(self.rows):
            if isinstance(row, SessionRow) and row.summary.path == path:
                return index
        return None

    def current(self) -> SessionSummary | None:
        if 0 <= self.cursor < len(self.rows):
            row = self.rows[self.cursor]
            if isinstance(row, SessionRow):
                return row.summary
        return None

    def render_row(self, index: int, width: int, selected: bool) -> Strip:
        row = self.rows[index]
        base = self.row_style(selected)
        g = self.glyphs
        text = RowText(base, g)
        if isinstance(row, GroupRow):
            style = self.style("sessionlist--current-group" if row.is_current else "sessionlist--group")
            text.add(row.title, style)
            text.right(str(row.count), self.style("sessionlist--dim"))
            return text.strip(width)
        if row is HIT_LINE:
            # Where the result above matched, drawn as part of it (selected with it).
            above = self.rows[index - 1] if index > 0 else None
            text = RowText(self.row_style(index - 1 == self.cursor), g)
            return (
                self._render_hit(above, width, text) if isinstance(above, SessionRow) else text.strip(width)
            )
        if not isinstance(row, SessionRow):
            return text.strip(width)
        summary = row.summary
        if row.depth:
            text.add(" " + "  " * (row.depth - 1) + g.child, self.style("sessionlist--dim"), raw=True)
        else:
            text.add(" ", raw=True)
        marker = self._marker(summary)
        if marker is not None:
            live = marker == g.live
            text.add(marker + " ", self.style("sessionlist--live" if live else "sessionlist--open"), raw=True)
        dim = not summary.name and not selected
        mark = self.marks.of(summary.id) if self.marks else None
        if mark is not None and mark.pinned:
            text.add(g.pin + " ", self.style("sessionlist--open"), raw=True)
        if row.subagents:
            text.add(
                (g.unfolded if row.expanded else g.folded) + " ", self.style("sessionlist--dim"), raw=True
            )
        text.add(self._shown_title(index, width), self.style("sessionlist--dim") if dim else None)
        if row.subagents:
            text.add(_subagents_label(row), self.style("sessionlist--dim"), raw=True)
        if mark is not None and mark.tags:
            text.add(" " + " ".join("#" + tag for tag in mark.tags), self.style("sessionlist--match"))
        text.right(
            self._meta(row, width),
            self.style("sessionlist--problem")
            if summary.problems and not selected
            else self.style("sessionlist--dim"),
        )
        return text.strip(width)

    def _marker(self, summary: SessionSummary) -> str | None:
        """The live marker, or the open one, before the title."""
        if self.activity.is_live(summary.path, self.now):
            return self.glyphs.live
        return self.glyphs.active if summary.path == self.open_path else None

    def _meta(self, row: SessionRow, width: int) -> str:
        """The row's right-aligned tail: its marks, age, messages, cost and tokens."""
        summary, g = row.summary, self.glyphs
        flags = ""
        if summary.is_fork and not row.depth and not row.subagent:
            flags += g.fork
        if summary.tip_count > 1:
            flags += g.branches
        if summary.problems:
            flags += g.problem
        seconds = self.now - summary.modified_ms / 1000
        meta = f"{flags} {age(seconds):>3} {human_count(summary.message_count):>4}"
        # What the session spent: its cost, and its tokens where the row has room for them.
        spent = short_cost(summary.cost)
        if width >= WIDE_ROW:
            return meta + f" {format_tokens(summary.tokens) if summary.tokens else '':>4} {spent:>5}"
        return meta + f" {spent:>5}"

    def _title_room(self, row: SessionRow, width: int) -> int:
        """The cells the title of `row` has (as `RowText.strip` lays the row out)."""
        meta = cell_len(one_line(self._meta(row, width), 80, glyphs=self.glyphs))  # (as `right` shows it)
        room = width - (meta + 1 if meta <= width // 2 else 0)
        lead = 1 + (2 * (row.depth - 1) + cell_len(self.glyphs.child) if row.depth else 0)
        marker = self._marker(row.summary)
        lead += cell_len(marker) + 1 if marker is not None else 0
        mark = self.marks.of(row.summary.id) if self.marks else None
        lead += cell_len(self.glyphs.pin) + 1 if mark is not None and mark.pinned else 0
        if row.subagents:  # the fold mark before the title, the count after it
            lead += cell_len(self.glyphs.unfolded if row.expanded else self.glyphs.folded) + 1
            lead += cell_len(_subagents_label(row))
        return max(room - lead, 0)

    def _cut_title(self, index: int, width: int, room: int) -> str:
        """Row `index`'s title cut to `room` cells (kept: its neighbours are cut to the same
        rooms, a few in all, for these rows and width)."""
        if self._cuts_rows is not self.rows or self._cuts_width != width:
            self._cuts_rows, self._cuts_width, self._cuts, self._shown = self.rows, width, {}, {}
        cut = self._cuts.get((index, room))
        if cut is None:
            row = self.rows[index]
            assert isinstance(row, SessionRow)
            title = one_line(row.summary.title, 400, glyphs=self.glyphs)
            cut = self._cuts[(index, room)] = fit_words(title, room, cell_len, glyphs=self.glyphs)
        return cut

    def _shown_title(self, index: int, width: int) -> str:
        """The title as row `index` shows it: cut to its room, and where a session of its
        folder close by would show the same words, with what tells them apart
        (core/listing/lookalikes.py). Kept until the rows, the width or its room change."""
        row = self.rows[index]
        assert isinstance(row, SessionRow)
        room = self._title_room(row, width)
        cut = self._cut_title(index, width, room)
        known = self._shown.get(index)
        if known is not None and known[0] == room:
            return known[1]
        twins: list[Row] = []
        rows = self.rows
        for step in (-1, 1):
            j = index + step
            while (
                0 <= j < len(rows) and abs(j - index) <= LOOKALIKE_REACH and not isinstance(rows[j], GroupRow)
            ):
                other = rows[j]
                # (read the same: cut alike in this row's room)
                if isinstance(other, SessionRow) and self._cut_title(j, width, room) == cut:
                    twins.append(_row_of(other.summary, self.glyphs))
                j += step
        shown = told_apart(_row_of(row.summary, self.glyphs), twins, room, cell_len, glyphs=self.glyphs)
        self._shown[index] = (room, shown if twins else cut)
        return shown if twins else cut

    def _render_hit(self, row: SessionRow, width: int, text: RowText) -> Strip:
        """`   tool result: …the matched words…      branch from 1a2b3c4d`: the field (but
        for a message, the usual), the excerpt centred on the match (cut again for every
        width), the place."""
        results = self.results
        hit = results.hit(row.summary.path) if results is not None else None
        indent = "   " + "  " * row.depth
        text.add(indent, raw=True)
        if hit is None:
            return text.strip(width)
        # (the search's modules, imported once there are results: not at every start)
        from ..core.search.excerpt import cell_width
        from ..core.search.landing import place_words
        from ..core.search.sidebar import field_words
        from ..core.search.texts import FIELD_MESSAGE

        where = field_words(hit.field)
        dim = self.style("sessionlist--dim")
        tag = place_words(results.place(row.summary.path) if results is not None else None)
        label = f"{where}: " if where and hit.field != FIELD_MESSAGE else ""  # a message says nothing
        room = width - cell_width(indent) - cell_width(label) - (cell_width(tag) + 1 if tag else 0)
        excerpt = hit.excerpt(max(room, 8))
        text.add(label, self.style("sessionlist--match"), raw=True)
        if excerpt is not None:
            excerpt = excerpt.marked(self.glyphs.ellipsis)
            highlight = self.style("sessionlist--highlight")
            at = 0
            for start, end in sorted(excerpt.spans):
                if start < at or end <= start:
                    continue
                text.add(excerpt.text[at:start], raw=True)
                text.add(excerpt.text[start:end], highlight, raw=True)
                at = end
            text.add(excerpt.text[at:], raw=True)
        if tag:
            text.right(tag, dim)
        return text.strip(width)


class SessionSidebar(Vertical):
    """Search box, toggles and the session list. Posts `SessionHighlighted` as the cursor
    moves and `SessionChosen` on enter."""

    BINDINGS = bindings("sessions")

    only_current: reactive[bool] = reactive(False)
    named_only: reactive[bool] = reactive(False)
    order: reactive[SortOrder] = reactive(SortOrder.RECENT)
    deep: reactive[bool] = reactive(False)  # search tool output, thinking, labels... too

    class SessionMessage(Message):
        def __init__(self, sidebar: SessionSidebar, summary: SessionSummary) -> None:
            super().__init__()
            self.sidebar = sidebar
            self.summary = summary

        @property
        def control(self) -> SessionSidebar:
            return self.sidebar

    class SessionHighlighted(SessionMessage):
        """The cursor is on another session."""

    class SessionChosen(SessionMessage):
        """Enter on a session."""

    class Note(Message):
        """A key changed what is listed, and `text` says how (for the status line: what it
        said before is about something else now)."""

        def __init__(self, sidebar: SessionSidebar, text: str) -> None:
            super().__init__()
            self.sidebar = sidebar
            self.text = text

        @property
        def control(self) -> SessionSidebar:
            return self.sidebar

    class SearchOpened(Message):
        """The search line opened: a query is coming (the screen gets the index ready)."""

    class SearchChanged(Message):
        """The search line holds a new query, or the scope changed: answer with
        `show_matches` (a blank query: the search is over)."""

        def __init__(self, sidebar: SessionSidebar, query: str, scope: Scope) -> None:
            super().__init__()
            self.sidebar = sidebar
            self.query = query
            self.scope = scope

        @property
        def control(self) -> SessionSidebar:
            return self.sidebar

    def __init__(self, current_cwd: str | None, activity: Activity, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.current_cwd = current_cwd
        self.activity = activity
        self.summaries: list[SessionSummary] = []
        self.full_rows: list[SidebarRow] = []  # every row, before a search keeps its results
        self.result_rows = ResultRows(self.full_rows)  # those rows, ready for searches
        self.matches: SidebarResults | None = None
        self.status = ""
        self.status_short = ""  # the status's shorter wording, for a narrow title
        self.key_of: Callable[[str], str] = lambda binding_id: ""  # a binding's key (the screen's)
        self.marks: Marks = NO_MARKS  # pins, archive marks and tags (app/marks_flow.py sets them)
        self._filtered: tuple[MarkFilter, ResultRows] | None = None  # a mark filter's rows
        # Subagent sessions by their parent's path (app/scan_watch.py finds them), folded
        # under it unless its path is in `expanded` (space on the row).
        self.subagent_children: dict[str, list[SessionSummary]] = {}
        self.expanded: set[str] = set()
        self.subagents: Subagents | None = None
        # Sessions of the extra roots (config `extra_roots`), each path's label.
        self.extra: list[SessionSummary] = []
        self.root_labels: dict[str, str] = {}

    def compose(self) -> ComposeResult:
        yield FitStatic("", id="sidebar-title", classes="pane-title")
        yield PlainInput(placeholder='search: words, "a phrase", re:regex, @7d', id="sidebar-search")
        yield SessionList(self.activity, id="session-list")

    def focus_target(self) -> SessionList:
        return self.session_list

    @property
    def session_list(self) -> SessionList:
        return self.query_one(SessionList)

    @property
    def search_input(self) -> PlainInput:
        return self.query_one("#sidebar-search", PlainInput)

    def on_mount(self) -> None:
        self.search_input.display = False
        self.set_interval(5.0, self._tick)

    def _tick(self) -> None:
        self.session_list.now = clock()
        self.session_list.refresh()

    # ------------------------------------------------------------------ data in
    def set_summaries(
        self,
        summaries: Sequence[SessionSummary],
        *,
        keep_current: bool = True,
        rows: list[SidebarRow] | None = None,
    ) -> None:
        """List `summaries` (`rows`: `rows_for(summaries)`, made already)."""
        self.summaries = list(summaries)
        if self.only_current and not self._lists_current_cwd(self.summaries):
            self.only_current = False  # (its watch lists them again)
            rows = None
        self.rebuild(keep_current=keep_current, rows=rows)

    def rows_for(self, summaries: Sequence[SessionSummary]) -> list[SidebarRow]:
        """The rows `set_summaries(summaries)` would list, the list shown left as it is."""
        only_current = self.only_current and self._lists_current_cwd(summaries)
        return self._build_rows(summaries, only_current)

    def _lists_current_cwd(self, summaries: Sequence[SessionSummary]) -> bool:
        folders = {s.cwd for s in summaries}  # (a few hundred for 30,000 sessions)
        return not self.current_cwd or any(_same_dir(cwd, self.current_cwd) for cwd in folders)

    @property
    def scope(self) -> Scope:
        return "deep" if self.deep else "default"

    def _build_rows(
        self, summaries: Sequence[SessionSummary], only_current: bool, wanted: MarkFilter = DEFAULT_FILTER
    ) -> list[SidebarRow]:
        marks = self.marks
        if self.extra:
            summaries = [*summaries, *self.extra]
        if marks or wanted != DEFAULT_FILTER:  # archived sessions only when asked (`is:archived`)
            summaries = kept_summaries(summaries, marks, wanted)
        return build_rows(
            summaries,
            current_cwd=self.current_cwd,
            only_current=only_current,
            named_only=self.named_only,
            order=self.order,
            pinned=marks.pinned if marks else frozenset(),
            children=self.subagent_children,
            expanded=self.expanded,
            labels=self.root_labels,
        )

    def set_extra_roots(self, roots: Sequence[tuple[str, Sequence[SessionSummary]]]) -> None:
        """The sessions of the extra roots, each (label, its sessions): listed, labelled."""
        extra = [s for _, summaries in roots for s in summaries]
        labels = {s.path: label for label, summaries in roots for s in summaries}
        if labels == self.root_labels and extra == self.extra:
            return
        self.extra, self.root_labels = extra, labels
        self.rebuild()

    def set_subagents(self, subagents: Subagents) -> None:
        """The subagent sessions found: folded under their parents."""
        self.subagents = subagents
        children = {p: [c.summary for c in kids] for p, kids in subagents.by_parent().items()}
        if children == self.subagent_children:
            return
        self.subagent_children = children
        self.rebuild()

    def parent_of(self, path: str) -> str | None:
        for parent, kids in self.subagent_children.items():
            if any(kid.path == path for kid in kids):
                return parent
        return None

    def action_toggle_subagents(self) -> None:
        """Fold or unfold the subagents of the session under the cursor (on a subagent: its
        parent's, the cursor going to the parent)."""
        current = self.session_list.current()
        if current is None:
            return
        path = current.path
        if path not in self.subagent_children:
            parent = self.parent_of(path)
            if parent is None:
                return
            self.expanded.discard(parent)
            self.rebuild(keep_current=False)
            self.select_path(parent)
            return
        if path in self.expanded:
            self.expanded.discard(path)
        else:
            self.expanded.add(path)
        self.rebuild()

    def set_marks(self, marks: Marks) -> None:
        """New pins, archive marks or tags: the rows again, the search's too."""
        self.marks = self.session_list.marks = marks
        self.rebuild()
        if self.matches is not None and self.search_input.value.strip():
            self.post_message(self.SearchChanged(self, self.search_input.value, self.scope))

    def search_rows(self, text: str) -> tuple[str, ResultRows]:
        """The query without its mark words (`tag:auth`, `is:pinned`, `is:archived`), and the
        rows it searches: the listed ones, or those its mark words keep."""
        rest, wanted = split_filter(text)
        if wanted is None:
            return text, self.result_rows
        known = self._filtered
        if known is None or known[0] != wanted:
            rows = self._build_rows(self.summaries, self.only_current, wanted)
            known = self._filtered = (wanted, ResultRows(rows))
        return rest, known[1]

    def rebuild(self, *, keep_current: bool = True, rows: list[SidebarRow] | None = None) -> None:
        if rows is None:
            rows = self._build_rows(self.summaries, self.only_current)
        self.full_rows = rows
        self.result_rows = ResultRows(rows)
        self._filtered = None
        self._show_rows(keep_current=keep_current)

    def _show_rows(
        self, rows: list[SidebarRow] | None = None, *, keep_current: bool = True, at: int | None = None
    ) -> None:
        """The full rows, or a search's results of them (`rows`: made from `result_rows` already,
        the current session at `at` if known)."""
        current = self.session_list.current() if keep_current else None
        if rows is None:
            matches = self.matches
            rows = self.full_rows if matches is None else matches.rows_of(self.search_rows(matches.text)[1])
        self.session_list.results = self.matches
        if self.summaries and self.matches is None and not any(isinstance(row, SessionRow) for row in rows):
            self.session_list.placeholder = none_listed(self._listed(0), self.current_cwd or "", self.key_of)
        self.session_list.set_rows(rows, keep_path=current.path if current else None, at=at)
        self._update_title()

    @property
    def lists_none(self) -> bool:
        """Sessions there are, and none is listed (a filter or the folder keeps them all out)."""
        return bool(self.summaries) and not any(isinstance(row, SessionRow) for row in self.full_rows)

    def shown_summaries(self) -> list[SessionSummary]:
        """The listed sessions in the order shown (what a deep search reads, top first)."""
        return [row.summary for row in self.full_rows if isinstance(row, SessionRow)]

    def _listed(self, shown: int) -> Listed:
        window = self.matches.query.window_ms if self.matches is not None else None
        within = ""
        if window is not None:
            from ..core.search.sidebar import describe_window

            within = describe_window(window)
        return Listed(
            shown, len(self.summaries), self.only_current, self.named_only, self.order, self.deep,
            within, self.status, self.status_short,
        )  # fmt: skip

    def _update_title(self) -> None:
        rows = self.session_list.rows
        # A search's rows: one hit line per session (counted at C speed, 20,000 of them).
        shown = rows.count(HIT_LINE) if self.matches is not None else list(map(type, rows)).count(SessionRow)
        full, *shorter = title_wordings(self._listed(shown), f" {glyphs_of(self).dot} ")
        self.query_one("#sidebar-title", FitStatic).update(full, shorter=shorter)

    def set_status(self, status: str, short: str = "") -> None:
        """What the title ends with (`short`: its shorter wording, where the title is narrow)."""
        self.status, self.status_short = status, short
        self._update_title()

    def set_open(self, path: str | None) -> None:
        self.session_list.open_path = path
        self.session_list.refresh()

    def select_path(self, path: str) -> bool:
        index = self.session_list.index_of(path)
        if index is None and (self.matches is not None or self.only_current or self.named_only):
            self.matches = None
            self.post_message(self.SearchChanged(self, "", self.scope))
            self.only_current = self.named_only = False
            self.search_input.value = ""
            self.rebuild()
            index = self.session_list.index_of(path)
        if index is None:
            return False
        self.session_list.move_cursor(index, notify=False, center=True)
        return True

    # ------------------------------------------------------------------ toggles and search
    def watch_only_current(self) -> None:
        if self.is_mounted:
            self.rebuild()

    def watch_named_only(self) -> None:
        if self.is_mounted:
            self.rebuild()

    def watch_order(self) -> None:
        if self.is_mounted:
            self.rebuild()

    def _note(self, text: str) -> None:
        """Say what a key changed in the listing (nothing when there is no session at all: the
        status line says so and keeps saying it)."""
        if self.summaries:
            self.post_message(self.Note(self, text))

    def action_toggle_scope(self) -> None:
        self.only_current = not self.only_current
        if not self.only_current:
            self._note("every folder's sessions")
        elif self.lists_none:
            again = self.key_of("sessions.scope")
            note = f"no sessions in this folder ({self.current_cwd})"
            self._note(note + (f": {again} lists every folder's" if again else ""))
        else:
            self._note(f"this folder's sessions ({self.current_cwd})")

    def action_toggle_named(self) -> None:
        self.named_only = not self.named_only
        self._note("named sessions only" if self.named_only else "named and unnamed sessions")

    def action_cycle_sort(self) -> None:
        self.order = self.order.next()
        self._note(f"sorted {_ORDER_WORDS[self.order]}")

    def watch_deep(self) -> None:
        if not self.is_mounted:
            return
        self._update_title()
        if self.search_input.value.strip():
            self.post_message(self.SearchChanged(self, self.search_input.value, self.scope))

    def action_toggle_deep(self) -> None:
        self.deep = not self.deep
        what = "tool output, thinking and labels too" if self.deep else "titles and messages"
        self._note(f"search: {what}")

    def action_search(self) -> None:
        self.search_input.display = True
        self.search_input.focus()
        self.post_message(self.SearchOpened())

    def action_clear_search(self) -> None:
        self.search_input.value = ""
        self.search_input.display = False
        self._search_over()
        self.session_list.focus()

    def _search_over(self) -> None:
        had = self.matches is not None or self.status
        self.matches = None
        self.status = self.status_short = ""
        if had:
            self._show_rows(keep_current=True)
        self.post_message(self.SearchChanged(self, "", self.scope))

    def on_input_changed(self, event: PlainInput.Changed) -> None:
        if event.input is not self.search_input:
            return
        event.stop()
        if not event.value.strip():
            self._search_over()
        else:
            self.post_message(self.SearchChanged(self, event.value, self.scope))

    def is_current(self, results: SidebarResults) -> bool:
        """Is this the answer to what the search line holds now (else typed on since)?"""
        return results.text == self.search_input.value and results.scope == self.scope

    def show_matches(
        self,
        results: SidebarResults,
        rows: list[SidebarRow] | None = None,
        based_on: ResultRows | None = None,
        at: int | None = None,
    ) -> None:
        """What the query matched (or why nothing can). `rows`: its rows, filtered already
        from `based_on` (used if those are still the rows shown), the current session at
        `at` if known."""
        if not self.is_current(results):
            return  # typed on since: a newer answer is on its way
        if results.error is not None:
            self.set_status("invalid search" + (f" ({_cut_note()})" if results.query.cut else ""))
            return
        self.matches = results
        self.status, self.status_short = self._found_words(results), self._found_words(results, brief=True)
        fresh = based_on is self.search_rows(results.text)[1]
        self._show_rows(rows if fresh else None, keep_current=True, at=at if fresh else None)

    def show_progress(self, results: SidebarResults) -> None:
        """A deep search read more files (and maybe found more: `show_matches` again)."""
        if results is self.matches:
            self.set_status(self._found_words(results), self._found_words(results, brief=True))

    def show_places(self, results: SidebarResults, places: dict[str, HitPlace]) -> None:
        if results is self.matches:
            results.places.update(places)
            self.session_list.refresh()

    def _found_words(self, results: SidebarResults, *, brief: bool = False) -> str:
        """How many the search found (`brief`: that alone, without the files read so far)."""
        found = f"{len(results)} found" + (f", {_cut_note()}" if results.query.cut and not brief else "")
        if results.done or brief:
            return found + ("" if results.done else glyphs_of(self).ellipsis)
        progress = results.progress
        return f"{found}, {progress.scanned:,}/{progress.total:,} files read{glyphs_of(self).ellipsis}"

    def on_input_submitted(self, event: PlainInput.Submitted) -> None:
        """Enter in the search line: the result under the cursor is chosen (as in pi)."""
        if event.input is self.search_input:
            event.stop()
            self.session_list.focus()
            summary = self.session_list.current()
            if self.matches is not None and summary is not None:
                self.post_message(self.SessionChosen(self, summary))

    def on_key(self, event: events.Key) -> None:
        if event.key in ("down", "up") and self.search_input.has_focus:
            # Into the list. With hits, on the row the cursor is on already (the first hit, shown
            # highlighted while typing): Down lands there, not on the second. Without, a move.
            self.session_list.focus()
            if self.matches is None:
                if event.key == "down":
                    self.session_list.action_cursor_down()
                else:
                    self.session_list.action_cursor_up()
            elif (summary := self.session_list.current()) is not None:
                self.post_message(self.SessionHighlighted(self, summary))
            event.stop()

    # ------------------------------------------------------------------ messages out
    def on_row_list_cursor_moved(self, event: RowList.CursorMoved) -> None:
        if event.row_list is not self.session_list:
            return
        event.stop()
        summary = self.session_list.current()
        if summary is not None:
            self.post_message(self.SessionHighlighted(self, summary))

    def on_row_list_activated(self, event: RowList.Activated) -> None:
        if event.row_list is not self.session_list:
            return
        event.stop()
        summary = self.session_list.current()
        if summary is not None:
            self.post_message(self.SessionChosen(self, summary))


_ORDER_WORDS = {
    SortOrder.RECENT: "newest first",
    SortOrder.NAME: "by name",
    SortOrder.SIZE: "by size, most messages first",
    SortOrder.COST: "by cost, most expensive first",
}


def _same_dir(a: str, b: str) -> bool:
    return bool(a) and os.path.normpath(a) == os.path.normpath(b)


def _cut_note() -> str:
    from ..core.search.query import QUERY_CUT_NOTE  # (loaded by the search already)

    return QUERY_CUT_NOTE
