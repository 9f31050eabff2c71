"""The branch tree as rows to draw: a linear run stays at one level, forks indent.

A conversation is a long chain with a few forks. Nesting one level per entry would make a
10,000-entry session unreadable (and recursive widgets fall over), so rows only indent where
the tree forks: each child of a fork point starts a branch one level deeper, and a single
child continues at its parent's level. The branch holding the active leaf comes first at
every fork, so the conversation pi would resume reads top to bottom without a jump.

A live session's new entries get rows without building them all again when they only extend
the active leaf (`extend_rows`). What each row says is core/session/describe.py's job.
"""

from __future__ import annotations

from array import array
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import msgspec

from ..reading.records import EntryRecord, MessageHead
from .session import Session, SessionDelta
from .tree import NO_CHILD


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

    @property
    def by_type_only(self) -> bool:
        """Whether `shows` goes by an entry's type alone (hidden types, tool results), which
        `outline_rows` then checks inline: a field added to `shows` must be added here."""
        return not self.user_only and not self.labelled_only

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


# Outer branch levels a tree row draws at most; deeper ones are a count (`drawn_guides`).
GUIDE_LEVELS = 12


class OutlineRow(msgspec.Struct, gc=False):
    """One drawn row of the branch tree. (A struct the collector does not track, made in C:
    a 100,000-entry session has as many rows, made at once when it opens.)

    Nearly every row continues a chain, unfolded: an `OutlineRow`, whose other fields are
    their defaults (class attributes: no room in each of 100,000 rows, 4.6 MiB); a branch's
    first row, a folded one and one with other than one child are a `FullOutlineRow`, which
    holds them (see `outline_row`)."""

    record: EntryRecord
    depth: int
    guides: tuple[bool, ...]  # per outer branch level: does a later sibling branch continue below?
    on_active_path: bool

    if TYPE_CHECKING:
        child_count: int = 1
        branch_start: bool = False  # the first row of a branch below a fork point
        last_branch: bool = False  # ... and that branch is the last one of its fork (read at a start only)
        folded: bool = False
        hidden_count: int = 0  # descendants hidden by folding
    else:
        child_count = 1
        branch_start = False
        last_branch = False
        folded = False
        hidden_count = 0

    @property
    def is_fork_point(self) -> bool:
        return self.child_count > 1

    def drawn_guides(self, limit: int = GUIDE_LEVELS) -> tuple[int, tuple[bool, ...]]:
        """The outer levels drawn before this row (its connector's own level left out), at
        most `limit` of them, the nearest: (how many outer levels are left out, those drawn).
        A branch nested 1,500 forks deep costs a row as much as one nested ten deep."""
        guides = self.guides[:-1] if self.branch_start else self.guides
        if len(guides) <= limit:
            return 0, guides
        return len(guides) - limit, guides[len(guides) - limit :]

    @property
    def connector(self) -> str:
        if not self.branch_start:
            return ""
        return "└─ " if self.last_branch else "├─ "


class FullOutlineRow(OutlineRow, gc=False):
    """A row that starts a branch below a fork point, or is folded, or has other than one
    child (a leaf, a fork point)."""

    child_count: int = 1
    branch_start: bool = False
    last_branch: bool = False
    folded: bool = False
    hidden_count: int = 0


def outline_row(
    record: EntryRecord,
    depth: int,
    guides: tuple[bool, ...],
    branch_start: bool,
    last_branch: bool,
    child_count: int,
    on_active_path: bool,
    folded: bool = False,
    hidden_count: int = 0,
) -> OutlineRow:
    """The row with these values, of the smaller kind when it is one."""
    if branch_start or folded or child_count != 1:
        return FullOutlineRow(
            record,
            depth,
            guides,
            on_active_path,
            child_count,
            branch_start,
            last_branch,
            folded,
            hidden_count,
        )
    return OutlineRow(record, depth, guides, on_active_path)


