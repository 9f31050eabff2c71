"""pi's context-size estimate at a leaf (`estimateProjectedContextTokens`), cheap enough for every move.

pi 1.6.0 anchors on the last assistant usage it trusts and estimates (characters / 4) only the
messages after it. It trusts none when no reply reported usage (aborted and error replies never
count) or when a context edit or a compaction comes later on the branch; then it estimates the
whole projection: the replayed system prompt plus every other message. Lengths are JavaScript
string lengths (UTF-16 code units) and an image counts 4,800 characters.

Speed: a move reads only the bodies after the anchor. Per-entry estimates are remembered per
session (by record index, dropped when the session is read again), and so are running totals
along the context when the whole projection had to be estimated, so a later move costs only the
entries that are new since.

Entry points: `estimate_context(session, projection)` (the figure and where it came from),
`context_tokens(session, projection)` (just pi's number), `entry_estimate` (one context entry's
weight) and `reported_context(session, record)` (the size an assistant reply reported). The
rules for one message are in message_tokens.py.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from msgspec import UNSET

from ..common.jsvalues import js_string
from ..reading.records import EntryRecord
from ..session.session import Session
from .context import Projection, entry_messages
from .message_tokens import (
    JsSize,
    current_system_tokens,
    estimate_message_tokens,
    js_add,
    js_to_number,
    usage_context_tokens,
)

INVALIDATING_TYPES = ("context_edit", "compaction")  # usage captured before these is not trusted


# ---------------------------------------------------------------------------- per entry
class EntryEstimate(NamedTuple):
    """What one context entry's messages weigh, in pi's estimate."""

    tokens: int  # every message
    non_system: int  # messages other than system ones
    has_system: bool
    usage: JsSize | None  # the last usage pi would count among its messages (assistant replies)
    after_usage: int  # tokens of its messages after that usage


_NOTHING = EntryEstimate(0, 0, False, None, 0)


def _estimate_messages(messages: list[Any]) -> EntryEstimate:
    tokens = non_system = after = 0
    has_system = False
    usage: JsSize | None = None
    for message in messages:
        weight = estimate_message_tokens(message)
        tokens += weight
        if isinstance(message, dict) and message.get("role") == "system":
            has_system = True
        else:
            non_system += weight
        reported = usage_context_tokens(message)
        if reported is not None:
            usage, after = reported, 0
        else:
            after += weight
    return EntryEstimate(tokens, non_system, has_system, usage, after if usage is not None else 0)


class _Prefix(NamedTuple):
    """Running totals along a context, through one entry."""

    all_tokens: int
    non_system: int
    usage: JsSize | None  # the last usage so far
    usage_at: int  # all_tokens through the message that reported it
    usage_position: int  # context position of the entry that reported it (-1: none)
    trusted: bool  # nothing invalidating since, and after the latest compaction
    last_system: int  # context position of the last entry with a system message (-1: none)
    usage_after_compaction: bool  # some reply after the compaction reported usage


_START = _Prefix(0, 0, None, 0, -1, False, -1, False)


class _SessionCache:
    """Estimates remembered for one session: per entry (while its reading lasts) and running
    totals per context prefix (while its tree lasts)."""

    def __init__(self, session: Session) -> None:
        self.generation = session.generation
        self.tree_version = session.tree_version
        self.entries: dict[tuple[int, bool, int], EntryEstimate] = {}
        self.prefixes: dict[tuple[int, int, int], _Prefix] = {}
        self.systems: dict[tuple[int, int, int], int] = {}
        self.compaction_depth: dict[int, int] = {}
        self.edit_sets: dict[tuple[Any, ...], int] = {(): 0}
        self.reported: dict[int, JsSize | None] = {}  # record index -> usage context size

    def current(self, session: Session) -> _SessionCache:
        if self.generation != session.generation:
            return _SessionCache(session)
        if self.tree_version != session.tree_version:
            self.tree_version = session.tree_version
            self.prefixes.clear()
            self.systems.clear()
            self.compaction_depth.clear()
        return self

    def entry(
        self, session: Session, record: EntryRecord, first: bool, edit: EntryRecord | None
    ) -> EntryEstimate:
        first = first and record.type == "compaction"
        if not (_is_current(session, record) and (edit is None or _is_current(session, edit))):
            return _estimate_messages(entry_messages(session, record, first, edit))  # not remembered
        key = (record.index, first, edit.index if edit is not None else -1)
        found = self.entries.get(key)
        if found is None:
            found = _estimate_messages(entry_messages(session, record, first, edit))
            self.entries[key] = found
        return found

    def edit_set(self, edits: dict[Any, EntryRecord]) -> int:
        if not edits:
            return 0
        signature = tuple((target, edit.index) for target, edit in edits.items())
        return self.edit_sets.setdefault(signature, len(self.edit_sets))

    def kept_count(self, session: Session, projection: Projection) -> int:
        """How many context entries after the first lie before the compaction on the path."""
        compaction = projection.compaction
        if compaction is None:
            return 0
        depth = self.compaction_depth.get(compaction.index)
        if depth is None:
            path = projection.path
            depth = next(i for i in range(len(path) - 1, -1, -1) if path[i] is compaction)
            self.compaction_depth[compaction.index] = depth
        after = len(projection.path) - depth - 1
        return len(projection.context) - after - 1


_caches: weakref.WeakKeyDictionary[Session, _SessionCache] = weakref.WeakKeyDictionary()


def _is_current(session: Session, record: EntryRecord) -> bool:
    """A record of the session's current reading (one kept from before a reload is not)."""
    records = session.records
    return record.index < len(records) and records[record.index] is record


