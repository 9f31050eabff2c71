"""The branch tree as rows to draw: a linear run stays at one level, forks indent.

A conversation is a long chain with a few forks. Nesting one level per entry would make a
10,000-entry session unreadable (and recursive widgets fall over), so rows only indent where
the tree forks: each child of a fork point starts a branch one level deeper, and a single
child continues at its parent's level. The branch holding the active leaf comes first at
every fork, so the conversation pi would resume reads top to bottom without a jump.

A live session's new entries get rows without building them all again when they only extend
the active leaf (`extend_rows`). What each row says is core/describe.py's job.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import msgspec

from .records import EntryRecord, MessageHead
from .session import Session, SessionDelta


class ViewFilter(StrEnum):
    DEFAULT = "default"
    NO_TOOLS = "no-tools"
    USER_ONLY = "user-only"
    LABELED = "labeled-only"
    ALL = "all"

    @property
    def label(self) -> str:
        return {
            ViewFilter.DEFAULT: "conversation",
            ViewFilter.NO_TOOLS: "no tool results",
            ViewFilter.USER_ONLY: "user messages",
            ViewFilter.LABELED: "labelled",
            ViewFilter.ALL: "everything",
        }[self]

    def next(self) -> ViewFilter:
        order = list(ViewFilter)
        return order[(order.index(self) + 1) % len(order)]


# Bookkeeping entries pi's tree hides by default.
SETTINGS_TYPES = frozenset(
    {"label", "custom", "usage", "model_change", "thinking_level_change", "session_info", "context_edit"}
)


@dataclass(frozen=True, slots=True)
class RowFilter:
    """Which entries a view shows; the always-shown ids (the active leaf, search matches)
    pass whatever the rest says."""

    hidden_types: frozenset[str] = frozenset()
    hide_tool_results: bool = False
    user_only: bool = False
    labelled_only: bool = False
    always: frozenset[str] = frozenset()

    def with_always(self, ids: Collection[str]) -> RowFilter:
        return RowFilter(
            self.hidden_types, self.hide_tool_results, self.user_only, self.labelled_only, frozenset(ids)
        )

    def shows(self, record: EntryRecord, labels: Collection[Any]) -> bool:
        if record.id in self.always:
            return True
        kind = record.type
        if self.user_only:
            return bool(kind == "message" and record.role == "user")
        if self.labelled_only:
            return record.id in labels
        if kind.__class__ is str and kind in self.hidden_types:
            return False
        return not (self.hide_tool_results and kind == "message" and record.role == "toolResult")


def row_filter(view: ViewFilter) -> RowFilter | None:
    """The filter of a view (None: everything is shown)."""
    if view is ViewFilter.ALL:
        return None
    if view is ViewFilter.USER_ONLY:
        return RowFilter(user_only=True)
    if view is ViewFilter.LABELED:
        return RowFilter(labelled_only=True)
    return RowFilter(hidden_types=SETTINGS_TYPES, hide_tool_results=view is ViewFilter.NO_TOOLS)


class OutlineRow(msgspec.Struct, gc=False):
    """One drawn row of the branch tree. (A struct the collector does not track, made in C:
    a 100,000-entry session has as many rows, made at once when it opens.)"""

    record: EntryRecord
    depth: int
    guides: tuple[bool, ...]  # per outer branch level: does a later sibling branch continue below?
    branch_start: bool  # the first row of a branch below a fork point
    last_branch: bool  # ... and that branch is the last one of its fork
    child_count: int
    on_active_path: bool
    folded: bool = False
    hidden_count: int = 0  # descendants hidden by folding

    @property
    def is_fork_point(self) -> bool:
        return self.child_count > 1

    @property
    def connector(self) -> str:
        if not self.branch_start:
            return ""
        return "└─ " if self.last_branch else "├─ "


def active_path_ids(session: Session, leaf: str | None) -> set[str]:
    if leaf is None or leaf not in session.by_id:
        return set()
    return {r.id for r in session.path_to(leaf)}


def outline_rows(
    session: Session,
    active_leaf: str | None = None,
    folded: Collection[str] = (),
    view: RowFilter | None = None,
) -> list[OutlineRow]:
    """Rows in display order (iterative: the depth of the tree never matters). A chain of
    single children is followed in an inner loop: that is most of any conversation."""
    leaf = active_leaf if active_leaf is not None else session.default_leaf
    active = active_path_ids(session, leaf)
    by_id = session.by_id
    children = session.children
    labels = session.labels
    rows: list[OutlineRow] = []
    append = rows.append
    shows = view.shows if view is not None else None
    # The usual views (hidden types, tool results perhaps) are checked inline below: a call
    # per entry is a fifth of the rows of a long session. The others go through `shows`.
    plain = view is not None and not view.user_only and not view.labelled_only
    always = view.always if view is not None else frozenset()
    hidden = view.hidden_types if view is not None else frozenset()
    hide_tools = view is not None and view.hide_tool_results
    message_head, str_ = MessageHead, str

    def ordered(ids: list[str]) -> list[str]:
        if len(ids) < 2 or not active:
            return ids
        first = [i for i in ids if i in active]
        return first + [i for i in ids if i not in active] if first else ids

    roots = ordered(session.roots)
    multiple_roots = len(roots) > 1
    # (id, depth, guides, branch_start, last_branch)
    stack: list[tuple[str, int, tuple[bool, ...], bool, bool]] = []
    for i in range(len(roots) - 1, -1, -1):
        stack.append((roots[i], 0, (), multiple_roots, i == len(roots) - 1))
    while stack:
        node, depth, guides, branch_start, last_branch = stack.pop()
        while True:
            record = by_id[node]
            kids = children.get(node) or ()
            is_folded = bool(kids) and node in folded
            if plain and not is_folded and node not in always:
                kind = record.type
                if kind.__class__ is str_ and kind in hidden:
                    visible = False
                elif hide_tools and kind == "message":
                    m = record.message
                    visible = m.__class__ is not message_head or m.role != "toolResult"  # type: ignore[union-attr]
                else:
                    visible = True
            else:
                visible = shows is None or is_folded or shows(record, labels)
            if visible:
                append(
                    OutlineRow(
                        record,
                        depth,
                        guides,
                        branch_start,
                        last_branch,
                        len(kids),
                        node in active,
                        is_folded,
                        session.count_below([node]) - 1 if is_folded else 0,
                    )
                )
                branch_start = False
            if is_folded or not kids:
                break
            if len(kids) == 1:
                # A chain continues at the same level; a hidden branch start passes its connector on.
                node = kids[0]
                continue
            kid_list = ordered(list(kids))
            for i in range(len(kid_list) - 1, -1, -1):
                last = i == len(kid_list) - 1
                stack.append((kid_list[i], depth + 1, (*guides, not last), True, last))
            break
    return rows


@dataclass(frozen=True, slots=True)
class RowInsert:
    """Rows for new entries, to go right after row `at`; that row becomes `parent_row`."""

    at: int
    parent_row: OutlineRow
    rows: list[OutlineRow]


def extend_rows(
    session: Session,
    rows: Sequence[OutlineRow],
    index_by_id: Mapping[str, int],
    delta: SessionDelta,
    view: RowFilter | None,
) -> RowInsert | None:
    """The rows `delta` adds when it only extends the active leaf (a conversation growing at
    its tip, the common live case: inserting costs what the new entries cost, a rebuild of
    100,000 rows a fifth of a second); None when the change takes `outline_rows` again.
    `rows`/`index_by_id` are what is shown, `view` its filter (None: everything) with the ids
    it always shows except the active leaf."""
    records = delta.new_records
    previous, leaf = delta.previous_leaf, session.default_leaf
    if delta.reloaded or delta.tree_rebuilt or not records or previous is None or leaf is None:
        return None
    if previous not in index_by_id or leaf != records[-1].id:
        return None  # the active path moved elsewhere: every row's marking may change
    labels = session.labels
    if view is not None and view.labelled_only and any(record.type == "label" for record in records):
        return None  # a new label can reveal an older entry
    if len(delta.continuation(session, previous)) != len(records):
        return None  # not all of them continue the leaf
    at = index_by_id[previous]
    leaf_row = rows[at]
    if leaf_row.folded or not leaf_row.on_active_path:
        return None
    if view is not None and not view.shows(leaf_row.record, labels):
        return None  # the old leaf was shown only for being the leaf: it goes
    shown = view.with_always(view.always | {leaf}) if view is not None else None
    children = session.children
    new_rows = [
        OutlineRow(
            record,
            leaf_row.depth,
            leaf_row.guides,
            False,
            leaf_row.last_branch,
            len(children.get(record.id, ())),
            True,
        )
        for record in records
        if shown is None or shown.shows(record, labels)
    ]
    parent_row = OutlineRow(
        leaf_row.record,
        leaf_row.depth,
        leaf_row.guides,
        leaf_row.branch_start,
        leaf_row.last_branch,
        1,
        leaf_row.on_active_path,
        leaf_row.folded,
        leaf_row.hidden_count,
    )
    return RowInsert(at, parent_row, new_rows)
