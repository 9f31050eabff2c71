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
from operator import attrgetter
from typing import Any

from msgspec import UNSET

from .jsvalues import date_ms
from .problems import Problem, ProblemKind, UnknownEntryError
from .records import EntryRecord

# The width of a timestamp as pi writes it ("2026-01-01T00:00:00.000Z"), kept in a column.
STAMP_WIDTH = 24

# The problems a build reports (a rebuild replaces them).
TREE_PROBLEMS = frozenset({ProblemKind.PARENT_CYCLE, ProblemKind.MISSING_PARENT, ProblemKind.SELF_PARENT})


# Parent id -> its children: the one child's id itself, or a list of two or more (a list
# may be left shorter when a cycle is cut). Nearly every entry of a conversation has one
# child: 100,000 one-item lists took 9.8 MiB. The keys keep the order in which each parent
# got its first child. Read it through `children_of`/`child_count` unless in a hot loop.
Children = dict[str, "str | list[str]"]


_id_of, _parent_of = attrgetter("id"), attrgetter("parentId")


class SessionTree:
    """Roots and children of the entries in `by_id` (the session's dict, shared, not copied)."""

    __slots__ = (
        "_cut",
        "_depth",
        "_last_path",
        "_orphans",
        "_stamps",
        "_unsortable",
        "by_id",
        "children",
        "roots",
    )

    def __init__(self, by_id: dict[str, EntryRecord], stamps: bytearray) -> None:
        self.by_id = by_id
        self._stamps = stamps  # the session's column of timestamps (see Session.stamps)
        self.roots: list[str] = []
        self.children: Children = {}
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
        self.children = {}
        self._orphans = {}
        self._cut = set()
        self._unsortable = set()
        self._last_path, self._depth = [], array("i")  # paths may change with a new build
        children, by_id = self.children, self.by_id
        problems: list[Problem] = []
        missing_parents: list[Problem] = []
        # A cycle needs a parent later in the file than its child: without one, none to look for.
        later_parent = False
        shadowing = len(by_id) != len(records)  # some id is used twice: only its last entry counts
        if not shadowing and records and (found := self._build_chain(records)) is not None:
            return found
        for record in records:
            rid = record.id
            if shadowing and by_id.get(rid) is not record:
                continue  # shadowed by a later entry with the same id
            parent = record.parentId
            if parent.__class__ is str and parent != rid:
                above = by_id.get(parent)
                if above is not None:
                    kids = children.get(parent)
                    if kids is None:
                        children[parent] = rid
                    elif kids.__class__ is str:
                        children[parent] = [kids, rid]
                    else:
                        kids.append(rid)  # type: ignore[union-attr]
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
        for kids in children.values():
            if kids.__class__ is not str:
                self._sort_children(kids)  # type: ignore[arg-type]
        if later_parent:
            problems.extend(self._break_cycles(records))
        problems.extend(missing_parents)
        return problems

    def _build_chain(self, records: Sequence[EntryRecord]) -> list[Problem] | None:
        """`build` for a file that is one path, root first (each entry's parent the entry
        before it; no id used twice), without a Python step per entry; None for any other.
        The file is kept as the last path walked: the first walk, to its last entry, is a copy."""
        ids = list(map(_id_of, records))
        if list(map(_parent_of, islice(records, 1, None))) != ids[:-1]:
            return None
        first = records[0]
        parent = first.parentId
        if parent.__class__ is str and parent in self.by_id:
            return None  # its parent comes later (a cycle) or is itself
        self.children = dict(zip(ids, islice(ids, 1, None), strict=False))  # (the last has none)
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
        parent = self._parent_in_tree(record)
        if parent is None:
            return True, self._add_root(record)
        ts = self.ts_ms(record)
        existing = self.children.get(parent)
        if existing is None:
            if ts is None:
                self._unsortable.add(parent)  # how its later siblings sort
            self.children[parent] = rid
            return True, None
        kids = [existing] if isinstance(existing, str) else existing
        self.children[parent] = kids
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
            kids = self.children[parent]
            if isinstance(kids, str):
                self.children[parent] = []  # (the key keeps its place)
            else:
                kids.remove(breaker)
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
        kids = self.children.get(entry_id)
        if kids is None:
            return ()
        return (kids,) if isinstance(kids, str) else kids

    def child_count(self, entry_id: str) -> int:
        kids = self.children.get(entry_id)
        if kids is None:
            return 0
        return 1 if isinstance(kids, str) else len(kids)

    def children_lists(self) -> dict[str, list[str]]:
        """Every parent's children as lists, in the order the parents got their first child."""
        return {k: [v] if isinstance(v, str) else list(v) for k, v in self.children.items()}

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
        stack = list(reversed(self.roots))
        children = self.children
        while stack:
            node = stack.pop()
            out.append(node)
            kids = children.get(node)
            if kids is None:
                continue
            if kids.__class__ is str:
                stack.append(kids)
            else:
                stack.extend(reversed(kids))
        return out

    def count_below(self, starts: Iterable[str]) -> int:
        """Entries in the subtrees under `starts` (themselves included), iteratively."""
        count = 0
        stack = list(starts)
        children = self.children
        while stack:
            node = stack.pop()
            count += 1
            kids = children.get(node)
            if kids is None:
                continue
            if kids.__class__ is str:
                stack.append(kids)
            else:
                stack.extend(kids)
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