def _cache_for(session: Session, projection: Projection | None = None) -> _SessionCache:
    """The session's cache; a throwaway one for a projection of an older tree, so nothing
    derived from a path that has changed since is remembered."""
    cache = _caches.get(session)
    cache = cache.current(session) if cache is not None else _SessionCache(session)
    _caches[session] = cache
    if projection is not None and projection.tree_version != session.tree_version:
        stale = _SessionCache(session)
        stale.entries, stale.reported = cache.entries, cache.reported  # bodies did not change
        return stale
    return cache


# ---------------------------------------------------------------------------- the estimate
@dataclass(frozen=True, slots=True)
class ContextEstimate:
    """pi's context size at a leaf and how it was reached."""

    tokens: int | float  # pi's estimateProjectedContextTokens(...).tokens (an int unless usage is fractional)
    usage_tokens: int | float  # the anchoring reply's reported size (0 when estimated from all messages)
    trailing_tokens: int  # estimated on top of it (everything, without an anchor)
    anchor_id: str | None  # the assistant entry whose usage was trusted
    # pi's footer shows "?" here: a compaction on the path and no reply with usage since
    unknown_in_footer: bool
    # pi's value exactly as its JSON shows it: `tokens`, except for a hand-edited usage that
    # holds text, which pi concatenates ("12" + 30 gives "1230")
    pi_value: int | float | str = 0

    @property
    def anchored(self) -> bool:
        return self.anchor_id is not None


def _js_result(value: float) -> int | float:
    """A JavaScript number as JSON.stringify would write it, for Python's JSON (ints stay ints)."""
    if not math.isfinite(value) or not value.is_integer() or abs(value) >= 1e21:
        return value
    if abs(value) < 2**53:
        return int(value)
    return int(js_string(value))


def _anchored(usage: JsSize, trailing: int, anchor_id: str, unknown: bool) -> ContextEstimate:
    exact = js_add(usage, trailing)
    tokens = _js_result(js_to_number(usage) + trailing)
    return ContextEstimate(
        tokens,
        _js_result(js_to_number(usage)),
        trailing,
        anchor_id,
        unknown,
        exact if isinstance(exact, str) else tokens,
    )


def estimate_context(session: Session, projection: Projection) -> ContextEstimate:
    """pi's `estimateProjectedContextTokens(buildSessionProjection(entries, leaf), getBranch(leaf))`
    for `projection` (a `project()` or `extend_projection()` result of this session)."""
    cache = _cache_for(session, projection)
    context, counts, edits = projection.context, projection.counts, projection.edits
    compaction = projection.compaction
    kept = cache.kept_count(session, projection)
    base = (compaction.index if compaction is not None else -1, cache.edit_set(edits))
    prefixes = cache.prefixes

    # Walk back from the leaf to the last usage: trusted, the answer needs nothing before it.
    estimates: list[EntryEstimate] = []
    state: _Prefix | None = None
    trailing = 0
    invalidated = found = False
    position = len(context) - 1
    while position >= 0:
        record = context[position]
        state = prefixes.get((*base, record.index))
        if state is not None:
            break
        estimate = (
            cache.entry(session, record, position == 0, edits.get(record.id))
            if counts[position]
            else _NOTHING
        )
        if not found:
            if estimate.usage is not None:
                found = True
                after_compaction = compaction is None or position > kept
                if after_compaction and not invalidated and record.id:
                    return _anchored(estimate.usage, trailing + estimate.after_usage, record.id, False)
            trailing += estimate.tokens
            invalidated = invalidated or record.type in INVALIDATING_TYPES
        estimates.append(estimate)
        position -= 1

    # No trusted usage: running totals from the last remembered prefix (or the start) on.
    state = state if state is not None else _START
    for offset, estimate in enumerate(reversed(estimates)):
        at = position + 1 + offset
        record = context[at]
        state = _advance(state, at, record, estimate, compaction is None or at > kept)
        prefixes[(*base, record.index)] = state
    unknown = compaction is not None and not state.usage_after_compaction
    if state.usage is not None and state.trusted:
        trailing_tokens = state.all_tokens - state.usage_at
        return _anchored(state.usage, trailing_tokens, context[state.usage_position].id, unknown)
    system = _system_tokens(session, cache, projection, base, state.last_system)
    total = system + state.non_system
    return ContextEstimate(total, 0, total, None, unknown, total)


