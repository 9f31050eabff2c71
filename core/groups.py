"""The sidebar's shape: sessions grouped by working directory, forks nested under parents.

Groups follow the header's `cwd` (the folder name is only pi's encoding of it), ordered by
their latest activity, with the current directory first when it has sessions. Inside a group
sessions are newest first (or by name, by size, or by cost); a fork whose parent is in the same group
is listed right under it, one level deeper.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from .listing import SessionSummary


class SortOrder(StrEnum):
    RECENT = "recent"
    NAME = "name"
    SIZE = "size"
    COST = "cost"  # most expensive first

    def next(self) -> SortOrder:
        order = list(SortOrder)
        return order[(order.index(self) + 1) % len(order)]


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
    matched: str = ""  # which fields a search matched (empty without a search)


SidebarRow = GroupRow | SessionRow


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
    matches: Mapping[str, str] | None = None,
    home: str | None = None,
) -> list[SidebarRow]:
    """Rows to draw. `matches` (path -> matched fields) restricts to search results."""
    current = os.path.abspath(current_cwd) if current_cwd else None
    groups: dict[str, list[SessionSummary]] = {}
    for summary in summaries:
        if matches is not None and summary.path not in matches:
            continue
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
        rows.extend(_nested(members, matches or {}))
    return rows


def _norm(cwd: str) -> str:
    return os.path.normpath(cwd) if cwd else ""


def _nested(members: list[SessionSummary], matches: Mapping[str, str]) -> list[SessionRow]:
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
        out.append(SessionRow(summary, depth, matches.get(summary.path, "")))
        for child in reversed(children.get(summary.path, ())):
            stack.append((child, depth + 1))
    for summary in members:  # members only reachable through a cycle
        if summary.path not in placed:
            out.append(SessionRow(summary, 0, matches.get(summary.path, "")))
    return out
