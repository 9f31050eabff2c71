"""The secrets audit of session files: each secret found, in which entry, brought in by which
tool call or message, and whether it is on the active path and still in the context at the
default leaf.

A file's raw bytes are searched first for what any rule's match needs (core/audit/anchors.py);
only the lines they fall on are decoded, and only their strings searched by the rules. Only a
file with a finding is opened as a session (the tree and the projection give the fates).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..common.problems import SessionError
from ..projection.context import Reason, project
from ..session.session import Session
from .allowlist import AllowList
from .anchors import candidate_lines
from .rules import Secret, find_secrets, preview

__all__ = ["FileAudit", "Finding", "audit_file", "audit_paths", "candidate_lines", "values_in"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One secret in one entry (never the value itself: `preview` shows its ends and length)."""

    session_path: str
    session_id: str | None
    entry_id: str | None  # None: the session's header line
    kind: str
    preview: str
    source: str  # the tool's name (a call or its result), else the role or the entry's type
    part: str  # "tool-call", "tool-result", "text", "thinking", "summary", "command"...
    tool_call_id: str | None
    on_active_path: bool
    in_context: bool  # at the default leaf, as sent (a replaced or summarized entry is not)
    fate: str  # the projection's reason ("sent", "summarized"...), or "off-path", "header"
    count: int = 1  # how often the same value is in this entry

    def to_json(self) -> dict[str, Any]:
        return {
            "session_path": self.session_path,
            "session_id": self.session_id,
            "entry_id": self.entry_id,
            "kind": self.kind,
            "preview": self.preview,
            "on_active_path": self.on_active_path,
            "in_context": self.in_context,
            "fate": self.fate,
            "source": self.source,
            "part": self.part,
            "tool_call_id": self.tool_call_id,
            "count": self.count,
        }


@dataclass(slots=True)
class FileAudit:
    """One file's findings, and the values themselves for a redactor (never shown)."""

    path: str
    findings: list[Finding] = field(default_factory=list)
    values: dict[str, str] = field(default_factory=dict)  # value -> kind


_PIECE = 32 << 20  # a huge file is searched a piece at a time (its lowercased copy is a piece)


def _file_candidates(path: str) -> list[bytes]:
    lines: list[bytes] = []
    try:
        with open(path, "rb") as f:
            rest = f.read(_PIECE)
            if len(rest) < _PIECE:  # (the usual: the whole file in one read)
                return candidate_lines(rest) if rest else []
            while True:
                chunk = f.read(_PIECE)
                if not chunk:
                    break
                data = rest + chunk
                cut = data.rfind(b"\n") + 1
                if cut == 0:  # one line longer than a piece: keep reading it
                    rest = data
                    continue
                lines += candidate_lines(data[:cut])
                rest = data[cut:]
            if rest:
                lines += candidate_lines(rest)
    except OSError as e:
        raise SessionError(f"cannot read {path}: {e.strerror or e}") from None
    return lines


def _strings(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        if value.get("type") == "image":  # base64 pixels: no rule's shape survives in them
            return
        for key, item in value.items():
            yield from _strings(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, (*path, i))


def _source(entry: dict[str, Any], path: tuple[Any, ...]) -> tuple[str, str, str | None]:
    """(source, part, tool call id) of the string at `path` in `entry`."""
    kind = entry.get("type")
    message = entry.get("message")
    if kind != "message" or not isinstance(message, dict):
        part = str(path[-1]) if path else "value"
        return str(kind) if kind is not None else "header", part, None
    role = message.get("role")
    if role == "toolResult":
        call_id = message.get("toolCallId")
        return (
            str(message.get("toolName") or "tool"),
            "tool-result",
            call_id if isinstance(call_id, str) else None,
        )
    if role == "bashExecution":
        return "user-bash", "output" if path[-1:] == ("output",) else "command", None
    content = message.get("content")
    if len(path) >= 3 and path[:2] == ("message", "content") and isinstance(content, list):
        block = content[path[2]] if isinstance(path[2], int) and path[2] < len(content) else None
        if isinstance(block, dict):
            if block.get("type") == "toolCall":
                call_id = block.get("id")
                return (
                    str(block.get("name") or "tool"),
                    "tool-call",
                    call_id if isinstance(call_id, str) else None,
                )
            return str(role), str(block.get("type") or "text"), None
    part = "text" if path[:2] == ("message", "content") else str(path[-1]) if path else "value"
    return str(role), part, None


@dataclass(slots=True)
class _Raw:
    entry_id: str | None
    secret: Secret
    source: str
    part: str
    call_id: str | None


def _scan_lines(lines: Iterable[bytes], allow: AllowList | None) -> list[_Raw]:
    allowed = allow.allows if allow is not None and not allow.empty else None
    found: list[_Raw] = []
    for line in lines:
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if not isinstance(entry, dict):
            continue
        entry_id = entry.get("id") if entry.get("type") != "session" else None
        entry_id = entry_id if isinstance(entry_id, str) else None
        for path, text in _strings(entry):
            for secret in find_secrets(text, allowed):
                source, part, call_id = _source(entry, path)
                found.append(_Raw(entry_id, secret, source, part, call_id))
    return found


def values_in(data: bytes, allow: AllowList | None = None) -> dict[str, str]:
    """Every secret value in a session file's bytes (value -> kind), without the fates: what
    primes a redactor for the file (no session is opened)."""
    return {item.secret.value: item.secret.kind for item in _scan_lines(candidate_lines(data), allow)}


def audit_file(path: str, allow: AllowList | None = None) -> FileAudit:
    """The findings of one session file (SessionError when it is not one)."""
    audit = FileAudit(path)
    raw = _scan_lines(_file_candidates(path), allow)
    if not raw:
        return audit
    session = Session.open(path)
    fates: dict[str, Reason] = {}
    if session.default_leaf is not None:
        for fate in project(session, session.default_leaf).fates:
            fates[fate.record.id] = fate.reason
    merged: dict[tuple[str | None, str, str, str], int] = {}
    order: list[tuple[tuple[str | None, str, str, str], _Raw]] = []
    for item in raw:
        key = (item.entry_id, item.secret.kind, item.secret.value, item.part)
        audit.values[item.secret.value] = item.secret.kind
        if key in merged:
            merged[key] += 1
            continue
        merged[key] = 1
        order.append((key, item))
    for key, item in order:
        reason = fates.get(item.entry_id) if item.entry_id is not None else None
        if item.entry_id is None:
            where = "header"
        elif reason is None:
            where = "off-path"
        else:
            where = str(reason)
        in_context = reason is not None and reason.in_context and reason is not Reason.REPLACED
        audit.findings.append(
            Finding(
                session_path=path,
                session_id=session.session_id,
                entry_id=item.entry_id,
                kind=item.secret.kind,
                preview=preview(item.secret.value),
                source=item.source,
                part=item.part,
                tool_call_id=item.call_id,
                on_active_path=reason is not None,
                in_context=in_context,
                fate=where,
                count=merged[key],
            )
        )
    return audit


def audit_paths(paths: Iterable[str], allow: AllowList | None = None) -> Iterator[FileAudit]:
    """`audit_file` of each path, skipping files that cannot be read."""
    for path in paths:
        try:
            yield audit_file(path, allow)
        except (SessionError, OSError):
            continue


def session_paths(target: str) -> list[str]:
    """The session files of a path: the file itself, or every `*.jsonl` in a folder and the
    folders just below it (pi's two layouts), sorted."""
    from ..common.locations import iter_session_files

    if os.path.isdir(target):
        return sorted(iter_session_files(target))
    return [target]
