"""The sidebar's shape: sessions grouped by working directory, forks nested under parents.

Subagent sessions are folded under their parent (a count on its row), listed under it
when it is unfolded (`children`, `expanded`).

Groups follow the header's `cwd` (the folder name is only pi's encoding of it), ordered by
their latest activity, with the current directory first when it has sessions. Inside a group
sessions are newest first (or by name, by size, or by cost); a fork whose parent is in the same group
is listed right under it, one level deeper; pinned sessions (core/listing/marks.py) come
first in their group.

A search filters those rows (`filter_rows`) instead of grouping again: as you type, groups and
sessions keep their places, and each result gets a hit line under it (`HIT_LINE`: the sidebar
draws there where the session above matched, cut to the row's width when it is drawn).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import chain, compress, islice, repeat
from operator import attrgetter, ge

import msgspec

from .summary import SessionSummary


class SortOrder(StrEnum):
    RECENT = "recent"
    NAME = "name"
    SIZE = "size"
    COST = "cost"  # most expensive first

    def next(self) -> SortOrder:
        order = list(SortOrder)
        return order[(order.index(self) + 1) % len(order)]


# Rows are msgspec structs: made at C speed (a frozen dataclass's __init__ cost 10 ms for
# 30,000 rows at every start); equal and hashed by their fields, like frozen dataclasses.
class GroupRow(msgspec.Struct, frozen=True, gc=False):
    cwd: str
    title: str  # the cwd with the home folder shown as ~
    count: int
    is_current: bool


class SessionRow(msgspec.Struct, frozen=True, gc=False):
    summary: SessionSummary
    depth: int  # 0, or 1+ when nested under the session it was forked from (or a subagent's parent)
    subagents: int = 0  # the subagent sessions folded under this one (core/listing/subagents.py)
    expanded: bool = False  # they are shown, under it
    subagent: bool = False  # this row is one of them


class HitLine:
    """The line under a search result: where the session in the row above matched. One
    object for every such line (`HIT_LINE`): a keystroke that keeps 20,000 results makes
    no object per result (and the garbage collector has nothing new to walk)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "HIT_LINE"


HIT_LINE = HitLine()

SidebarRow = GroupRow | SessionRow | HitLine


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
    return None  # newest first: see _newest_first


def _newest_first(members: list[SessionSummary]) -> list[SessionSummary]:
    """`(-modified_ms, -mtime_ns)` ascending, in two stable sorts at C speed (the listing
    comes in this order already: then each is one pass)."""
    members = sorted(members, key=_MTIME, reverse=True)
    members.sort(key=_MODIFIED, reverse=True)
    return members


_MTIME = attrgetter("mtime_ns")
_MODIFIED = attrgetter("modified_ms")
_TIMES = attrgetter("modified_ms", "mtime_ns")


