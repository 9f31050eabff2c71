"""The context over time: the size each assistant reply reported along a path, compactions marked,
and a one-line sparkline of it (Unicode or ASCII), with a mark where a compaction was and another
before each reply that lost the prompt cache (core/projection/cache_breaks.py says which).

A reply's size is pi's `calculateContextTokens` of its usage (what the provider counted for that
request); aborted and error replies and replies without usage report nothing and are left out.
A compaction sits between two replies; `dropped` says the context was smaller after it.
"""

from __future__ import annotations

import bisect
import math
import weakref
from array import array
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..common.glyphs import ASCII, UNICODE
from ..reading.records import EntryRecord
from ..session.session import Session
from .tokens import read_reported, reported_context

BARS = "▁▂▃▄▅▆▇█"
ASCII_BARS = ".:-=+*#@"
MARK = "┊"
ASCII_MARK = "|"
BREAK_MARK = UNICODE.cache_break  # before a reply that lost the prompt cache
ASCII_BREAK_MARK = ASCII.cache_break


@dataclass(frozen=True, slots=True)
class TurnPoint:
    entry_id: str
    position: int  # index of the reply on the path (root = 0)
    tokens: int | float  # the context size its usage reports


@dataclass(frozen=True, slots=True)
class CompactionMark:
    entry_id: str
    position: int  # index on the path
    turn: int  # the mark sits before points[turn] (len(points): after the last reply)
    tokens_before: int | float | None  # as the compaction entry recorded it
    dropped: bool  # the next reply reported less than the last one before the compaction


def _positions(values: Iterable[int] = ()) -> array[int]:
    return array("q", values)


@dataclass(frozen=True, slots=True)
class ContextTimeline:
    """The replies that report a size, in columns (a long path has tens of thousands: no
    object each, and a move cuts or extends the columns): the i-th reply is `ids[i]` at
    `positions[i]` on the path, reporting `tokens[i]`."""

    ids: tuple[str, ...]
    positions: array[int]
    tokens: tuple[int | float, ...]
    compactions: tuple[CompactionMark, ...]

    @classmethod
    def empty(cls) -> ContextTimeline:
        return cls((), _positions(), (), ())

    @property
    def points(self) -> tuple[TurnPoint, ...]:
        """The replies one object each (made on demand)."""
        return tuple(map(TurnPoint, self.ids, self.positions, self.tokens))

    @property
    def values(self) -> list[int | float]:
        return list(self.tokens)

    @property
    def peak(self) -> int | float:
        return max(self.tokens, default=0)

    def sparkline(
        self, width: int, *, ascii: bool = False, ceiling: float | None = None, breaks: Collection[int] = ()
    ) -> str:
        """One line, at most `width` cells: a bar per reply, a mark where a compaction was (and
        before the replies at `breaks`: those that lost the prompt cache)."""
        return sparkline(
            self.tokens,
            width,
            ascii=ascii,
            marks=[c.turn for c in self.compactions],
            ceiling=ceiling,
            breaks=breaks,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "turns": [
                {"id": i, "position": p, "tokens": t}
                for i, p, t in zip(self.ids, self.positions, self.tokens, strict=True)
            ],
            "compactions": [
                {
                    "id": c.entry_id,
                    "position": c.position,
                    "before_turn": c.turn,
                    "tokensBefore": c.tokens_before,
                    "dropped": c.dropped,
                }
                for c in self.compactions
            ],
        }


class _Last(NamedTuple):
    """The last timeline built for a session: a move along the same branch starts from it."""

    generation: int
    tree_version: int
    path: Sequence[EntryRecord]
    length: int  # the timeline is of path[:length]
    timeline: ContextTimeline


_last: weakref.WeakKeyDictionary[Session, _Last] = weakref.WeakKeyDictionary()


def context_timeline(
    session: Session, path: Sequence[EntryRecord], length: int | None = None
) -> ContextTimeline:
    """The reported context of every assistant reply on `path` (root first; its first `length`
    entries when given), compactions marked.

    Reads each reply's body once per session (remembered by `reported_context`); a path that
    extends or shortens the previous one (a cursor move along a branch) costs only the
    difference."""
    n = len(path) if length is None else min(length, len(path))
    last = _last.get(session)
    known = _known_length(session, path, n, last)
    timeline: ContextTimeline | None = None
    if last is not None and known == n and n:
        timeline = _prefix(last.timeline, n)
    elif last is not None and known:
        timeline = _extend(session, path, known, n, last.timeline)
    if timeline is None:
        timeline = _extend(session, path, 0, n, ContextTimeline.empty())
    _last[session] = _Last(session.generation, session.tree_version, path, n, timeline)
    return timeline


def _known_length(session: Session, path: Sequence[EntryRecord], n: int, last: _Last | None) -> int:
    """How many of the first `n` entries of `path` the last timeline built for the session
    already covers."""
    if last is None or (last.generation, last.tree_version) != (session.generation, session.tree_version):
        return 0
    old, done = last.path, last.length
    if n and n <= done and old[n - 1] is path[n - 1]:
        return n
    if done and n > done and path[done - 1] is old[done - 1]:
        return done
    return 0


def timeline_steps(
    session: Session, path: Sequence[EntryRecord], step: int = 2000
) -> Iterator[ContextTimeline | None]:
    """`context_timeline(session, path)` a piece at a time, for a caller that must not block
    (the browser's event loop): None after each `step` entries not read yet, then the timeline.
    What a step built is kept, so the next call (a move) goes on from there."""
    done = _known_length(session, path, len(path), _last.get(session))
    for end in range(done + step, len(path), step):
        context_timeline(session, path, end)
        yield None
    yield context_timeline(session, path)


