"""One line per session for the sidebar and `pi-sessions list`, with pi's list semantics.

pi's `buildSessionInfo` reads every line of a file (no migration): the first parsed object
must be a session header; `messageCount` counts every `message` entry; `firstMessage` is the
first non-empty user text in file order; `name` the latest `session_info` in file order;
`modified` the latest user/assistant message time. Where pi throws and silently drops the
whole session (a user message whose content is null, say) we keep it and say why.

Summaries are built from the bytes appended since the last look: `SummaryBuilder` keeps the
few running values the listing needs, so a file that grew is read from where we stopped.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any

import msgspec
from msgspec import UNSET, Raw, UnsetType

from .jsvalues import date_ms, iso_from_ms, js_string, js_truthy
from .lines import FileSource, LineDecodeError, decode_json, read_lines
from .problems import ProblemKind
from .records import UsageHead
from .session import session_name_of

NO_MESSAGES = "(no messages)"


class _Block(msgspec.Struct, gc=False):
    type: Any = None
    text: Any = None


class _ListMessage(msgspec.Struct, gc=False):
    role: Any = UNSET
    timestamp: Any = None
    usage: UsageHead | None = None
    content: Raw | UnsetType = UNSET


class _ListLine(msgspec.Struct, gc=False):
    type: Any = None
    id: Any = None
    parentId: Any = None
    timestamp: Any = None
    name: Any = UNSET
    message: _ListMessage | UnsetType | None = UNSET
    usage: UsageHead | None = None


_line_decoder = msgspec.json.Decoder(_ListLine)
_blocks_decoder = msgspec.json.Decoder(str | list[_Block | None])


class _Odd:
    """A line whose shape the typed decoder refused; carried as the plain decoded value."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def _decode_list_line(data: bytes | memoryview) -> _ListLine | _Odd:
    try:
        return _line_decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return _Odd(decode_json(data))


@dataclass(slots=True)
class SessionSummary:
    """What the list shows for one session file."""

    path: str
    id: Any = None
    cwd: str = ""
    name: str | None = None
    parent_session_path: Any = None
    created: str | None = None
    modified: str | None = None
    modified_ms: float = 0.0
    message_count: int = 0
    first_message: str = NO_MESSAGES
    # beyond pi's SessionInfo
    size: int = 0
    mtime_ns: int = 0
    inode: int = 0
    entry_count: int = 0
    tip_count: int = 0
    has_compaction: bool = False
    tokens: float = 0.0
    cost: float = 0.0
    problems: list[str] = field(default_factory=list)
    pi_lists_it: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "id": self.id,
            "cwd": self.cwd,
            "name": self.name,
            "parentSessionPath": self.parent_session_path,
            "created": self.created,
            "modified": self.modified,
            "messageCount": self.message_count,
            "firstMessage": self.first_message,
            "size": self.size,
            "entryCount": self.entry_count,
            "branchCount": self.tip_count,
            "hasCompaction": self.has_compaction,
            "tokens": self.tokens,
            "cost": round(self.cost, 6),
            "problems": self.problems,
            "piListsIt": self.pi_lists_it,
        }

    @property
    def title(self) -> str:
        """What pi's picker shows: the name, else the first message."""
        return self.name if self.name else self.first_message

    @property
    def is_fork(self) -> bool:
        return isinstance(self.parent_session_path, str) and bool(self.parent_session_path)


class NotASession(Exception):
    """The file's first parsed object is not a session header: pi skips it."""


