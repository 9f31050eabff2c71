"""pi's entry tree over one session's records: roots, children in pi's order, parent cycles broken.

Built from the records that own their id (`SessionTree.build`), then kept current one appended
record at a time (`attach`) for as long as that gives what a fresh build would; when it cannot
(an entry that orphans were waiting for), the caller builds again. Walks over the tree (path to
a leaf, preorder, subtree sizes) are iterative: a conversation is a chain tens of thousands deep.
Where pi would loop forever (a parent cycle) the cycle is broken at its first entry in file
order, and reported.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from functools import cmp_to_key
from itertools import islice, repeat
from operator import attrgetter, ne
from typing import Any

from msgspec import UNSET

from ..common.jsvalues import date_ms
from ..common.problems import Problem, ProblemKind, UnknownEntryError
from ..reading.records import EntryRecord

# The width of a timestamp as pi writes it ("2026-01-01T00:00:00.000Z"), kept in a column.
STAMP_WIDTH = 24

# The problems a build reports (a rebuild replaces them).
TREE_PROBLEMS = frozenset({ProblemKind.PARENT_CYCLE, ProblemKind.MISSING_PARENT, ProblemKind.SELF_PARENT})


# A parent's children are kept by record index (`Entry.index`): `only_child[parent.index]` is
# the index of its one child, NO_CHILD, or FORKED when `forks[parent id]` lists them (two or
# more, or fewer once a cycle is cut). Nearly every entry of a conversation has one child: a
# dict of them took 3.7 MiB for 100,000 entries, the array 0.4 MiB. Read them through
# `children_of`/`child_count` unless in a hot loop.
NO_CHILD, FORKED = -1, -2


_id_of, _parent_of = attrgetter("id"), attrgetter("parentId")


class SessionTree:
    """Roots and children of the entries in `by_id` and `records` (the session's dict and
    list, shared, not copied)."""

    __slots__ = (
        "_cut",
        "_depth",
        "_last_path",
        "_orphans",
        "_stamps",
        "_unsortable",
        "by_id",
        "forks",
        "only_child",
        "records",
        "roots",
    )

    def __init__(
        self, by_id: dict[str, EntryRecord], records: Sequence[EntryRecord], stamps: bytearray
    ) -> None:
        self.by_id = by_id
        self._stamps = stamps  # the session's column of timestamps (see Session.stamps)
        self.roots: list[str] = []
        self.records = records  # file order (the position of each is its `index`)
        self.only_child = array("i")  # see NO_CHILD
        self.forks: dict[str, list[str]] = {}
        self._orphans: dict[str, list[str]] = {}  # missing parent id -> ids waiting for it
        self._cut: set[str] = set()  # entries whose parent link was cut (a cycle, a self parent)
        self._unsortable: set[str] = set()  # parents with a child whose timestamp is not a date
        # The last path walked, and each record's depth once known (by record index; -1: not
        # yet): the next walk stops where it meets that path (see `path_to`).
        self._last_path: list[EntryRecord] = []
        self._depth = array("i")

    # ------------------------------------------------------------------ building
    def build(self, records: Sequence[EntryRecord]) -> list[Problem]:
        """Start again from the session's `records` (file order); returns the problems
        found, in the order a reader reports them."""
        self.roots = []
        self.records = records
        self.only_child = array("i")  # (made below for records that are not one path)
        self.forks = {}
        self._orphans = {}
        self._cut = set()
        self._unsortable = set()
        self._last_path, self._depth = [], array("i")  # paths may change with a new build
        by_id = self.by_id
        problems: list[Problem] = []
        missing_parents: list[Problem] = []
        # A cycle needs a parent later in the file than its child: without one, none to look for.
        later_parent = False
        shadowing = len(by_id) != len(records)  # some id is used twice: only its last entry counts
        if not shadowing and records and (found := self._build_chain(records)) is not None:
            return found
        only_child, forks = self.only_child, self.forks
        only_child.extend(repeat(NO_CHILD, len(records)))
        for record in records:
            rid = record.id
            if shadowing and by_id.get(rid) is not record:
                continue  # shadowed by a later entry with the same id
            parent = record.parentId
            if parent.__class__ is str and parent != rid:
                above = by_id.get(parent)
                if above is not None:
                    at = only_child[above.index]
                    if at == NO_CHILD:
                        only_child[above.index] = record.index
                    elif at != FORKED:
                        only_child[above.index] = FORKED
                        forks[parent] = [records[at].id, rid]
                    else:
                        forks[parent].append(rid)
                    if above.index > record.index:
                        later_parent = True
                    continue
            problem = self._add_root(record)
            if problem is None:
                continue
            if problem.kind is ProblemKind.MISSING_PARENT:
                missing_parents.append(problem)  # reported after the cycles are broken
            else:
                problems.append(problem)
        for kids in forks.values():
            self._sort_children(kids)
        if later_parent:
            problems.extend(self._break_cycles(records))
        problems.extend(missing_parents)
        return problems

    def _build_chain(self, records: Sequence[EntryRecord]) -> list[Problem] | None:
        """`build` for a file that is one path, root first (each entry's parent the entry
        before it; no id used twice), without a Python step per entry; None for any other.
        The file is kept as the last path walked: the first walk, to its last entry, is a copy."""
        # (Compared pairwise, not as two lists of ids: those were 1.6 MB at the open's peak.)
        if any(map(ne, map(_parent_of, islice(records, 1, None)), map(_id_of, records))):
            return None
        first = records[0]
        parent = first.parentId
        if parent.__class__ is str and parent in self.by_id:
            return None  # its parent comes later (a cycle) or is itself
        self.only_child = array("i", range(1, len(records) + 1))
        self.only_child[-1] = NO_CHILD
        problem = self._add_root(first)
        self._last_path = list(records)
        self._depth = array("i", range(len(records)))
        return [] if problem is None else [problem]

    def attach(self, record: EntryRecord) -> tuple[bool, Problem | None]:
        """Place one appended record (the newest owner of its id). (False, None) when only
        a build gives the right tree; else True and the problem it has, if any."""
        rid = record.id
        if rid in self._orphans:
            return False, None  # entries that were waiting for this parent move under it
        only_child = self.only_child
        if len(only_child) <= record.index:
            only_child.extend(repeat(NO_CHILD, record.index + 1 - len(only_child)))
        parent = self._parent_in_tree(record)
        if parent is None:
            return True, self._add_root(record)
        ts = self.ts_ms(record)
        above = self.by_id[parent].index
        at = only_child[above]
        if at == NO_CHILD:
            if ts is None:
                self._unsortable.add(parent)  # how its later siblings sort
            only_child[above] = record.index
            return True, None
        if at == FORKED:
            kids = self.forks[parent]
        else:
            kids = self.forks[parent] = [self.records[at].id]
            only_child[above] = FORKED
        if ts is None or parent in self._unsortable:
            # A sibling without a usable timestamp: sort as a fresh read would, from file order.
            self._unsortable.add(parent)
            kids.append(rid)
            kids.sort(key=lambda k: self.by_id[k].index)
            self._sort_children(kids)
            return True, None
        # Stable: after every sibling with the same or an older timestamp.
        by_id = self.by_id
        lo, hi = 0, len(kids)
        while lo < hi:
            mid = (lo + hi) // 2
            if self.ts_ms(by_id[kids[mid]]) <= ts:  # type: ignore[operator]
                lo = mid + 1
            else:
                hi = mid
        kids.insert(lo, rid)
        return True, None

    def _parent_in_tree(self, record: EntryRecord) -> str | None:
        """The id `record` hangs from; None for a root (no parent, itself, one not there)."""
        parent = record.parentId
        if isinstance(parent, str) and parent != record.id and parent in self.by_id:
            return parent
        return None

    def _add_root(self, record: EntryRecord) -> Problem | None:
        """Shows `record` as a root; a parent it names but cannot have is a problem."""
        rid, parent = record.id, record.parentId
        self.roots.append(rid)
        if parent is None:
            return None
        if parent == rid:
            self._cut.add(rid)
            return Problem(
                ProblemKind.SELF_PARENT, "entry is its own parent; shown as a root", record.line, rid
            )
        if isinstance(parent, str):
            self._orphans.setdefault(parent, []).append(rid)  # moves under it if it arrives
        return Problem(
            ProblemKind.MISSING_PARENT, f"parent {parent} does not exist; shown as a root", record.line, rid
        )

    def _sort_children(self, kids: list[str]) -> None:
        """pi sorts children by `new Date(timestamp).getTime()`, oldest first, stably."""
        by_id = self.by_id
        keys = [self.ts_ms(by_id[k]) for k in kids]
        if all(k is not None for k in keys):
            kids.sort(key=lambda k: self.ts_ms(by_id[k]))  # type: ignore[arg-type,return-value]
            return
        parent = by_id[kids[0]].parentId
        if isinstance(parent, str):
            self._unsortable.add(parent)

        # NaN timestamps: reproduce JavaScript's comparator, where NaN compares as "equal".
        def compare(a: str, b: str) -> int:
            ta, tb = self.ts_ms(by_id[a]), self.ts_ms(by_id[b])
            if ta is None or tb is None:
                return 0
            return -1 if ta < tb else (1 if ta > tb else 0)

        kids.sort(key=cmp_to_key(compare))

    def winners(self, records: Sequence[EntryRecord]) -> Iterator[EntryRecord]:
        """Records that own their id (a later duplicate shadows an earlier one), file order."""
        by_id = self.by_id
        for record in records:
            if by_id.get(record.id) is record:
                yield record

    def _break_cycles(self, records: Sequence[EntryRecord]) -> list[Problem]:
        """Entries unreachable from the roots sit on a parent cycle (pi loops forever there).
        Each cycle is broken at its first entry in file order, which becomes a root."""
        by_id = self.by_id
        if self.count_below(self.roots) == len(by_id):
            return []
        problems: list[Problem] = []
        seen: set[str] = set()
        breakers: list[str] = []
        stack = list(self.roots)
        while stack:
            node = stack.pop()
            seen.add(node)
            stack.extend(self.children_of(node))
        for record in self.winners(records):
            if record.id in seen:
                continue
            # Walk up to find the cycle this entry hangs from.
            chain: list[str] = []
            on_chain: set[str] = set()
            current: str | None = record.id
            while current is not None and current not in on_chain and current not in seen:
                chain.append(current)
                on_chain.add(current)
                parent = by_id[current].parentId
                current = parent if isinstance(parent, str) and parent in by_id else None
            if current is None or current in seen:
                continue
            cycle = chain[chain.index(current) :]
            breaker = min(cycle, key=lambda i: by_id[i].index)
            parent = by_id[breaker].parentId
            above = by_id[parent].index
            if self.only_child[above] == FORKED:
                self.forks[parent].remove(breaker)
            else:
                self.only_child[above] = NO_CHILD
            self._cut.add(breaker)
            breakers.append(breaker)
            problems.append(
                Problem(
                    ProblemKind.PARENT_CYCLE,
                    f"parent links form a cycle ({' -> '.join(cycle)}); broken at {breaker}",
                    by_id[breaker].line,
                    breaker,
                )
            )
            stack = [breaker]
            while stack:
                node = stack.pop()
                seen.add(node)
                stack.extend(self.children_of(node))
        if breakers:
            # Roots stay in file order (one sort for all the cycles, however many).
            self.roots.extend(breakers)
            self.roots.sort(key=lambda r: by_id[r].index)
        return problems

    # ------------------------------------------------------------------ timestamps
    def timestamp_of(self, record: EntryRecord) -> Any:
        stamp = record.timestamp
        if stamp is UNSET:
            at = record.index * STAMP_WIDTH
            return self._stamps[at : at + STAMP_WIDTH].decode("ascii")
        return stamp

    def ts_ms(self, record: EntryRecord) -> float | None:
        """`new Date(timestamp).getTime()`, None for NaN."""
        return date_ms(self.timestamp_of(record))

    # ------------------------------------------------------------------ walks
    def children_of(self, entry_id: str) -> Sequence[str]:
        """The children of `entry_id` in pi's order (never change what is returned)."""
        record = self.by_id.get(entry_id)
        if record is None or record.index >= len(self.only_child):
            return ()
        at = self.only_child[record.index]
        if at >= 0:
            return (self.records[at].id,)
        return () if at == NO_CHILD else self.forks[entry_id]

    def child_count(self, entry_id: str) -> int:
        record = self.by_id.get(entry_id)
        if record is None or record.index >= len(self.only_child):
            return 0
        at = self.only_child[record.index]
        if at >= 0:
            return 1
        return 0 if at == NO_CHILD else len(self.forks[entry_id])

    def children_lists(self) -> dict[str, list[str]]:
        """Every parent's children as lists, in the order the parents got their first child
        (the file order of their first child: builds read in file order, appends come last)."""
        out: dict[str, list[str]] = {}
        by_id = self.by_id
        for record in self.winners(self.records):
            parent = record.parentId
            if parent.__class__ is str and parent != record.id and parent in by_id and parent not in out:
                out[parent] = list(self.children_of(parent))
        return out

    def parent_of(self, record: EntryRecord) -> EntryRecord | None:
        """The entry above `record` on its path (None at a root, a cut cycle included)."""
        parent = record.parentId
        if record.id in self._cut or parent.__class__ is not str or not parent:
            return None
        return self.by_id.get(parent)

    def path_to(self, leaf_id: str) -> list[EntryRecord]:
        """Root-to-leaf path (pi's buildSessionPath), finite even on a parent cycle. The list
        is shared (it is also the tree's last path, and a projection's): never change it.

        The walk up from the leaf stops at the first entry of the last path walked (an
        entry's depth is its place on any path to it), so moving the selection by an entry
        costs a step or two and a copy, not a walk over a conversation 100,000 entries deep."""
        get = self.by_id.get
        current = get(leaf_id)
        if current is None:
            raise UnknownEntryError(f"no entry with id {leaf_id!r} in this session")
        last, depth = self._last_path, self._depth
        known = len(depth)
        tail: list[EntryRecord] = []
        append = tail.append
        cut = self._cut
        limit = len(self.by_id)  # more steps than entries means a cycle
        joined = -1  # where the walk met the last path
        if not known and not cut:
            # The first walk (nothing known, nothing cut), the one a session's open waits
            # for: only the steps themselves.
            for _ in repeat(None, limit + 1):  # more steps than entries means a cycle
                append(current)
                parent = current.parentId
                if parent.__class__ is not str or not parent:
                    break
                current = get(parent)
                if current is None:
                    break
            else:
                tail = _until_repeat(tail)
                tail.reverse()
                return tail  # (a cycle no build broke: nothing to remember of it)
            current = None
        while current is not None:
            index = current.index
            if index < known:
                at = depth[index]
                if 0 <= at < len(last) and last[at] is current:
                    joined = at
                    break
            append(current)
            if cut and current.id in cut:
                break
            if len(tail) > limit:
                tail = _until_repeat(tail)
                tail.reverse()
                return tail  # (a cycle no build broke: nothing to remember of it)
            parent = current.parentId
            current = get(parent) if parent.__class__ is str and parent else None
        tail.reverse()
        if joined >= 0:
            path = last[: joined + 1]  # one copy (a slice and a concatenation were two)
            path += tail
        else:
            path = tail
        self._remember(path, joined + 1)
        return path

    def _remember(self, path: list[EntryRecord], start: int) -> None:
        """`path` is the last path walked; its entries from `start` on get their depth."""
        self._last_path = path
        depth = self._depth
        if path:
            top = max(r.index for r in path[start:]) if start < len(path) else -1
            if top >= len(depth):
                depth.extend([-1] * (top + 1 - len(depth)))
        for position in range(start, len(path)):
            index = path[position].index
            if index >= 0:
                depth[index] = position

    def preorder(self) -> list[str]:
        out: list[str] = []
        append = out.append
        by_id, records, only_child, forks = self.by_id, self.records, self.only_child, self.forks
        stack = [by_id[r] for r in reversed(self.roots)]
        while stack:
            record = stack.pop()
            while True:  # (down a chain without the stack)
                append(record.id)
                at = only_child[record.index]
                if at >= 0:
                    record = records[at]
                    continue
                if at == FORKED:
                    stack.extend(by_id[k] for k in reversed(forks[record.id]))
                break
        return out

    def count_below(self, starts: Iterable[str]) -> int:
        """Entries in the subtrees under `starts` (themselves included), iteratively."""
        count = 0
        by_id, records, only_child, forks = self.by_id, self.records, self.only_child, self.forks
        stack = [by_id[s] for s in starts]
        while stack:
            record = stack.pop()
            while True:
                count += 1
                at = only_child[record.index]
                if at >= 0:
                    record = records[at]
                    continue
                if at == FORKED:
                    stack.extend(by_id[k] for k in forks[record.id])
                break
        return count


def _until_repeat(path: list[EntryRecord]) -> list[EntryRecord]:
    seen: set[str] = set()
    out: list[EntryRecord] = []
    for record in path:
        if record.id in seen:
            break
        seen.add(record.id)
        out.append(record)
    return out
