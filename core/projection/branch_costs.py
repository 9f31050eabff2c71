"""Tokens and cost of every subtree: what each branch below a fork point spent.

Computed once per tree (one pass over all entries) and kept up to date as a live session
grows (an appended entry adds to its ancestors only), so the tree and the cursor can ask for
any fork's figures at no cost. Tokens and cost are the ones the session totals count (an
assistant reply's usage, usage entries, a compaction's or branch summary's own usage).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

from ..common.jsvalues import json_number
from ..session.session import Session


@dataclass(frozen=True, slots=True)
class SubtreeTotals:
    tokens: float
    cost: float
    entries: int
    leaves: int  # tips (entries without children) in the subtree

    def to_json(self) -> dict[str, Any]:
        return {
            "tokens": json_number(self.tokens),
            "cost": round(self.cost, 6),
            "entries": self.entries,
            "leaves": self.leaves,
        }


@dataclass(frozen=True, slots=True)
class ForkBranch:
    """One child of a fork point and everything below it."""

    child_id: str
    totals: SubtreeTotals


class BranchTotals:
    """Subtree totals of one session's tree (use `branch_totals(session)` to get them).

    Built once in one walk; an appended entry is then *pending*: it is added to the other
    pending entries above it only, and to the group of the built entry it hangs from, so an
    append costs the same at any depth. A built entry's figures are its built ones plus the
    groups that hang inside its subtree (one interval test each: the walk numbered every built
    entry in preorder). After `_FOLD_AFTER` pending entries the totals are walked again."""

    def __init__(self, session: Session) -> None:
        self._session = weakref.ref(session)
        self.generation = session.generation
        self.tree_version = session.tree_version
        self.record_count = len(session.records)
        # entry id -> [tokens, cost, entries, leaves] of the subtree under it (itself included)
        self._below: dict[str, list[Any]] = {}
        # built entry id -> (first, last) preorder number of its subtree
        self._span: dict[str, tuple[int, int]] = {}
        # appended since the walk: entry id -> its subtree's totals among the pending entries
        self._pending: dict[str, list[Any]] = {}
        self._pending_parent: dict[str, str] = {}  # pending entry -> its pending parent
        # built entry a pending group hangs from -> [tokens, cost, entries, leaves added]
        self._groups: dict[str, list[Any]] = {}
        self._build(session)

    def _build(self, session: Session) -> None:
        below, span = self._below, self._span
        children_of = session.children_of
        by_id = session.by_id
        number = 0
        first: dict[str, int] = {}
        for root in session.roots:
            # Iterative post-order: a conversation is a chain thousands of entries deep.
            stack: list[tuple[str, bool]] = [(root, False)]
            while stack:
                node, done = stack.pop()
                kids = children_of(node)
                if not done:
                    first[node] = number
                    number += 1
                    stack.append((node, True))
                    stack.extend((k, False) for k in kids)
                    continue
                record = by_id[node]
                tokens, cost, entries = record.tokens, record.cost, 1
                leaves = 0 if kids else 1
                for kid in kids:
                    t = below[kid]
                    tokens += t[0]
                    cost += t[1]
                    entries += t[2]
                    leaves += t[3]
                below[node] = [tokens, cost, entries, leaves]
                span[node] = (first[node], number - 1)

    def _grow(self, session: Session) -> None:
        """Entries appended without a tree rebuild: each added to the pending entries above it
        and to its group, never walked up the built tree."""
        pending, pending_parent = self._pending, self._pending_parent
        groups, below = self._groups, self._below
        for record in session.records[self.record_count :]:
            if session.by_id.get(record.id) is not record or record.id in below or record.id in pending:
                continue
            parent = session.parent_of(record)
            totals = [record.tokens, record.cost, 1, 1]
            pending[record.id] = totals
            if parent is None or parent.id not in pending:
                if parent is not None and parent.id in below:
                    group = groups.get(parent.id)
                    if group is None:
                        # The built parent stops being a tip when this is its first child.
                        was_tip = below[parent.id][2] == 1
                        group = groups[parent.id] = [0.0, 0.0, 0, -1 if was_tip else 0]
                    group[0] += record.tokens
                    group[1] += record.cost
                    group[2] += 1
                    group[3] += 1
                continue
            pending_parent[record.id] = parent.id
            # The pending parent stops being a tip when this is its first child.
            new_leaf = 0 if pending[parent.id][2] == 1 else 1
            up: str | None = parent.id
            top = parent.id
            while up is not None:
                t = pending[up]
                t[0] += record.tokens
                t[1] += record.cost
                t[2] += 1
                t[3] += new_leaf
                top = up
                up = pending_parent.get(up)
            anchor = session.parent_of(session.by_id[top])
            if anchor is not None and anchor.id in groups:
                group = groups[anchor.id]
                group[0] += record.tokens
                group[1] += record.cost
                group[2] += 1
                group[3] += new_leaf
        self.record_count = len(session.records)

    def _totals(self, entry_id: str) -> list[Any] | None:
        """Built figures plus the pending groups inside the subtree, or a pending entry's own."""
        built = self._below.get(entry_id)
        if built is None:
            return self._pending.get(entry_id)
        if not self._groups:
            return built
        first, last = self._span[entry_id]
        out = list(built)
        for anchor, group in self._groups.items():
            at = self._span[anchor][0]
            if first <= at <= last:
                out[0] += group[0]
                out[1] += group[1]
                out[2] += group[2]
                out[3] += group[3]
        return out

    def current(self, session: Session) -> BranchTotals:
        if (
            self.generation != session.generation
            or self.tree_version != session.tree_version
            or len(self._pending) > _FOLD_AFTER
        ):
            return BranchTotals(session)
        if len(session.records) != self.record_count:
            self._grow(session)
        return self

    def below(self, entry_id: str) -> SubtreeTotals | None:
        """The entry and everything under it (None for an id not in the tree)."""
        totals = self._totals(entry_id)
        return SubtreeTotals(*totals) if totals is not None else None

    def fork(self, entry_id: str) -> list[ForkBranch]:
        """Each child's subtree at a fork point, in pi's child order ([] when it is no fork)."""
        session = self._session()
        if session is None:
            return []
        kids = session.children_of(entry_id)
        if len(kids) < 2:
            return []
        out = []
        for kid in kids:
            totals = self._totals(kid)
            if totals is not None:
                out.append(ForkBranch(kid, SubtreeTotals(*totals)))
        return out

    def branch(self, entry_id: str) -> ForkBranch | None:
        """The branch `entry_id` is on: the nearest entry at or above it that is a child of a
        fork point (or a root), with everything below that (None when the entry is unknown).
        A tree row that starts a branch may be a descendant of it when a view hides the rest."""
        session = self._session()
        if session is None:
            return None
        record = session.by_id.get(entry_id)
        while record is not None:
            parent = session.parent_of(record)
            if parent is None or session.child_count(parent.id) > 1:
                totals = self._totals(record.id)
                return ForkBranch(record.id, SubtreeTotals(*totals)) if totals is not None else None
            record = parent
        return None

    def forks(self) -> list[str]:
        """Every fork point (an entry with two or more children), in tree preorder."""
        session = self._session()
        if session is None:
            return []
        return [node for node in session.preorder() if session.child_count(node) > 1]


# Pending entries kept before the totals are walked again: a query of a built entry adds one
# figure per group, of a pending one nothing, so this only bounds memory and the walk up the
# pending entries.
_FOLD_AFTER = 4096

_cache: weakref.WeakKeyDictionary[Session, BranchTotals] = weakref.WeakKeyDictionary()


def branch_totals(session: Session) -> BranchTotals:
    """The session's subtree totals, built on first use and kept current after."""
    found = _cache.get(session)
    found = found.current(session) if found is not None else BranchTotals(session)
    _cache[session] = found
    return found
