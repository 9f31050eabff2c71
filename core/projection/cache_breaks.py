"""Where the prompt cache broke on a path: each reply's cache reads against what the reply before
it had cached, and when most of that was lost, the likely causes between the two (a model or
thinking-level change, a system-prompt or tool-list change, a compaction, a context edit, an
idle gap past the provider's cache lifetime) and what it cost (the input paid again)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from ..common.jsvalues import is_finite_number, js_number
from ..reading.records import EntryRecord, MessageHead
from ..session.session import Session

__all__ = ["CacheBreak", "cache_breaks"]

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
    position: int  # on the path
    record: EntryRecord
    model: tuple[Any, Any]
    read: float
    write: float
    input: float
    rate_input: float | None  # cost per input token
    rate_read: float | None  # cost per cache-read token


def _num(value: Any) -> float:
    return js_number(value) if is_finite_number(value) else 0.0


def _rate(cost: Any, key: str, tokens: float) -> float | None:
    value = cost.get(key) if isinstance(cost, dict) else None
    return _num(value) / tokens if tokens > 0 and is_finite_number(value) else None


def _replies(session: Session, path: list[EntryRecord]) -> list[_Reply]:
    positions = [
        i
        for i, r in enumerate(path)
        if r.type == "message" and isinstance(r.message, MessageHead) and r.message.role == "assistant"
    ]
    out: list[_Reply] = []
    for position, body in zip(positions, session.entry_dicts([path[i] for i in positions]), strict=True):
        message = body.get("message")
        if not isinstance(message, dict) or message.get("stopReason") in ("error", "aborted"):
            continue
        usage = message.get("usage")
        if not isinstance(usage, dict):
            continue
        read, write, inp = (
            _num(usage.get("cacheRead")),
            _num(usage.get("cacheWrite")),
            _num(usage.get("input")),
        )
        cost = usage.get("cost")
        out.append(
            _Reply(
                position,
                path[position],
                (message.get("provider"), message.get("model")),
                read,
                write,
                inp,
                _rate(cost, "input", inp),
                _rate(cost, "cacheRead", read),
            )
        )
    return out


def cache_breaks(session: Session, path: list[EntryRecord]) -> list[CacheBreak]:
    """Every reply on `path` (root to leaf) that lost most of the cache the reply before had."""
    out: list[CacheBreak] = []
    replies = _replies(session, path)
    for before, reply in itertools.pairwise(replies):
        expected = before.read + before.write
        if expected < MIN_PREFIX or reply.read >= expected * LOST_SHARE:
            continue
        extra = min(expected - reply.read, reply.input)  # what it paid in full that was cached
        rate_read = before.rate_read if before.rate_read is not None else reply.rate_read
        cost = None
        if reply.rate_input is not None and rate_read is not None:
            cost = extra * max(reply.rate_input - rate_read, 0.0)
        causes, detail = _causes(session, path, before, reply)
        out.append(
            CacheBreak(reply.record.id, before.record.id, reply.read, expected, extra, cost, causes, detail)
        )
    return out


def _causes(
    session: Session, path: list[EntryRecord], before: _Reply, reply: _Reply
) -> tuple[tuple[str, ...], str]:
    causes: list[str] = []
    notes: list[str] = []
    if before.model != reply.model:
        causes.append("model")
        notes.append(f"model {_name(before.model)} -> {_name(reply.model)}")
    between = path[before.position + 1 : reply.position]
    kinds = {r.type for r in between if isinstance(r.type, str)}  # (a damaged line's type may be a list)
    if "model_change" in kinds and "model" not in causes:
        causes.append("model")
        notes.append("a model change")
    if "thinking_level_change" in kinds:
        causes.append("thinking-level")
        notes.append("a thinking-level change")
    if any(r.type == "message" and r.role == "system" for r in between):
        causes.append("system-prompt")
        notes.append("a system-prompt or tool-list change")
    if "compaction" in kinds:
        causes.append("compaction")
        notes.append("a compaction")
    if "context_edit" in kinds:
        causes.append("context-edit")
        notes.append("a context edit")
    start = session.ts_ms(before.record)
    asked = session.ts_ms(path[reply.position - 1]) if reply.position - 1 > before.position else None
    if start is not None and asked is not None and (asked - start) / 1000 > CACHE_LIFETIME_S:
        causes.append("idle")
        notes.append(f"{(asked - start) / 60000:.0f} min idle (the cache lives {CACHE_LIFETIME_S // 60} min)")
    if not causes:
        causes.append("unknown")
        notes.append("nothing on the path explains it")
    return tuple(causes), "; ".join(notes)


def _name(model: tuple[Any, Any]) -> str:
    provider, model_id = model
    return (
        f"{provider if isinstance(provider, str) else '?'}/{model_id if isinstance(model_id, str) else '?'}"
    )
