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
    """Subtree totals of one session's tree (use `branch_totals(session)` to get them)."""

    def __init__(self, session: Session) -> None:
        self._session = weakref.ref(session)
        self.generation = session.generation
        self.tree_version = session.tree_version
        self.record_count = len(session.records)
        # entry id -> [tokens, cost, entries, leaves] of the subtree under it (itself included)
        self._below: dict[str, list[Any]] = {}
        self._build(session)

    def _build(self, session: Session) -> None:
        below = self._below
        children_of = session.children_of
        by_id = session.by_id
        for root in session.roots:
            # Iterative post-order: a conversation is a chain thousands of entries deep.
            stack: list[tuple[str, bool]] = [(root, False)]
            while stack:
                node, done = stack.pop()
                kids = children_of(node)
                if not done:
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

    def _grow(self, session: Session) -> None:
        """Entries appended without a tree rebuild: add each to its ancestors."""
        for record in session.records[self.record_count :]:
            if session.by_id.get(record.id) is not record or record.id in self._below:
                continue
            self._below[record.id] = [record.tokens, record.cost, 1, 1]
            parent = session.parent_of(record)
            # The parent stops being a tip when this is its first child.
            new_leaf = 0 if parent is not None and self._below.get(parent.id, [0, 0, 1, 1])[2] == 1 else 1
            while parent is not None:
                totals = self._below.get(parent.id)
                if totals is None:
                    break
                totals[0] += record.tokens
                totals[1] += record.cost
                totals[2] += 1
                totals[3] += new_leaf
                parent = session.parent_of(parent)
        self.record_count = len(session.records)

    def current(self, session: Session) -> BranchTotals:
        if self.generation != session.generation or self.tree_version != session.tree_version:
            return BranchTotals(session)
        if len(session.records) != self.record_count:
            self._grow(session)
        return self

    def below(self, entry_id: str) -> SubtreeTotals | None:
        """The entry and everything under it (None for an id not in the tree)."""
        totals = self._below.get(entry_id)
        return SubtreeTotals(*totals) if totals is not None else None

    def fork(self, entry_id: str) -> list[ForkBranch]:
        """Each child's subtree at a fork point, in pi's child order ([] when it is no fork)."""
        session = self._session()
        if session is None:
            return []
        kids = session.children_of(entry_id)
        if len(kids) < 2:
            return []
        return [ForkBranch(kid, SubtreeTotals(*self._below[kid])) for kid in kids if kid in self._below]

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
                totals = self._below.get(record.id)
                return ForkBranch(record.id, SubtreeTotals(*totals)) if totals is not None else None
            record = parent
        return None

    def forks(self) -> list[str]:
        """Every fork point (an entry with two or more children), in tree preorder."""
        session = self._session()
        if session is None:
            return []
        return [node for node in session.preorder() if session.child_count(node) > 1]


_cache: weakref.WeakKeyDictionary[Session, BranchTotals] = weakref.WeakKeyDictionary()


def branch_totals(session: Session) -> BranchTotals:
    """The session's subtree totals, built on first use and kept current after."""
    found = _cache.get(session)
    found = found.current(session) if found is not None else BranchTotals(session)
    _cache[session] = found
    return found