def _active_flags(session: Session, leaf: str | None) -> bytearray:
    """1 at the record index of every entry on the path to `leaf`: a set of the ids of a
    100,000-entry path took 4 MiB and a sixth of the rows' time."""
    flags = bytearray(len(session.records))
    if leaf is not None and leaf in session.by_id:
        for record in session.path_to(leaf):
            flags[record.index] = 1
    return flags


# Row moves a RowIndex remembers before it numbers every row again (see `RowIndex.inserted`).
_MOVES_KEPT = 32


class RowIndex(Mapping[str, int]):
    """Entry id -> its row, for the rows of one session: an array by record index (a dict of
    100,000 ids took 6 MiB). Only the entry that owns an id (`session.by_id`) has a row.

    Rows inserted (a live session growing) move the rows below them: instead of renumbering
    tens of thousands of rows per append, the move is remembered (`inserted`) and applied when
    a row is looked up, each position carrying how many moves it has seen; after
    `_MOVES_KEPT` of them every row is numbered again."""

    __slots__ = ("_moves", "_rows", "_seen", "_session", "_where")

    def __init__(self, session: Session | None, rows: Sequence[OutlineRow]) -> None:
        self._session = session
        self._rows = rows
        size = len(session.records) if session is not None else 0
        self._where = array("i", [-1]) * size
        self._seen = array("i", [0]) * size  # per record index: moves already in its position
        self._moves: list[tuple[int, int]] = []  # (first row moved, by how many), in order
        self._number_all()

    def _number_all(self) -> None:
        where = self._where
        for position, row in enumerate(self._rows):
            where[row.record.index] = position
        self._seen = array("i", [0]) * len(where)
        self._moves = []

    def get(self, entry_id: object, default: Any = None) -> Any:
        session = self._session
        if session is None or entry_id.__class__ is not str:
            return default
        record = session.by_id.get(entry_id)
        if record is None:
            return default
        index = record.index
        where = self._where
        position = where[index] if 0 <= index < len(where) else -1
        if position >= 0 and self._moves:
            for first, count in self._moves[self._seen[index] :]:
                if position >= first:
                    position += count
        rows = self._rows
        if 0 <= position < len(rows) and rows[position].record is record:
            return position
        return default

    def __getitem__(self, entry_id: str) -> int:
        position: int | None = self.get(entry_id)
        if position is None:
            raise KeyError(entry_id)
        return position

    def __contains__(self, entry_id: object) -> bool:
        return self.get(entry_id) is not None

    def inserted(self, start: int, count: int) -> None:
        """`count` rows were inserted at `start` in the list this index reads (the rows from
        `start` on moved down by `count`)."""
        if count <= 0:
            return
        rows, where, seen = self._rows, self._where, self._seen
        self._moves.append((start, count))
        if len(self._moves) > _MOVES_KEPT:
            top = max((row.record.index for row in rows), default=-1)
            if top >= len(where):
                where.extend([-1] * (top + 1 - len(where)))
            self._number_all()
            return
        moves = len(self._moves)
        new = range(start, min(start + count, len(rows)))
        top = max((rows[p].record.index for p in new), default=-1)
        if top >= len(where):
            where.extend([-1] * (top + 1 - len(where)))
            seen.extend([0] * (top + 1 - len(seen)))
        for position in new:
            index = rows[position].record.index
            where[index] = position
            seen[index] = moves

    def __iter__(self) -> Iterator[str]:
        return (row.record.id for row in self._rows if self.get(row.record.id) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def outline_rows(
    session: Session,
    active_leaf: str | None = None,
    folded: Collection[str] = (),
    view: RowFilter | None = None,
) -> list[OutlineRow]:
    """Rows in display order (iterative: the depth of the tree never matters). A chain of
    single children is followed in an inner loop: that is most of any conversation."""
    leaf = active_leaf if active_leaf is not None else session.default_leaf
    active = _active_flags(session, leaf)
    any_active = leaf is not None and leaf in session.by_id
    by_id = session.by_id
    tree = session.tree
    records, only_child, forks = tree.records, tree.only_child, tree.forks
    labels = session.labels
    rows: list[OutlineRow] = []
    append = rows.append
    shows = view.shows if view is not None else None
    # The usual views (hidden types, tool results perhaps) are checked inline below: a call
    # per entry is a fifth of the rows of a long session. The others go through `shows`.
    plain = view is not None and view.by_type_only
    always = view.always if view is not None else frozenset()
    hidden = view.hidden_types if view is not None else frozenset()
    hide_tools = view is not None and view.hide_tool_results
    message_head, str_, chain_row = MessageHead, str, OutlineRow

    def ordered(ids: list[str]) -> list[str]:
        if len(ids) < 2 or not any_active:
            return ids
        first = [i for i in ids if active[by_id[i].index]]
        return first + [i for i in ids if not active[by_id[i].index]] if first else ids

    roots = ordered(session.roots)
    multiple_roots = len(roots) > 1
    # (id, depth, guides, branch_start, last_branch)
    stack: list[tuple[str, int, tuple[bool, ...], bool, bool]] = []
    for i in range(len(roots) - 1, -1, -1):
        stack.append((roots[i], 0, (), multiple_roots, i == len(roots) - 1))
    while stack:
        node, depth, guides, branch_start, last_branch = stack.pop()
        record = by_id[node]
        while True:
            at = only_child[record.index]  # the one child's index, or none, or forks (core/session/tree.py)
            if at >= 0:
                count = 1
            elif at == NO_CHILD:
                count = 0
            else:
                kids = forks[node]
                count = len(kids)
            is_folded = count > 0 and node in folded
            if plain and not is_folded and node not in always:
                kind = record.type
                if kind.__class__ is str_ and kind in hidden:
                    visible = False
                elif hide_tools and kind == "message":
                    m = record.message
                    visible = m.__class__ is not message_head or m.role != "toolResult"
                else:
                    visible = True
            else:
                visible = shows is None or is_folded or shows(record, labels)
            if visible:
                if branch_start or is_folded or count != 1:
                    append(
                        FullOutlineRow(
                            record,
                            depth,
                            guides,
                            active[record.index] == 1,
                            count,
                            branch_start,
                            last_branch,
                            is_folded,
                            session.count_below([node]) - 1 if is_folded else 0,
                        )
                    )
                else:  # (`outline_row`, inlined: nine rows in ten)
                    append(chain_row(record, depth, guides, active[record.index] == 1))
                branch_start = False
            if is_folded or not count:
                break
            if count == 1:
                # A chain continues at the same level; a hidden branch start passes its connector on.
                record = records[at] if at >= 0 else by_id[kids[0]]
                node = record.id
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
    new_rows = [
        outline_row(
            record,
            leaf_row.depth,
            leaf_row.guides,
            False,
            leaf_row.last_branch,
            session.child_count(record.id),
            True,
        )
        for record in records
        if shown is None or shown.shows(record, labels)
    ]
    parent_row = outline_row(
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


def branch_first_entry(session: Session, entry_id: str) -> str | None:
    """The first entry of the branch `entry_id` is on, right below its nearest fork (what the
    tree folds when a leaf is folded); None when no fork is above it."""
    path = session.path_to(entry_id)
    for i in range(len(path) - 2, 0, -1):
        if session.child_count(path[i - 1].id) > 1:
            first: str = path[i].id
            return first
    return None


def nearest_shown_row(session: Session | None, rows: Mapping[str, int], entry_id: str | None) -> int | None:
    """The row of `entry_id`, or of its nearest ancestor that has one (the entry hidden by the
    view filter or folded away); None when none has."""
    if session is None or entry_id is None:
        return None
    current = session.by_id.get(entry_id)
    seen: set[str] = set()
    while current is not None and current.id not in seen:
        if current.id in rows:
            return rows[current.id]
        seen.add(current.id)
        parent = current.parentId
        current = session.by_id.get(parent) if isinstance(parent, str) else None
    return None