def build_rows(
    summaries: Iterable[SessionSummary],
    *,
    current_cwd: str | None = None,
    only_current: bool = False,
    named_only: bool = False,
    order: SortOrder = SortOrder.RECENT,
    home: str | None = None,
    pinned: Container[object] = frozenset(),
    children: Mapping[str, Sequence[SessionSummary]] | None = None,
    expanded: Container[str] = frozenset(),
    labels: Mapping[str, str] | None = None,
) -> list[SidebarRow]:
    """Rows to draw (`filter_rows` keeps a search's results of them). Sessions whose id is in
    `pinned` come first in their group, in the group's order (core/listing/marks.py).
    `children`: each parent's subagent sessions (by its path), out of the groups, folded under
    the parent (a count on its row) unless its path is in `expanded`, then listed under it.
    `labels`: the label of each session from another root (by its path): such sessions are
    grouped apart, by label and cwd, the label before the group's title."""
    current = os.path.abspath(current_cwd) if current_cwd else None
    summaries = summaries if isinstance(summaries, list) else list(summaries)
    if children:
        summaries = _without_children(summaries, children)
    # A listing comes newest first: each folder's sessions are then in that order already
    # and its first is its latest (sorting 30,000 again, folder by folder, and taking each
    # folder's latest cost 15 ms of every start).
    times = list(map(_TIMES, summaries))
    in_order = all(map(ge, times, islice(times, 1, None)))
    groups: dict[str, list[SessionSummary]] = {}
    normed: dict[str, str] = {}  # cwd -> its group (a few hundred folders for 30,000 sessions)
    for summary in summaries:
        if named_only and not summary.name:
            continue
        cwd = summary.cwd
        group = normed.get(cwd)
        if group is None:
            group = normed[cwd] = _norm(cwd)
        if only_current and (current is None or group != current):
            continue
        if labels:
            label = labels.get(summary.path)
            if label is not None:
                group = f"{label}\x00{group}"
        members = groups.get(group)
        if members is None:
            groups[group] = [summary]
        else:
            members.append(summary)

    def latest(cwd: str) -> float:
        members = groups[cwd]
        latest: float = members[0].modified_ms if in_order else max(map(_MODIFIED, members))
        return latest

    ordered = sorted(groups, key=lambda cwd: (cwd != current, -latest(cwd), cwd))
    rows: list[SidebarRow] = []
    key = _sort_key(order)
    for cwd in ordered:
        members = groups[cwd]
        if key is not None:
            members = sorted(members, key=key)
        elif not in_order:
            members = _newest_first(members)
        if pinned:
            members = _pinned_first(members, pinned)
        label, _, real = cwd.rpartition("\x00")
        title = f"[{label}] {home_relative(real, home)}" if label else home_relative(real, home)
        rows.append(GroupRow(real, title, len(members), cwd == current))
        nested = _nested(members)
        rows.extend(_with_children(nested, children, expanded) if children else nested)
    return rows


def _without_children(
    summaries: list[SessionSummary], children: Mapping[str, Sequence[SessionSummary]]
) -> list[SessionSummary]:
    """The sessions that are not a subagent of a session listed here (those in a cycle of
    parents stay: no session of it would be reachable else)."""
    here = {s.path for s in summaries}
    parent_of = {kid.path: parent for parent, kids in children.items() if parent in here for kid in kids}
    hidden = set()
    for path in parent_of:
        seen = {path}
        up = parent_of[path]
        while up in parent_of and up not in seen:
            seen.add(up)
            up = parent_of[up]
        if up not in parent_of:  # (reached a session at the top: not a cycle)
            hidden.add(path)
    return [s for s in summaries if s.path not in hidden] if hidden else summaries


def _with_children(
    rows: list[SessionRow],
    children: Mapping[str, Sequence[SessionSummary]],
    expanded: Container[str],
) -> list[SessionRow]:
    """Each parent's row with its subagent count; under an expanded one, its subagents (and
    theirs, each once)."""
    out: list[SessionRow] = []
    seen: set[str] = set()

    def place(row: SessionRow) -> None:
        path = row.summary.path
        kids = children.get(path, ())
        if not kids or path in seen:
            out.append(row)
            return
        seen.add(path)
        is_open = path in expanded
        out.append(SessionRow(row.summary, row.depth, len(kids), is_open, row.subagent))
        if is_open:
            for kid in kids:
                place(SessionRow(kid, row.depth + 1, subagent=True))

    for row in rows:
        place(row)
    return out


def filter_rows(rows: Sequence[SidebarRow], keep: Container[str]) -> list[SidebarRow]:
    """The rows of the sessions whose path is in `keep` (see `ResultRows`, which prepares
    the rows once for many queries)."""
    return ResultRows(rows).keep(keep)