def _prefix(timeline: ContextTimeline, length: int) -> ContextTimeline:
    """The timeline of the first `length` entries of the path it was built on."""
    kept = bisect.bisect_left(timeline.positions, length)
    marks = []
    for mark in timeline.compactions:
        if mark.position >= length:
            break
        if mark.turn >= kept:  # no reply after it within the prefix
            mark = CompactionMark(mark.entry_id, mark.position, kept, mark.tokens_before, False)
        marks.append(mark)
    return ContextTimeline(
        timeline.ids[:kept], timeline.positions[:kept], timeline.tokens[:kept], tuple(marks)
    )


def _extend(
    session: Session, path: Sequence[EntryRecord], start: int, end: int, base: ContextTimeline
) -> ContextTimeline:
    """`base` (the timeline of path[:start]) continued over path[start:end]."""
    # The replies added, after the base's (a move or an append adds a few to tens of thousands).
    ids: list[str] = []
    positions: list[int] = []
    tokens_of: list[int | float] = []
    before = len(base.tokens)
    marks = [m for m in base.compactions if m.turn < before]
    pending = [m for m in base.compactions if m.turn >= before]  # no reply after them yet
    read_reported(session, path[start:end])  # the replies' bodies in runs, not one read each
    last = base.tokens[-1] if base.tokens else None
    for position in range(start, end):
        record = path[position]
        kind = record.type
        if kind == "compaction":
            pending.append(_mark(record, position, before + len(ids), False))
            continue
        if kind != "message" or record.role != "assistant":
            continue
        tokens = reported_context(session, record)
        if tokens is None:
            continue
        if pending:
            dropped = last is not None and tokens < last
            marks.extend(
                CompactionMark(m.entry_id, m.position, m.turn, m.tokens_before, dropped) for m in pending
            )
            pending.clear()
        ids.append(record.id)
        positions.append(position)
        tokens_of.append(tokens)
        last = tokens
    compactions = tuple(marks + pending)
    if not ids:
        return ContextTimeline(base.ids, base.positions, base.tokens, compactions)
    return ContextTimeline(
        base.ids + tuple(ids),
        base.positions + _positions(positions),
        base.tokens + tuple(tokens_of),
        compactions,
    )


def _mark(record: EntryRecord, position: int, turn: int, dropped: bool) -> CompactionMark:
    before = record.tokensBefore
    number = before if isinstance(before, int | float) and not isinstance(before, bool) else None
    return CompactionMark(record.id, position, turn, number, dropped)


def sparkline(
    values: Sequence[float],
    width: int,
    *,
    ascii: bool = False,
    marks: Collection[int] = (),
    ceiling: float | None = None,
    breaks: Collection[int] = (),
) -> str:
    """`values` as bars in at most `width` cells, scaled to `ceiling` (default: the largest
    value); `marks` are indexes into `values` before which a mark is drawn (len(values): at the
    end), `breaks` indexes of values that lost the prompt cache, each with a break mark before
    its bar (after a compaction's mark there). When there are more values than cells, each cell
    shows the largest of its share, and a mark sits before the cell holding its value; with more
    marks than half the cells, the last ones are drawn."""
    if width <= 0 or (not values and not marks):
        return ""
    bars, mark, broke = (ASCII_BARS, ASCII_MARK, ASCII_BREAK_MARK) if ascii else (BARS, MARK, BREAK_MARK)
    count = len(values)
    wanted = [(m, 0) for m in sorted({m for m in marks if 0 <= m <= count})]
    wanted += [(b, 1) for b in sorted({b for b in breaks if 0 <= b < count})]
    mark_cells = min(len(wanted), width // 2)
    cells = max(width - mark_cells, 1)
    if count <= cells:
        buckets: list[Sequence[float]] = [(v,) for v in values]
        placed = set(wanted)
    else:
        # Bucket i holds values[bounds[i]:bounds[i + 1]]; a mark before value m sits before
        # the bucket holding m (one at len(values): after the last bucket).
        bounds = [i * count // cells for i in range(cells + 1)]
        buckets = [values[bounds[i] : bounds[i + 1]] for i in range(cells)]
        placed = {(bisect.bisect_right(bounds, m) - 1, kind) for m, kind in wanted}
    highs = [max(bucket) for bucket in buckets]  # (no bucket is empty)
    top = ceiling if ceiling is not None and ceiling > 0 else max(highs, default=0)
    kept = set(sorted(placed)[-mark_cells:]) if mark_cells else set()
    out: list[str] = []
    for index, high in enumerate(highs):
        if (index, 0) in kept:
            out.append(mark)
        if (index, 1) in kept:
            out.append(broke)
        out.append(_bar(high, top, bars))
    if (len(buckets), 0) in kept:
        out.append(mark)
    return "".join(out[:width])


def _bar(value: float, top: float, bars: str) -> str:
    if top <= 0 or value <= 0:
        return bars[0]
    share = value / top  # NaN when both are infinite (a session can report 1e400 tokens)
    if not math.isfinite(share):
        return bars[-1] if share > 0 or math.isnan(share) else bars[0]
    level = math.ceil(share * len(bars)) - 1
    return bars[min(max(level, 0), len(bars) - 1)]
