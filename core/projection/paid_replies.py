"""The paid replies of one session: every entry whose usage pi adds to the session's totals.

A paid reply is an assistant message with a usage, a tool result that reports one (a
subagent's), a `usage` entry, or a compaction's or branch summary's own usage: what pi 1.6.0's
`getUsageCostBreakdown` counts, with the same model key (`provider/responseModel ?? model`;
non-model usage is pi's `Tools/summaries`). Each carries an identity that a fork's or clone's
copy of it shares (the copy keeps the message, its time and usage; only ids and links
change), so a report over many files can count it once (core/projection/cost_report.py).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import msgspec

from ..common.jsvalues import date_ms, is_finite_number, js_number
from ..reading.records import EntryRecord
from ..session.session import Session

# pi's bucket for usage no model is named for (getUsageCostBreakdown).
TOOLS_AND_SUMMARIES = "Tools/summaries"

_SUMMARY_TYPES = ("compaction", "branch_summary")


@dataclass(frozen=True, slots=True)
class PaidReply:
    """One paid reply as written in one file (a copy in another file has the same identity)."""

    identity: str  # a digest of what a copy keeps: kind, time, model, usage, content
    session_path: str
    cwd: str
    entry_id: str | None
    kind: str  # assistant, toolResult, usage, compaction, branch_summary
    time_ms: float | None  # when it was made (the message's own time, else the entry's)
    written: Any  # the entry's `timestamp` as in its line: when the line was written
    model_key: str  # provider/model, or Tools/summaries
    input: int
    output: int
    cache_read: int
    cache_write: int
    cost: float
    billed: bool  # usage.cost.totalFromProvider: the provider's bill, not a catalog estimate

    @property
    def written_ms(self) -> float | None:
        """When its line was written (the day ccusage counts it on)."""
        return date_ms(self.written)


def _count(value: Any) -> int:
    """A token count as pi adds it; what is not a finite number adds nothing."""
    if value.__class__ is int:
        return value
    return round(js_number(value)) if is_finite_number(value) else 0


def _name(value: Any) -> str:
    # pi builds the key with a template string: a missing part reads "undefined".
    return value if isinstance(value, str) else "undefined"


def _digest(*parts: Any) -> str:
    try:
        data = msgspec.json.encode(parts, order="sorted")
    except (UnicodeEncodeError, TypeError, ValueError):  # a lone surrogate in a text
        data = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=repr).encode("ascii")
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _wanted(record: EntryRecord) -> bool:
    """Whether the entry may carry a usage pi counts (its body tells for sure)."""
    role = record.role
    if role == "assistant":
        return True
    if role == "toolResult":
        # A tool result's body is mostly its output: read it only when its usage spent something.
        return record.tokens != 0 or record.cost != 0
    return record.type == "usage" or record.type in _SUMMARY_TYPES


def _reply(session: Session, body: dict[str, Any]) -> PaidReply | None:
    kind = body.get("type")
    message = body.get("message")
    content: Any = None
    stamp: Any = None
    if kind == "message" and isinstance(message, dict):
        role = message.get("role")
        usage = message.get("usage")
        if role not in ("assistant", "toolResult") or not isinstance(usage, dict):
            return None
        kind = role
        if role == "assistant":
            model = message.get("responseModel")
            model = model if model is not None else message.get("model")
            model_key = f"{_name(message.get('provider'))}/{_name(model)}"
        else:
            model_key = TOOLS_AND_SUMMARIES
        provider, model = message.get("provider"), message.get("model")
        content, stamp = message.get("content"), message.get("timestamp")
    elif kind == "usage" or kind in _SUMMARY_TYPES:
        usage = body.get("usage")
        if not isinstance(usage, dict):
            return None
        provider, model = body.get("provider"), body.get("model")
        model_key = f"{_name(provider)}/{_name(model)}" if kind == "usage" else TOOLS_AND_SUMMARIES
        content = body.get("summary") if kind in _SUMMARY_TYPES else body.get("note")
    else:
        return None
    entry_stamp = body.get("timestamp")
    time_ms = js_number(stamp) if is_finite_number(stamp) else date_ms(entry_stamp)
    found = usage.get("cost")
    cost: dict[str, Any] = found if isinstance(found, dict) else {}
    total: Any = cost.get("total")
    entry_id = body.get("id")
    return PaidReply(
        # A message's own time is kept by every copy; an entry without one has its entry's.
        identity=_digest(kind, stamp if stamp is not None else entry_stamp, provider, model, usage, content),
        session_path=session.path or "",
        cwd=session.cwd,
        entry_id=entry_id if isinstance(entry_id, str) else None,
        kind=str(kind),
        time_ms=time_ms,
        written=entry_stamp,
        model_key=model_key,
        input=_count(usage.get("input")),
        output=_count(usage.get("output")),
        cache_read=_count(usage.get("cacheRead")),
        cache_write=_count(usage.get("cacheWrite")),
        cost=js_number(total) if is_finite_number(total) else 0.0,
        billed=cost.get("totalFromProvider") is True,
    )


def paid_replies(session: Session) -> Iterator[PaidReply]:
    """Every paid reply of the session, in file order (each line once, duplicate ids too:
    each line was a reply pi was billed for)."""
    for body in session.entry_dicts([r for r in session.records if _wanted(r)]):
        reply = _reply(session, body)
        if reply is not None:
            yield reply
