"""What makes a session file big: bytes by entry type and message role, by tool, by branch
(the active path against the abandoned rest), images, and what a clone of the leaf would drop.

Bytes by type, role, tool result and branch come from the records' line lengths (no body is
read). Tool calls are measured in the assistant replies' bodies, images in the bodies of the
lines that mention one; those are the only bodies read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ..common.jsvalues import js_string
from ..reading.records import MessageHead
from ..session.session import Session

_IMAGE_MARK = b'"image"'


@dataclass(slots=True)
class ByteCount:
    count: int = 0
    bytes: int = 0

    def add(self, size: int, count: int = 1) -> None:
        self.count += count
        self.bytes += size

    def to_json(self) -> dict[str, int]:
        return {"count": self.count, "bytes": self.bytes}


@dataclass(slots=True)
class SizeReport:
    leaf_id: str | None
    file_bytes: int
    header_bytes: int
    other_bytes: int  # blank, malformed or partial lines
    by_type: dict[str, ByteCount] = field(default_factory=dict)  # entry type -> lines
    by_role: dict[str, ByteCount] = field(default_factory=dict)  # message role -> lines
    tool_results: dict[str, ByteCount] = field(default_factory=dict)  # toolName -> result lines
    tool_calls: dict[str, ByteCount] = field(default_factory=dict)  # tool name -> calls in replies
    active: ByteCount = field(default_factory=ByteCount)  # the path to the leaf
    abandoned: ByteCount = field(default_factory=ByteCount)  # every other entry
    images: ByteCount = field(default_factory=ByteCount)  # image blocks, bytes of their data
    clone_drops: int = 0  # about this many bytes fewer in a clone of the leaf (pi's fork)

    def largest(self, table: dict[str, ByteCount], count: int = 5) -> list[tuple[str, ByteCount]]:
        return sorted(table.items(), key=lambda kv: (-kv[1].bytes, kv[0]))[:count]

    def to_json(self) -> dict[str, Any]:
        def table(t: dict[str, ByteCount]) -> dict[str, dict[str, int]]:
            return {k: v.to_json() for k, v in self.largest(t, len(t))}

        return {
            "leaf": self.leaf_id,
            "file_bytes": self.file_bytes,
            "header_bytes": self.header_bytes,
            "other_bytes": self.other_bytes,
            "by_type": table(self.by_type),
            "by_role": table(self.by_role),
            "tool_results": table(self.tool_results),
            "tool_calls": table(self.tool_calls),
            "active_path": self.active.to_json(),
            "abandoned": self.abandoned.to_json(),
            "images": self.images.to_json(),
            "clone_drops_bytes": self.clone_drops,
        }


def _name(value: Any) -> str:
    return value if isinstance(value, str) else js_string(value)


def size_report(session: Session, leaf_id: str | None = None) -> SizeReport:
    """The size doctor for `session`, with the path to `leaf_id` (default: the default leaf) as
    the active branch. Raises UnknownEntryError for an unknown leaf."""
    leaf = leaf_id if leaf_id is not None else session.default_leaf
    path = session.path_to(leaf) if leaf is not None else []
    on_path = {id(r) for r in path}
    file_bytes = _file_size(session)
    header_bytes = session.records[0].offset if session.records else session.end_offset
    report = SizeReport(leaf, file_bytes, header_bytes, 0)
    kept_by_clone = header_bytes
    counted = header_bytes
    for record in session.records:
        size = record.length + 1  # the newline
        counted += size
        _bump(report.by_type, _name(record.type), size)
        m = record.message
        if isinstance(m, MessageHead):
            _bump(report.by_role, _name(m.role), size)
            if m.role == "toolResult":
                _bump(report.tool_results, _name(m.toolName), size)
            elif m.role == "assistant":
                _count_calls(session, record, report)
        if id(record) in on_path:
            report.active.add(size)
            if record.type != "label":
                kept_by_clone += size
        else:
            report.abandoned.add(size)
        if record.type in ("message", "custom_message"):
            _count_images(session, record, report)
    report.other_bytes = max(file_bytes - counted, 0)
    report.clone_drops = max(file_bytes - kept_by_clone, 0)
    return report


def fork_drops(session: Session, leaf_id: str) -> int:
    """About how many bytes fewer a fork at `leaf_id` (a clone, at the default leaf) would
    have: what `size_report(session, leaf_id).clone_drops` says, from line lengths alone.
    Raises UnknownEntryError for an unknown leaf."""
    header = session.records[0].offset if session.records else session.end_offset
    kept = header + sum(r.length + 1 for r in session.path_to(leaf_id) if r.type != "label")
    return max(_file_size(session) - kept, 0)


def _file_size(session: Session) -> int:
    if session.path is not None:
        try:
            return os.path.getsize(session.path)
        except OSError:
            pass
    return session.end_offset + session.pending_bytes


def _bump(table: dict[str, ByteCount], key: str, size: int, count: int = 1) -> None:
    found = table.get(key)
    if found is None:
        found = table[key] = ByteCount()
    found.add(size, count)


def _count_calls(session: Session, record: Any, report: SizeReport) -> None:
    message = session.entry_dict(record).get("message")
    content = message.get("content") if isinstance(message, dict) else None
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "toolCall":
            _bump(report.tool_calls, _name(block.get("name")), _encoded_size(block))


def _encoded_size(value: Any) -> int:
    try:
        return len(msgspec.json.encode(value))
    except (msgspec.EncodeError, UnicodeEncodeError, OverflowError, TypeError, ValueError):
        return 0


def _count_images(session: Session, record: Any, report: SizeReport) -> None:
    raw = session.source.read(record.offset, record.length)
    if _IMAGE_MARK not in raw:
        return
    entry = session.entry_dict(record)
    holder = entry.get("message") if record.type == "message" else entry
    content = holder.get("content") if isinstance(holder, dict) else None
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "image":
            data = block.get("data")
            report.images.add(len(data) if isinstance(data, str) else 0)
