"""Where the prompt cache broke on a path: each reply's cache reads against what the reply before
it had cached, and when most of that was lost, the likely causes between the two (a model or
thinking-level change, a system-prompt or tool-list change, a compaction, a context edit, an
idle gap past the provider's cache lifetime) and what it cost (the input paid again).

The same answer for one path (`cache_breaks`, `stats --json`), for its last reply alone
(`break_at`, the context header), a piece at a time (`break_steps`, the sparkline) and for every
reply of the tree at once (`tree_cache_breaks`, the tree's markers): a reply's break depends only
on the entries above it. What each reply's usage says is read once per session and kept."""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..common.jsvalues import is_finite_number, js_number
from ..reading.records import EntryRecord, MessageHead
from ..session.session import Session
from .timeline import ContextTimeline
from .window import format_tokens

__all__ = [
    "CacheBreak",
    "TreeCacheBreaks",
    "break_at",
    "break_steps",
    "break_turns",
    "cache_breaks",
    "tree_cache_breaks",
]

LOST_SHARE = 0.5  # a reply reading less than half of what the one before had cached: a break
MIN_PREFIX = 1024  # tokens: below this providers do not cache at all (Anthropic's minimum)
CACHE_LIFETIME_S = 300  # the providers' default cache lifetime (Anthropic, OpenAI: 5 minutes)


@dataclass(frozen=True, slots=True)
class CacheBreak:
    entry_id: str  # the reply that lost the cache
    previous_id: str  # the reply before it on the path
    cache_read: float  # tokens it read from the cache
    expected_read: float  # what the reply before had cached (read + written)
    extra_tokens: float  # input paid in full that the cache would have served
    extra_cost: float | None  # that at the input price less the cache-read price (None: unknown)
    causes: tuple[
        str, ...
    ]  # "model", "thinking-level", "system-prompt", "compaction", "context-edit", "idle", "unknown"
    detail: str

    def summary(self) -> str:
        """One line for a person: what was lost, why, and what it cost."""
        cost = f" (${self.extra_cost:.4f})" if self.extra_cost else ""
        return (
            f"the prompt cache was lost at this reply: {self.detail}; "
            f"{format_tokens(self.extra_tokens)} tokens of input paid again{cost}"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "entry_id": self.entry_id,
            "previous_id": self.previous_id,
            "cache_read": self.cache_read,
            "expected_read": self.expected_read,
            "extra_tokens": self.extra_tokens,
            "extra_cost": None if self.extra_cost is None else round(self.extra_cost, 6),
            "causes": list(self.causes),
            "detail": self.detail,
        }


@dataclass(frozen=True, slots=True)
class _Reply:
    """What a reply's usage says of the cache (a reply without usage, or a failed one: none)."""

    record: EntryRecord
    model: tuple[Any, Any]
    read: float
    write: float
    input: float
    rate_input: float | None  # cost per input token
    rate_read: float | None  # cost per cache-read token


# What lies between a reply and the one before it, as far as a cause goes: the kinds of entry
# seen ("model_change", ..., "system" for a system message) and the entry just above the reply.
_Kinds = frozenset[str]
_NO_KINDS: _Kinds = frozenset()
_CAUSE_KINDS = frozenset({"model_change", "thinking_level_change", "compaction", "context_edit"})


def _num(value: Any) -> float:
    return js_number(value) if is_finite_number(value) else 0.0


def _rate(cost: Any, key: str, tokens: float) -> float | None:
    value = cost.get(key) if isinstance(cost, dict) else None
    return _num(value) / tokens if tokens > 0 and is_finite_number(value) else None


def _is_reply(record: EntryRecord) -> bool:
    return (
        record.type == "message"
        and isinstance(record.message, MessageHead)
        and record.message.role == "assistant"
    )


def _reply_of(record: EntryRecord, message: Any) -> _Reply | None:
    if not isinstance(message, dict) or message.get("stopReason") in ("error", "aborted"):
        return None
    usage = message.get("usage")
    if not isinstance(usage, dict):
        return None
    read, write, inp = _num(usage.get("cacheRead")), _num(usage.get("cacheWrite")), _num(usage.get("input"))
    cost = usage.get("cost")
    return _Reply(
        record,
        (message.get("provider"), message.get("model")),
        read,
        write,
        inp,
        _rate(cost, "input", inp),
        _rate(cost, "cacheRead", read),
    )


