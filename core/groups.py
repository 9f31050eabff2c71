"""The sidebar's shape: sessions grouped by working directory, forks nested under parents.

Groups follow the header's `cwd` (the folder name is only pi's encoding of it), ordered by
their latest activity, with the current directory first when it has sessions. Inside a group
sessions are newest first (or by name, by size, or by cost); a fork whose parent is in the same group
is listed right under it, one level deeper.

A search filters those rows (`filter_rows`) instead of grouping again: as you type, groups and
sessions keep their places, and each result gets a `HitRow` under it (the sidebar draws there
where the session matched, cut to the row's width when it is drawn).
"""

from __future__ import annotations

import os
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from .listing import SessionSummary


class SortOrder(StrEnum):
    RECENT = "recent"
    NAME = "name"
    SIZE = "size"
    COST = "cost"  # most expensive first (not in the `s` cycle until the sidebar shows cost)

    def next(self) -> SortOrder:
        order = [SortOrder.RECENT, SortOrder.NAME, SortOrder.SIZE]
        return order[(order.index(self) + 1) % len(order)] if self in order else SortOrder.RECENT


@dataclass(frozen=True, slots=True)
class GroupRow:
    cwd: str
    title: str  # the cwd with the home folder shown as ~
    count: int
    is_current: bool


@dataclass(frozen=True, slots=True)
class SessionRow:
    summary: SessionSummary
    depth: int  # 0, or 1+ when nested under the session it was forked from


class HitRow:
    """The line under a search result: where that session matched (one per result and
    keystroke: a plain slotted class, the cheapest to make)."""

    __slots__ = ("depth", "summary")

    def __init__(self, summary: SessionSummary, depth: int) -> None:
        self.summary = summary
        self.depth = depth

    def __repr__(self) -> str:
        return f"HitRow({self.summary.path!r}, {self.depth})"


SidebarRow = GroupRow | SessionRow | HitRow


def home_relative(path: str, home: str | None = None) -> str:
    home = home if home is not None else os.path.expanduser("~")
    if home and home != "/" and (path == home or path.startswith(home.rstrip("/") + "/")):
        return "~" + path[len(home.rstrip("/")) :]
    return path or "(no cwd)"


def _sort_key(order: SortOrder):  # type: ignore[no-untyped-def]
    if order is SortOrder.NAME:
        return lambda s: (s.title.casefold(), -s.modified_ms)
    if order is SortOrder.SIZE:
        return lambda s: (-s.message_count, -s.size, -s.modified_ms)
    if order is SortOrder.COST:
        return lambda s: (-s.cost, -s.tokens, -s.modified_ms)
    return lambda s: (-s.modified_ms, -s.mtime_ns)


def build_rows(
    summaries: Iterable[SessionSummary],
    *,
    current_cwd: str | None = None,
    only_current: bool = False,
    named_only: bool = False,
    order: SortOrder = SortOrder.RECENT,
    home: str | None = None,
) -> list[SidebarRow]:
    """Rows to draw (`filter_rows` keeps a search's results of them)."""
    current = os.path.abspath(current_cwd) if current_cwd else None
    groups: dict[str, list[SessionSummary]] = {}
    for summary in summaries:
        if named_only and not summary.name:
            continue
        if only_current and (current is None or _norm(summary.cwd) != current):
            continue
        groups.setdefault(_norm(summary.cwd), []).append(summary)

    def latest(cwd: str) -> float:
        return max(s.modified_ms for s in groups[cwd])

    ordered = sorted(groups, key=lambda cwd: (cwd != current, -latest(cwd), cwd))
    rows: list[SidebarRow] = []
    key = _sort_key(order)
    for cwd in ordered:
        members = sorted(groups[cwd], key=key)
        rows.append(GroupRow(cwd, home_relative(cwd, home), len(members), cwd == current))
        rows.extend(_nested(members))
    return rows


def filter_rows(rows: Sequence[SidebarRow], keep: Container[str]) -> list[SidebarRow]:
    """The rows of the sessions whose path is in `keep`, each followed by its `HitRow`, under
    their group's header (counted again; a group with none goes); a kept fork whose parent
    is not kept moves up to its nearest kept ancestor's level. Linear in the rows: fit for
    every keystroke."""
    out: list[SidebarRow] = []
    append = out.append
    header: GroupRow | None = None
    header_at = count = 0
    top_kept = False  # the last top-level session row: kept?
    kept_above: list[bool] | None = None  # the rows above a nested one, per depth: kept?
    for row in rows:
        if type(row) is SessionRow:
            summary, depth = row.summary, row.depth
            kept = summary.path in keep
            if not depth:
                top_kept, kept_above = kept, None
                if kept:
                    append(row)
                    append(HitRow(summary, 0))
                    count += 1
                continue
            if kept_above is None:
                kept_above = [top_kept]
            del kept_above[depth:]
            kept_above.extend([False] * (depth - len(kept_above)))
            shown = sum(kept_above)
            kept_above.append(kept)
            if kept:
                append(row if shown == depth else SessionRow(summary, shown))
                append(HitRow(summary, shown))
                count += 1
        elif type(row) is GroupRow:
            if header is not None:
                _close_group(out, header, header_at, count)
            header, count, header_at = row, 0, len(out)
            append(row)
    if header is not None:
        _close_group(out, header, header_at, count)
    return out


def _close_group(out: list[SidebarRow], header: GroupRow, at: int, count: int) -> None:
    """The group's header says how many sessions were kept; without any, it goes."""
    if count:
        out[at] = GroupRow(header.cwd, header.title, count, header.is_current)
    else:
        del out[at:]


def _norm(cwd: str) -> str:
    return os.path.normpath(cwd) if cwd else ""


def _nested(members: list[SessionSummary]) -> list[SessionRow]:
    by_path = {s.path: s for s in members}
    children: dict[str, list[SessionSummary]] = {}
    tops: list[SessionSummary] = []
    for summary in members:
        parent = summary.parent_session_path
        if isinstance(parent, str) and parent in by_path and parent != summary.path:
            children.setdefault(parent, []).append(summary)
        else:
            tops.append(summary)
    out: list[SessionRow] = []
    placed: set[str] = set()
    stack = [(s, 0) for s in reversed(tops)]
    while stack:
        summary, depth = stack.pop()
        if summary.path in placed:
            continue  # a parent cycle between files: show each once
        placed.add(summary.path)
        out.append(SessionRow(summary, depth))
        for child in reversed(children.get(summary.path, ())):
            stack.append((child, depth + 1))
    for summary in members:  # members only reachable through a cycle
        if summary.path not in placed:
            out.append(SessionRow(summary, 0))
    return out