def _advance(state: _Prefix, at: int, record: EntryRecord, estimate: EntryEstimate, after: bool) -> _Prefix:
    usage, usage_at, usage_position = state.usage, state.usage_at, state.usage_position
    trusted, seen_after = state.trusted, state.usage_after_compaction
    if estimate.usage is not None:
        usage, usage_position = estimate.usage, at
        usage_at = state.all_tokens + estimate.tokens - estimate.after_usage
        trusted = after and bool(record.id)
        seen_after = seen_after or after
    if record.type in INVALIDATING_TYPES:
        trusted = False
    return _Prefix(
        state.all_tokens + estimate.tokens,
        state.non_system + estimate.non_system,
        usage,
        usage_at,
        usage_position,
        trusted,
        at if estimate.has_system else state.last_system,
        seen_after,
    )


def _system_tokens(
    session: Session, cache: _SessionCache, projection: Projection, base: tuple[int, int], last: int
) -> int:
    """The replayed system prompt's estimate through context position `last`, remembered."""
    if last < 0:
        return 0
    context = projection.context
    key = (*base, context[last].index)
    found = cache.systems.get(key)
    if found is not None:
        return found
    messages: list[Any] = []
    for position in range(last + 1):
        record = context[position]
        if not projection.counts[position]:
            continue
        edit = projection.edits.get(record.id)
        if not cache.entry(session, record, position == 0, edit).has_system:
            continue
        messages.extend(
            m
            for m in entry_messages(session, record, position == 0, edit)
            if isinstance(m, dict) and m.get("role") == "system"
        )
    found = current_system_tokens(messages)
    cache.systems[key] = found
    return found


def entry_estimate(session: Session, projection: Projection, position: int) -> EntryEstimate:
    """What the entry at `position` of `projection.context` sends, in pi's estimate (remembered)."""
    if not projection.counts[position]:
        return _NOTHING
    record = projection.context[position]
    cache = _cache_for(session, projection)
    return cache.entry(session, record, position == 0, projection.edits.get(record.id))


def reported_context(session: Session, record: EntryRecord) -> int | float | None:
    """The context size an assistant reply's usage reports (pi's calculateContextTokens), None
    for other entries and for replies pi does not count (aborted, error, no usage). Remembered."""
    if record.type != "message" or record.role != "assistant":
        return None
    known = record.reported
    if known is not UNSET:  # read off the line (pi writes plain usage): no body to read
        return known  # type: ignore[no-any-return]
    cache = _cache_for(session)
    if not _is_current(session, record):
        value = usage_context_tokens(session.entry_dict(record).get("message"))
    elif record.index in cache.reported:
        value = cache.reported[record.index]
    else:
        message = session.entry_dict(record).get("message")
        value = usage_context_tokens(message)
        cache.reported[record.index] = value
    return None if value is None else _js_result(js_to_number(value))


def read_reported(session: Session, records: Sequence[EntryRecord]) -> None:
    """Remember what `reported_context` gives for each assistant reply of `records` that it
    has not read yet, their bodies read in runs (one read for replies that lie together in the
    file, instead of one each): what a timeline over a long path reads first."""
    cache = _cache_for(session)
    reported = cache.reported
    todo = [
        r
        for r in records
        if r.reported is UNSET
        and r.type == "message"
        and r.role == "assistant"
        and r.index not in reported
        and _is_current(session, r)
    ]
    for record, body in zip(todo, session.entry_dicts(todo), strict=True):
        reported[record.index] = usage_context_tokens(body.get("message"))


def context_tokens(session: Session, projection: Projection) -> int | float:
    """pi's context size at `projection`'s leaf (`estimateProjectedContextTokens(...).tokens`):
    an int, a float only when a hand-edited file reports fractional usage. (For JSON exactly as
    pi writes it, also with text in a hand-edited usage, use `estimate_context(...).pi_value`.)"""
    return estimate_context(session, projection).tokens