class _Known:
    """The replies of one reading of a session read so far, by record index."""

    def __init__(self, generation: int) -> None:
        self.generation = generation
        self.replies: dict[int, _Reply | None] = {}


_known: weakref.WeakKeyDictionary[Session, _Known] = weakref.WeakKeyDictionary()


def _known_of(session: Session) -> _Known:
    known = _known.get(session)
    if known is None or known.generation != session.generation:
        known = _known[session] = _Known(session.generation)
    return known


def _read(session: Session, records: Sequence[EntryRecord]) -> dict[int, _Reply | None]:
    """The replies among `records` read (those not read yet, in runs) and kept."""
    known = _known_of(session)
    replies = known.replies
    own = session.records
    wanted = [
        r
        for r in records
        if r.index not in replies and _is_reply(r) and r.index < len(own) and own[r.index] is r
    ]
    if wanted:
        messages = (m for run in session.entry_message_runs(wanted) for m in run)
        for record, message in zip(wanted, messages, strict=True):
            replies[record.index] = _reply_of(record, message)
    return replies


def _kinds(record: EntryRecord) -> _Kinds:
    kind = record.type
    if not isinstance(kind, str):  # (a damaged line's type may be a list)
        return _NO_KINDS
    if kind in _CAUSE_KINDS:
        return frozenset((kind,))
    if kind == "message" and record.role == "system":
        return frozenset(("system",))
    return _NO_KINDS


def _break(
    session: Session, before: _Reply, reply: _Reply, kinds: _Kinds, asked: EntryRecord | None
) -> CacheBreak | None:
    expected = before.read + before.write
    if expected < MIN_PREFIX or reply.read >= expected * LOST_SHARE:
        return None
    extra = min(expected - reply.read, reply.input)  # what it paid in full that was cached
    rate_read = before.rate_read if before.rate_read is not None else reply.rate_read
    cost = None
    if reply.rate_input is not None and rate_read is not None:
        cost = extra * max(reply.rate_input - rate_read, 0.0)
    causes, detail = _causes(session, before, reply, kinds, asked)
    return CacheBreak(reply.record.id, before.record.id, reply.read, expected, extra, cost, causes, detail)


def _walk(
    session: Session, path: Sequence[EntryRecord], replies: dict[int, _Reply | None]
) -> list[CacheBreak]:
    out: list[CacheBreak] = []
    before: _Reply | None = None
    kinds: _Kinds = _NO_KINDS
    asked: EntryRecord | None = None
    for record in path:
        reply = replies.get(record.index) if _is_reply(record) else None
        if reply is None:
            kinds |= _kinds(record)
            asked = record
            continue
        if before is not None:
            found = _break(session, before, reply, kinds, asked)
            if found is not None:
                out.append(found)
        before, kinds, asked = reply, _NO_KINDS, None
    return out


def cache_breaks(session: Session, path: list[EntryRecord]) -> list[CacheBreak]:
    """Every reply on `path` (root to leaf) that lost most of the cache the reply before had."""
    return _walk(session, path, _read(session, path))


def break_steps(
    session: Session, path: Sequence[EntryRecord], step: int = 4000
) -> Iterator[list[CacheBreak] | None]:
    """`cache_breaks(session, path)` a piece at a time, for the event loop: None after each
    `step` entries whose replies were not read yet, then the breaks."""
    for start in range(0, len(path), step):
        piece = path[start : start + step]
        known = _known_of(session).replies
        if any(r.index not in known and _is_reply(r) for r in piece):
            _read(session, piece)
            if start + step < len(path):
                yield None
    yield _walk(session, path, _read(session, path))


def break_at(session: Session, path: Sequence[EntryRecord]) -> CacheBreak | None:
    """The break at the last entry of `path`, when it is a reply that lost the cache (reads
    the replies back to the one before it only)."""
    if not path or not _is_reply(path[-1]):
        return None
    for start in range(len(path) - 2, -1, -1):
        if _is_reply(path[start]) and _read(session, path[start : start + 1]).get(path[start].index):
            break
    else:
        return None
    found = _walk(session, path[start:], _read(session, path[start:]))
    return found[-1] if found and found[-1].entry_id == path[-1].id else None


