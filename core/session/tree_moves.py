"""pi's branch-segment moves on the drawn rows of the branch tree: fold a segment or go to the
start of the one above (`app.tree.foldOrUp`), unfold or go to the next segment start or the
branch's end (`app.tree.unfoldOrDown`), as pi 1.6.0's tree selector does.

The rows are in tree order; a chain of single children shares a depth, and each branch below
a fork point starts one level deeper with `branch_start` set (core/session/outline.py). So a row's
visible parent is the row before it in its chain, or, for a branch start, the nearest row
above it one level up: both found by looking at rows, not at the session.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Row(Protocol):
    @property
    def depth(self) -> int: ...
    @property
    def branch_start(self) -> bool: ...
    @property
    def folded(self) -> bool: ...


def visible_parent(rows: Sequence[Row], index: int) -> int | None:
    """The row of the nearest shown ancestor (None: a root)."""
    row = rows[index]
    if row.branch_start:
        for above in range(index - 1, -1, -1):
            if rows[above].depth < row.depth:
                return above
        return None
    return index - 1 if index > 0 else None


def _continues(rows: Sequence[Row], index: int) -> bool:
    """The next row is this one's child in the same chain."""
    nxt = index + 1
    return nxt < len(rows) and rows[nxt].depth == rows[index].depth and not rows[nxt].branch_start


def has_shown_children(rows: Sequence[Row], index: int) -> bool:
    nxt = index + 1
    return nxt < len(rows) and (rows[nxt].depth > rows[index].depth or _continues(rows, index))


def is_segment_start(rows: Sequence[Row], index: int) -> bool:
    """A root or the first row of a branch below a fork point."""
    return rows[index].branch_start or visible_parent(rows, index) is None


def can_fold(rows: Sequence[Row], index: int) -> bool:
    """pi folds a segment start that has rows below it and is not folded yet."""
    return not rows[index].folded and is_segment_start(rows, index) and has_shown_children(rows, index)


def segment_start_above(rows: Sequence[Row], index: int) -> int:
    """The start of this row's segment, or, on a segment start, of the one above it; a root
    stays where it is."""
    current = index
    while True:
        parent = visible_parent(rows, current)
        if parent is None:
            return current
        if rows[current].branch_start and current < index:
            return current
        current = parent


def segment_start_below(rows: Sequence[Row], index: int) -> int:
    """Down the chain to the first row of the next fork's first branch, or to the branch's
    last row (a folded row ends it)."""
    current = index
    while True:
        if _continues(rows, current):
            current += 1
            continue
        nxt = current + 1
        if nxt < len(rows) and rows[nxt].depth > rows[current].depth:
            return nxt
        return current