@dataclass(slots=True)
class SummaryBuilder:
    """Running state of one file's summary; feed it lines in file order, as they arrive."""

    header: dict[str, Any] | None = None
    offset: int = 0
    line_number: int = 1
    message_count: int = 0
    first_message: str = ""
    name: str | None = None
    last_activity: float | None = None
    entry_count: int = 0
    has_compaction: bool = False
    tokens: float = 0.0
    cost: float = 0.0
    ids: set[str] = field(default_factory=set)
    parents: set[str] = field(default_factory=set)
    malformed_lines: int = 0
    pi_drop_reason: str | None = None
    all_text: list[str] = field(default_factory=list)
    keep_text: bool = False

    def feed_file(self, path: str) -> None:
        header_pending = self.header is None

        def decode(data: bytes | memoryview) -> _ListLine | _Odd:
            nonlocal header_pending
            if header_pending:
                # The header is decoded in full; it is small and all of it is shown.
                value = decode_json(data)
                header_pending = not js_truthy(value)
                return _Odd(value)
            return _decode_list_line(data)

        result = read_lines(FileSource(path), decode, self.offset, self.line_number)
        for line in result.lines:
            self._feed(line.value)
        self.malformed_lines += sum(1 for p in result.problems if p.kind != ProblemKind.PARTIAL_LAST_LINE)
        self.offset, self.line_number = result.end_offset, result.end_line

    def _feed(self, value: _ListLine | _Odd) -> None:
        if self.header is None:
            raw = value.value if isinstance(value, _Odd) else None
            if not js_truthy(raw):
                return  # pi's reader skips null, false, 0 and "" lines
            if not isinstance(raw, dict) or raw.get("type") != "session":
                raise NotASession("the first entry is not a session header")
            self.header = raw
            return
        if isinstance(value, _Odd):
            self._feed_plain(value.value)
            return
        self.entry_count += 1
        self._structure(value.id, value.parentId)
        kind = value.type
        if kind == "session_info":
            self._name(value.name)
        elif kind == "compaction":
            self.has_compaction = True
        if kind in ("usage", "compaction", "branch_summary") and value.usage is not None:
            self.tokens += value.usage.tokens()
            self.cost += value.usage.cost_total()
        if kind != "message":
            return
        self.message_count += 1
        message = value.message
        if message is None or message is UNSET:
            self._drop("a message entry has no message object")
            return
        role = message.role
        if role == "assistant" and message.usage is not None:
            self.tokens += message.usage.tokens()
            self.cost += message.usage.cost_total()
        if not isinstance(role, str) or message.content is UNSET:
            return
        if role != "user" and role != "assistant":
            return
        self._activity(message.timestamp, value.timestamp)
        text = self._text(message.content)
        self._message_text(role, text)

    def _feed_plain(self, value: Any) -> None:
        """The same rules on a plain decoded value (odd shapes, lone surrogates...)."""
        if not isinstance(value, dict):
            return  # JSON.parse gave a non-object: pi's listing reads `.type` of it and moves on
        self.entry_count += 1
        self._structure(value.get("id"), value.get("parentId"))
        kind = value.get("type")
        if kind == "session_info":
            self._name(value.get("name"))
        elif kind == "compaction":
            self.has_compaction = True
        if kind != "message":
            return
        self.message_count += 1
        message = value.get("message")
        if message is None:
            self._drop("a message entry has no message object")
            return
        if not isinstance(message, dict):
            if isinstance(message, str):
                self._drop("a message entry holds a string")
            return
        role = message.get("role")
        if not isinstance(role, str) or "content" not in message:
            return
        if role != "user" and role != "assistant":
            return
        self._activity(message.get("timestamp"), value.get("timestamp"))
        try:
            text = _plain_text(message.get("content"))
        except TypeError as e:
            self._drop(f"a {role} message has unreadable content ({e})")
            text = ""
        self._message_text(role, text)

    def _structure(self, entry_id: Any, parent_id: Any) -> None:
        if isinstance(entry_id, str):
            self.ids.add(entry_id)
        if isinstance(parent_id, str):
            self.parents.add(parent_id)

    def _name(self, value: Any) -> None:
        if value is not UNSET and value is not None and not isinstance(value, str):
            self._drop("a session_info name is not a string")
        self.name = session_name_of(value)

    def _activity(self, message_ts: Any, entry_ts: Any) -> None:
        if isinstance(message_ts, int | float) and not isinstance(message_ts, bool):
            t: float | None = float(message_ts)
        else:
            t = date_ms(entry_ts)
        if t is not None and not math.isnan(t):
            self.last_activity = max(self.last_activity if self.last_activity is not None else 0.0, t)

    def _text(self, content: Raw | UnsetType) -> str:
        try:
            decoded = _blocks_decoder.decode(content)  # type: ignore[arg-type]
        except (msgspec.DecodeError, msgspec.ValidationError):
            try:
                return _plain_text(decode_json(content))  # type: ignore[arg-type]
            except (TypeError, LineDecodeError) as e:
                self._drop(f"a message has unreadable content ({e})")
                return ""
        if isinstance(decoded, str):
            return decoded
        parts: list[str] = []
        for block in decoded:
            if block is None:
                self._drop("a message has a null content block")
                return ""
            if block.type == "text":
                parts.append(js_string(block.text))
        return " ".join(parts)

    def _message_text(self, role: str, text: str) -> None:
        if not text:
            return
        if self.keep_text:
            self.all_text.append(text)
        if not self.first_message and role == "user":
            self.first_message = text

    def _drop(self, reason: str) -> None:
        if self.pi_drop_reason is None:
            self.pi_drop_reason = reason

    def summary(self, path: str, st: os.stat_result) -> SessionSummary:
        header = self.header or {}
        created_ms = date_ms(header.get("timestamp")) if "timestamp" in header else None
        header_ts = header.get("timestamp")
        header_ms = date_ms(header_ts) if isinstance(header_ts, str) else None
        if self.last_activity is not None and self.last_activity > 0:
            modified_ms: float | None = self.last_activity
        elif header_ms is not None:
            modified_ms = header_ms
        else:
            modified_ms = float(st.st_mtime_ns // 1_000_000)
        cwd = header.get("cwd")
        problems: list[str] = []
        if self.malformed_lines:
            problems.append(f"{self.malformed_lines} malformed line(s) skipped")
        if self.pi_drop_reason:
            problems.append(f"pi leaves this session out of its list: {self.pi_drop_reason}")
        parent = header.get("parentSession")
        return SessionSummary(
            path=path,
            id=header.get("id"),
            cwd=cwd if isinstance(cwd, str) else "",
            name=self.name,
            parent_session_path=parent,
            created=iso_from_ms(created_ms),
            modified=iso_from_ms(modified_ms),
            modified_ms=modified_ms if modified_ms is not None else 0.0,
            message_count=self.message_count,
            first_message=self.first_message or NO_MESSAGES,
            size=st.st_size,
            mtime_ns=st.st_mtime_ns,
            inode=st.st_ino,
            entry_count=self.entry_count,
            tip_count=len(self.ids - self.parents),
            has_compaction=self.has_compaction,
            tokens=self.tokens,
            cost=self.cost,
            problems=problems,
            pi_lists_it=self.pi_drop_reason is None,
        )


def _plain_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise TypeError("content is not a string or an array")
    parts: list[str] = []
    for block in content:
        if block is None:
            raise TypeError("null content block")
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(js_string(block.get("text")))
    return " ".join(parts)


def summarize(
    path: str, keep_text: bool = False
) -> tuple[SessionSummary | None, SummaryBuilder | None, str | None]:
    """Read one file: (summary, the builder to continue from, why it is not a session)."""
    try:
        st = os.stat(path)
        builder = SummaryBuilder(keep_text=keep_text)
        builder.feed_file(path)
    except NotASession as e:
        return None, None, str(e)
    except OSError as e:
        return None, None, f"cannot read: {e.strerror or e}"
    if builder.header is None:
        return None, None, "empty file (no session header yet)"
    return builder.summary(path, st), builder, None