def break_turns(timeline: ContextTimeline, breaks: Sequence[CacheBreak]) -> tuple[int, ...]:
    """The index in `timeline` of each break's reply (one that reports no context size: none)."""
    at = {entry_id: i for i, entry_id in enumerate(timeline.ids)}
    return tuple(sorted({at[b.entry_id] for b in breaks if b.entry_id in at}))


class TreeCacheBreaks:
    """The break of every reply of a session's tree (a reply's depends only on what is above
    it); `current` keeps it up to date as a live session grows. Use `tree_cache_breaks`."""

    def __init__(self, session: Session) -> None:
        self.generation = session.generation
        self.tree_version = session.tree_version
        self.record_count = 0
        self.breaks: dict[str, CacheBreak] = {}
        # entry id -> (the last reply above it or itself, the kinds since, the entry it is)
        self._since: dict[str, tuple[_Reply | None, _Kinds, EntryRecord | None]] = {}
        self._grow(session)

    def get(self, entry_id: str) -> CacheBreak | None:
        return self.breaks.get(entry_id)

    def current(self, session: Session) -> TreeCacheBreaks:
        """Itself with the entries appended since added, or a new one when the tree changed."""
        if (self.generation, self.tree_version) != (session.generation, session.tree_version):
            return TreeCacheBreaks(session)
        if len(session.records) > self.record_count:
            self._grow(session)
        return self

    def _grow(self, session: Session) -> None:
        records = session.records[self.record_count :]
        self.record_count = len(session.records)
        replies = _read(session, records)
        by_id = session.by_id
        for record in records:
            if by_id.get(record.id) is record:
                self._state(session, record, replies)

    def _state(
        self, session: Session, record: EntryRecord, replies: dict[int, _Reply | None]
    ) -> tuple[_Reply | None, _Kinds, EntryRecord | None]:
        """The state below `record`, worked out from the nearest known ancestor down (no
        recursion: a chain is thousands of entries deep)."""
        since = self._since
        chain: list[EntryRecord] = []
        node: EntryRecord | None = record
        while node is not None and node.id not in since:
            chain.append(node)
            node = session.parent_of(node)
        state = since[node.id] if node is not None else (None, _NO_KINDS, None)
        for entry in reversed(chain):
            before, kinds, asked = state
            reply = replies.get(entry.index) if _is_reply(entry) else None
            if reply is None:
                state = (before, kinds | _kinds(entry), entry)
            else:
                if before is not None:
                    found = _break(session, before, reply, kinds, asked)
                    if found is not None:
                        self.breaks[entry.id] = found
                state = (reply, _NO_KINDS, None)
            since[entry.id] = state
        return state


def tree_cache_breaks(session: Session) -> TreeCacheBreaks:
    """Every break in `session`'s tree (reads every reply's body once: a worker's job for a
    big session)."""
    return TreeCacheBreaks(session)


def _causes(
    session: Session, before: _Reply, reply: _Reply, kinds: _Kinds, asked: EntryRecord | None
) -> tuple[tuple[str, ...], str]:
    causes: list[str] = []
    notes: list[str] = []
    if before.model != reply.model:
        causes.append("model")
        notes.append(f"model {_name(before.model)} -> {_name(reply.model)}")
    if "model_change" in kinds and "model" not in causes:
        causes.append("model")
        notes.append("a model change")
    if "thinking_level_change" in kinds:
        causes.append("thinking-level")
        notes.append("a thinking-level change")
    if "system" in kinds:
        causes.append("system-prompt")
        notes.append("a system-prompt or tool-list change")
    if "compaction" in kinds:
        causes.append("compaction")
        notes.append("a compaction")
    if "context_edit" in kinds:
        causes.append("context-edit")
        notes.append("a context edit")
    start = session.ts_ms(before.record)
    asked_ms = session.ts_ms(asked) if asked is not None else None
    if start is not None and asked_ms is not None and (asked_ms - start) / 1000 > CACHE_LIFETIME_S:
        causes.append("idle")
        notes.append(
            f"{(asked_ms - start) / 60000:.0f} min idle (the cache lives {CACHE_LIFETIME_S // 60} min)"
        )
    if not causes:
        causes.append("unknown")
        notes.append("nothing on the path explains it")
    return tuple(causes), "; ".join(notes)


def _name(model: tuple[Any, Any]) -> str:
    provider, model_id = model
    return (
        f"{provider if isinstance(provider, str) else '?'}/{model_id if isinstance(model_id, str) else '?'}"
    )