class ResultRows:
    """The listing's rows, ready to keep a query's results of them at every keystroke.

    `keep` returns the rows of the sessions whose path is in `keep`, each followed by
    `HIT_LINE`, under their group's header (counted again; a group with none goes); a kept
    fork whose parent is not kept moves up to its nearest kept ancestor's level. A group
    without forks is filtered at C speed (30,000 sessions in a few milliseconds); the rows
    are split into groups once, when first asked (safe from any thread: nothing changes)."""

    __slots__ = ("_groups", "_numbers", "rows")

    def __init__(self, rows: Sequence[SidebarRow]) -> None:
        self.rows = rows
        self._groups: list[_Group] | None = None
        self._numbers: tuple[object, list[list[int]]] = (None, [])  # (numbering, per group)

    def keep(self, keep: Container[str]) -> list[SidebarRow]:
        contains = keep.__contains__
        return self._keep(contains, [list(map(contains, group.paths)) for group in self._split()])

    def keep_numbered(self, numbering: Mapping[str, int], kept: Sequence[int]) -> list[SidebarRow]:
        """`keep` for the sessions whose number (`numbering[path]`, the last number for a
        path not in it) is truthy in `kept`: a lookup per row at C speed, the numbers of each
        group's rows worked out once per numbering."""
        groups = self._split()
        known, numbers = self._numbers
        if known is not numbering:
            missing = len(numbering)
            numbers = [[numbering.get(path, missing) for path in group.paths] for group in groups]
            self._numbers = (numbering, numbers)
        missing = len(numbering)

        def contains(path: str) -> bool:
            return bool(kept[numbering.get(path, missing)])

        return self._keep(contains, [list(map(kept.__getitem__, n)) for n in numbers])

    def _split(self) -> list[_Group]:
        groups = self._groups
        if groups is None:
            groups = self._groups = _split(self.rows)  # (safe from any thread: nothing changes)
        return groups

    def _keep(self, contains: Callable[[str], object], marks: list[list[object]]) -> list[SidebarRow]:
        out: list[SidebarRow] = []
        for group, marked in zip(self._split(), marks, strict=True):
            kept = _kept_nested(group.rows, contains) if group.nested else list(compress(group.rows, marked))
            if not kept:
                continue
            header = group.header
            if header is not None:
                out.append(GroupRow(header.cwd, header.title, len(kept), header.is_current))
            out.extend(chain.from_iterable(zip(kept, repeat(HIT_LINE))))
        return out


@dataclass(frozen=True, slots=True)
class _Group:
    header: GroupRow | None
    rows: list[SessionRow]
    paths: list[str]
    nested: bool  # has a fork listed under its parent


def _split(rows: Sequence[SidebarRow]) -> list[_Group]:
    groups: list[_Group] = []
    header: GroupRow | None = None
    members: list[SessionRow] = []

    def close() -> None:
        if header is not None or members:
            paths = [row.summary.path for row in members]
            groups.append(_Group(header, members, paths, any(row.depth for row in members)))

    for row in rows:
        if type(row) is GroupRow:
            close()
            header, members = row, []
        elif type(row) is SessionRow:
            members.append(row)
    close()
    return groups


def _kept_nested(rows: list[SessionRow], contains: Callable[[str], object]) -> list[SessionRow]:
    """The kept rows of a group with forks, each at the depth of its kept ancestors."""
    out: list[SessionRow] = []
    kept_above: list[bool] = []  # the rows above this one, per depth: kept?
    for row in rows:
        depth = row.depth
        del kept_above[depth:]
        kept_above.extend([False] * (depth - len(kept_above)))
        shown = sum(kept_above)
        kept = bool(contains(row.summary.path))
        kept_above.append(kept)
        if kept:
            out.append(row if shown == depth else SessionRow(row.summary, shown))
    return out


_PARENT = attrgetter("parent_session_path")


def _pinned_first(members: list[SessionSummary], pinned: Container[object]) -> list[SessionSummary]:
    first = [s for s in members if isinstance(s.id, str) and s.id in pinned]
    if not first:
        return members
    return first + [s for s in members if not (isinstance(s.id, str) and s.id in pinned)]


def _norm(cwd: str) -> str:
    return os.path.normpath(cwd) if cwd else ""


def _nested(members: list[SessionSummary]) -> list[SessionRow]:
    if not any(issubclass(kind, str) for kind in set(map(type, map(_PARENT, members)))):
        return list(map(SessionRow, members, repeat(0)))  # no forks: 30,000 rows at C speed
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
