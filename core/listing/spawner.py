"""Which parent entry spawned a subagent session, read off the parent's tool results.

A subagent tool's result names its child: by session id (k3dom/pi-plugins' `details.sessionId`,
kimchi), by file (`details.results[].sessionFile`, nicobailon/pi-subagents) or by run id
(`details.runId`, the folder the child sits in). The spawning entry is the assistant entry
holding the tool call of that result (`toolCallId`); the result's own entry when that call is
not in the file. A child whose layout does not say its parent is given the session, in its
folder of work (the same header cwd) and started before it, whose tool result names it.

The files are searched as bytes for the quoted names first; only the lines holding one are
decoded.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..reading.lines import decode_json
from .summary import SessionSummary

MAX_PARENT_BYTES = 256 * 1024 * 1024  # a bigger file is not searched (its children stay unplaced)


@dataclass(slots=True)
class Child:
    """A subagent session and where it hangs (core/listing/subagents.py finds them)."""

    summary: SessionSummary
    layout: str  # "nested", "subagents", "env", "sibling" (where it was found), or "header"
    parent: str | None  # the parent session's path (None: not found)
    parent_entry_id: str | None = None
    run_id: str | None = None
    listed_by_pi: bool = False  # a file pi's own list has (`subagents/`, or a header link)


def _read(path: str) -> bytes:
    try:
        if os.path.getsize(path) > MAX_PARENT_BYTES:
            return b""
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def _quoted(text: str) -> bytes:
    return json.dumps(text, ensure_ascii=False).encode("utf-8", "surrogatepass")


def _tokens(child: Child) -> list[bytes]:
    out = []
    sid = child.summary.id
    if isinstance(sid, str) and sid:
        out.append(_quoted(sid))
    out.append(_quoted(child.summary.path))
    if child.run_id:
        out.append(b'"runId":' + _quoted(child.run_id))
    return out


def _lines_with(data: bytes, token: bytes) -> Iterable[bytes]:
    start = 0
    while True:
        i = data.find(token, start)
        if i < 0:
            return
        begin = data.rfind(b"\n", 0, i) + 1
        end = data.find(b"\n", i)
        end = len(data) if end < 0 else end
        yield data[begin:end]
        start = end + 1


def _decode(line: bytes) -> dict[str, Any] | None:
    try:
        value = decode_json(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _entry_of_call(data: bytes, call_id: str) -> str | None:
    """The id of the assistant entry whose content has the tool call `call_id`."""
    for line in _lines_with(data, _quoted(call_id)):
        value = _decode(line)
        message = value.get("message") if value is not None else None
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        content = message.get("content")
        if isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") == "toolCall" and b.get("id") == call_id for b in content
        ):
            entry_id = value.get("id") if value is not None else None
            return entry_id if isinstance(entry_id, str) else None
    return None


def spawning_entry(data: bytes, child: Child) -> str | None:
    """The parent entry (in the parent file's bytes `data`) that spawned `child`, if told."""
    fallback: str | None = None
    for token in _tokens(child):
        for line in _lines_with(data, token):
            value = _decode(line)
            if value is None or value.get("type") == "session":
                continue
            message = value.get("message")
            entry_id = value.get("id")
            if isinstance(message, dict) and message.get("role") == "toolResult":
                call_id = message.get("toolCallId")
                spawner = _entry_of_call(data, call_id) if isinstance(call_id, str) else None
                if spawner is not None:
                    return spawner
                if isinstance(entry_id, str):
                    return entry_id
            elif fallback is None and isinstance(entry_id, str):
                fallback = entry_id
    return fallback


def _started(summary: SessionSummary) -> str:
    return summary.created or ""


def _find_parents(orphans: list[Child], everyone: Sequence[SessionSummary], cache: dict[str, bytes]) -> None:
    """A parent for each child without one: a session of the same cwd, started before it,
    whose tool result names the child's session id."""
    for child in orphans:
        sid = child.summary.id
        if not isinstance(sid, str) or not sid:
            continue
        token = _quoted(sid)
        cwd = os.path.normpath(child.summary.cwd) if child.summary.cwd else ""
        candidates = [
            s
            for s in everyone
            if s.path != child.summary.path
            and (os.path.normpath(s.cwd) if s.cwd else "") == cwd
            and _started(s) <= _started(child.summary)
        ]
        candidates.sort(key=_started, reverse=True)  # (the latest one before it first)
        for candidate in candidates:
            data = cache.get(candidate.path)
            if data is None:
                data = cache[candidate.path] = _read(candidate.path)
            if token not in data:
                continue
            entry = spawning_entry(data, child)
            if entry is not None:
                child.parent = os.path.normpath(candidate.path)
                child.parent_entry_id = entry
                break


def spawning_entries(children: list[Child], everyone: Sequence[SessionSummary]) -> None:
    """Fill in each child's parent (where its layout did not say it) and spawning entry."""
    cache: dict[str, bytes] = {}
    _find_parents([c for c in children if c.parent is None], everyone, cache)
    for child in children:
        if child.parent is None or child.parent_entry_id is not None:
            continue
        data = cache.get(child.parent)
        if data is None:
            data = cache[child.parent] = _read(child.parent)
        child.parent_entry_id = spawning_entry(data, child)
