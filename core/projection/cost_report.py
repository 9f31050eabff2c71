"""Tokens and cost of many sessions' paid replies, grouped by period, model or project (pure).

Each paid reply is counted once however many files hold it: a fork or a clone copies earlier
replies into its new file, and those copies were not paid again. The first file that holds a
reply (in the order given: oldest session first) is the one it is counted for, so its
project is where it was made.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from .paid_replies import PaidReply

Grouping = Literal["day", "week", "month", "model", "cwd"]
GROUPINGS: tuple[Grouping, ...] = ("day", "week", "month", "model", "cwd")
PERIODS: tuple[Grouping, ...] = ("day", "week", "month")

NO_TIME = "unknown"  # the period of a reply whose time cannot be read


@dataclass(frozen=True, slots=True)
class CostGroup:
    key: str
    input: int
    output: int
    cache_read: int
    cache_write: int
    cost: float
    replies: int
    estimated: int  # replies whose cost is a catalog estimate, not the provider's bill

    @property
    def tokens(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "input": self.input,
            "output": self.output,
            "cache_read": self.cache_read,
            "cache_write": self.cache_write,
            "cost": round(self.cost, 6),
            "replies": self.replies,
            "estimated": self.estimated,
        }


@dataclass(frozen=True, slots=True)
class CostReport:
    by: Grouping
    groups: tuple[CostGroup, ...]  # periods oldest first; models and projects costliest first
    total: CostGroup
    copies: int  # replies found again in another file (or line) and not counted again


def period_key(time_ms: float | None, by: Grouping) -> str:
    """The UTC day `YYYY-MM-DD`, ISO week `YYYY-Www` or month `YYYY-MM` of a time."""
    if time_ms is None:
        return NO_TIME
    try:
        day = dt.datetime.fromtimestamp(time_ms / 1000, dt.UTC).date()
    except (OverflowError, OSError, ValueError):
        return NO_TIME
    if by == "week":
        year, week, _ = day.isocalendar()
        return f"{year:04d}-W{week:02d}"
    if by == "month":
        return f"{day.year:04d}-{day.month:02d}"
    return day.isoformat()


def group_key(reply: PaidReply, by: Grouping) -> str:
    if by == "model":
        return reply.model_key
    if by == "cwd":
        return reply.cwd
    return period_key(reply.time_ms, by)


def unique_replies(replies: Iterable[PaidReply]) -> tuple[list[PaidReply], int]:
    """Each identity's first reply, in order, and how many copies were left out."""
    seen: set[str] = set()
    kept: list[PaidReply] = []
    copies = 0
    for reply in replies:
        if reply.identity in seen:
            copies += 1
            continue
        seen.add(reply.identity)
        kept.append(reply)
    return kept, copies


class _Sum:
    __slots__ = ("cache_read", "cache_write", "cost", "estimated", "input", "output", "replies")

    def __init__(self) -> None:
        self.input = self.output = self.cache_read = self.cache_write = 0
        self.cost = 0.0
        self.replies = self.estimated = 0

    def add(self, reply: PaidReply) -> None:
        self.input += reply.input
        self.output += reply.output
        self.cache_read += reply.cache_read
        self.cache_write += reply.cache_write
        self.cost += reply.cost
        self.replies += 1
        self.estimated += not reply.billed

    def group(self, key: str) -> CostGroup:
        return CostGroup(
            key,
            self.input,
            self.output,
            self.cache_read,
            self.cache_write,
            self.cost,
            self.replies,
            self.estimated,
        )


def cost_report(
    replies: Iterable[PaidReply], by: Grouping = "day", since_ms: float | None = None
) -> CostReport:
    """The report of `replies` (oldest session's first), counting each identity once; with
    `since_ms`, only replies made at or after that time (a reply without a time is left out)."""
    if since_ms is not None:
        # (A copy has its original's time: filtering first leaves out both or neither.)
        replies = (r for r in replies if r.time_ms is not None and r.time_ms >= since_ms)
    kept, copies = unique_replies(replies)
    sums: dict[str, _Sum] = {}
    total = _Sum()
    for reply in kept:
        key = group_key(reply, by)
        found = sums.get(key)
        if found is None:
            found = sums[key] = _Sum()
        found.add(reply)
        total.add(reply)
    groups = [s.group(k) for k, s in sums.items()]
    if by in PERIODS:
        groups.sort(key=lambda g: (g.key == NO_TIME, g.key))
    else:
        groups.sort(key=lambda g: (-g.cost, -g.tokens, g.key))
    return CostReport(by, tuple(groups), total.group("total"), copies)


MAX_FILLED = 5000  # periods between the first and the last; past that only those with replies


@dataclass(frozen=True, slots=True)
class CostSeries:
    """The cost of each period from the first to the last (empty periods too, as 0), in all
    and split by model or project: the figures of a plot over time."""

    by: Grouping
    periods: tuple[str, ...]
    total: tuple[float, ...]
    parts: tuple[tuple[str, tuple[float, ...]], ...]  # (model or cwd, its cost per period), costliest first


def _next_period(key: str, by: Grouping) -> str | None:
    try:
        if by == "month":
            year, month = int(key[:4]), int(key[5:7])
            return f"{year + month // 12:04d}-{month % 12 + 1:02d}"
        if by == "week":
            day = dt.date.fromisocalendar(int(key[:4]), int(key[6:8]), 1) + dt.timedelta(days=7)
            year, week, _ = day.isocalendar()
            return f"{year:04d}-W{week:02d}"
        return (dt.date.fromisoformat(key) + dt.timedelta(days=1)).isoformat()
    except (ValueError, OverflowError):
        return None


def _filled(keys: list[str], by: Grouping) -> list[str]:
    """Every period from the first of `keys` (sorted) to the last; `keys` when that is too many."""
    if not keys:
        return []
    out = [keys[0]]
    while out[-1] < keys[-1] and len(out) <= MAX_FILLED:
        following = _next_period(out[-1], by)
        if following is None:
            return keys
        out.append(following)
    return out if len(out) <= MAX_FILLED else keys


def cost_series(
    replies: Iterable[PaidReply],
    by: Grouping = "day",
    split: Literal["model", "cwd"] = "model",
    since_ms: float | None = None,
) -> CostSeries:
    """The cost per period (`by`: day, week or month) of `replies`, each identity once, in all
    and for each model or project (`split`); a reply without a time is left out."""
    if by not in PERIODS:
        raise ValueError(f"not a period: {by}")
    if since_ms is not None:
        replies = (r for r in replies if r.time_ms is not None and r.time_ms >= since_ms)
    kept, _ = unique_replies(replies)
    cells: dict[tuple[str, str], float] = {}
    spent: dict[str, float] = {}
    for reply in kept:
        period = period_key(reply.time_ms, by)
        if period == NO_TIME:
            continue
        part = group_key(reply, split)
        cells[part, period] = cells.get((part, period), 0.0) + reply.cost
        spent[part] = spent.get(part, 0.0) + reply.cost
    periods = _filled(sorted({period for _, period in cells}), by)
    parts = sorted(spent, key=lambda p: (-spent[p], p))
    rows = tuple((p, tuple(cells.get((p, period), 0.0) for period in periods)) for p in parts)
    total = tuple(sum(row[i] for _, row in rows) for i in range(len(periods)))
    return CostSeries(by, tuple(periods), total, rows)
