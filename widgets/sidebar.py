"""The sessions sidebar: every session grouped by working directory, searchable as you type.

Each session row ends with its marks, age, messages, cost and (where there is room) tokens;
`s` sorts by recent, name, size or cost. The rows come from core/groups.py; which sessions are
live from core/activity.py (the screen records growth there); what a search matched from
core/sidebar_search.py (the screen answers `SearchChanged` with `show_matches`). The sidebar
draws, keeps its toggles and says what the user did.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence

from rich.style import Style
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip

from ..core.activity import Activity
from ..core.groups import GroupRow, SessionRow, SidebarRow, SortOrder, build_rows
from ..core.listing import SessionSummary
from ..core.models import format_tokens
from ..core.text import age, human_count, short_cost
from .glyphs import glyphs_of
from .keys import bindings
from .plain import FitStatic, PlainInput, PlainStatic
from .rowlist import RowList
from .rowtext import RowText

WIDE_ROW = 44  # from this many cells a session row shows its tokens besides its cost


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
        "sessionlist--open",
    }

    def __init__(self, activity: Activity, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[SidebarRow] = []
        self.activity = activity  # which sessions are being written (kept by the screen)
        self.open_path: str | None = None
        self.now = clock()

    def is_selectable(self, index: int) -> bool:
        return isinstance(self.rows[index], SessionRow)

    def set_rows(self, rows: list[SidebarRow], keep_path: str | None = None) -> None:
        self.rows = rows
        self.now = clock()
        self.set_row_count(len(rows))
        if keep_path is not None:
            index = self.index_of(keep_path)
            if index is not None:
                self.move_cursor(index, notify=False)
                return
        if self.cursor < 0 or self.cursor >= len(rows) or not self.is_selectable(self.cursor):
            first = next((i for i in range(len(rows)) if self.is_selectable(i)), -1)
            self.cursor = first
        self.refresh()

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

    def style(self, name: str) -> Style:
        return self.get_component_rich_style(name, partial=True)

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
        summary = row.summary
        if row.depth:
            text.add(" " + "  " * (row.depth - 1) + g.child, self.style("sessionlist--dim"), raw=True)
        else:
            text.add(" ", raw=True)
        if self.activity.is_live(summary.path, self.now):
            text.add(g.live + " ", self.style("sessionlist--live"), raw=True)
        elif summary.path == self.open_path:
            text.add(g.active + " ", self.style("sessionlist--open"), raw=True)
        dim = not summary.name and not selected
        text.add(summary.title, self.style("sessionlist--dim") if dim else None)
        if row.matched:
            text.add("  ", raw=True)
            text.add(row.matched, self.style("sessionlist--match"))
        flags = ""
        if summary.is_fork and not row.depth:
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
            meta += f" {format_tokens(summary.tokens) if summary.tokens else '':>4} {spent:>5}"
        else:
            meta += f" {spent:>5}"
        text.right(
            meta,
            self.style("sessionlist--problem")
            if summary.problems and not selected
            else self.style("sessionlist--dim"),
        )
        return text.strip(width)


class SessionSidebar(Vertical):
    """Search box, toggles and the session list. Posts `SessionHighlighted` as the cursor
    moves and `SessionChosen` on enter."""

    BINDINGS = bindings("sessions")

    only_current: reactive[bool] = reactive(False)
    named_only: reactive[bool] = reactive(False)
    order: reactive[SortOrder] = reactive(SortOrder.RECENT)

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

    class SearchChanged(Message):
        """The search line holds a new query: answer with `show_matches`."""

        def __init__(self, sidebar: SessionSidebar, query: str) -> None:
            super().__init__()
            self.sidebar = sidebar
            self.query = query

        @property
        def control(self) -> SessionSidebar:
            return self.sidebar

    def __init__(self, current_cwd: str | None, activity: Activity, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.current_cwd = current_cwd
        self.activity = activity
        self.summaries: list[SessionSummary] = []
        self.matches: Mapping[str, str] | None = None
        self.status = ""

    def compose(self) -> ComposeResult:
        yield FitStatic("", id="sidebar-title", classes="pane-title")
        yield PlainInput(placeholder='search: words, "a phrase", re:regex', id="sidebar-search")
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
    def set_summaries(self, summaries: Sequence[SessionSummary], *, keep_current: bool = True) -> None:
        self.summaries = list(summaries)
        if self.current_cwd and not any(_same_dir(s.cwd, self.current_cwd) for s in self.summaries):
            self.only_current = False
        self.rebuild(keep_current=keep_current)

    def rebuild(self, *, keep_current: bool = True) -> None:
        current = self.session_list.current() if keep_current else None
        rows = build_rows(
            self.summaries,
            current_cwd=self.current_cwd,
            only_current=self.only_current,
            named_only=self.named_only,
            order=self.order,
            matches=self.matches,
        )
        self.session_list.set_rows(rows, keep_path=current.path if current else None)
        self._update_title()

    def _update_title(self) -> None:
        shown = sum(1 for r in self.session_list.rows if isinstance(r, SessionRow))
        scope = "this folder" if self.only_current else "all folders"
        bits = [f"Sessions {shown}" + (f"/{len(self.summaries)}" if shown != len(self.summaries) else "")]
        bits.append(scope)
        if self.named_only:
            bits.append("named")
        if self.order is not SortOrder.RECENT:
            bits.append(f"by {self.order}")
        if self.status:
            bits.append(self.status)
        self.query_one("#sidebar-title", PlainStatic).update(f" {glyphs_of(self).dot} ".join(bits))

    def set_status(self, status: str) -> None:
        self.status = status
        self._update_title()

    def set_open(self, path: str | None) -> None:
        self.session_list.open_path = path
        self.session_list.refresh()

    def select_path(self, path: str) -> bool:
        index = self.session_list.index_of(path)
        if index is None and (self.matches is not None or self.only_current or self.named_only):
            self.matches = None
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

    def action_toggle_scope(self) -> None:
        self.only_current = not self.only_current

    def action_toggle_named(self) -> None:
        self.named_only = not self.named_only

    def action_cycle_sort(self) -> None:
        self.order = self.order.next()

    def action_search(self) -> None:
        self.search_input.display = True
        self.search_input.focus()

    def action_clear_search(self) -> None:
        self.search_input.value = ""
        self.search_input.display = False
        self.matches = None
        self.rebuild()
        self.session_list.focus()

    def on_input_changed(self, event: PlainInput.Changed) -> None:
        if event.input is not self.search_input:
            return
        event.stop()
        if not event.value.strip():
            self.matches = None
            self.status = ""
            self.rebuild(keep_current=True)
        else:
            self.post_message(self.SearchChanged(self, event.value))

    def show_matches(self, query: str, found: Mapping[str, str] | None) -> None:
        """What `query` matched (path -> where), or None when it is not a valid query."""
        if query != self.search_input.value:
            return  # typed on since: a newer answer is on its way
        if found is None:
            self.set_status("invalid search")
            return
        self.matches = found
        self.status = f"{len(found)} found"
        self.rebuild(keep_current=True)

    def on_input_submitted(self, event: PlainInput.Submitted) -> None:
        if event.input is self.search_input:
            event.stop()
            self.session_list.focus()

    def on_key(self, event: events.Key) -> None:
        if event.key in ("down", "up") and self.search_input.has_focus:
            self.session_list.focus()
            if event.key == "down":
                self.session_list.action_cursor_down()
            else:
                self.session_list.action_cursor_up()
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


def _same_dir(a: str, b: str) -> bool:
    return bool(a) and os.path.normpath(a) == os.path.normpath(b)
