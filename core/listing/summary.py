"""One line per session for the sidebar and `pi-sessions list`, with pi's list semantics.

pi's `buildSessionInfo` reads every line of a file (no migration): the first parsed object
must be a session header; `messageCount` counts every `message` entry; `firstMessage` is the
first non-empty user text in file order; `name` the latest `session_info` in file order;
`modified` the latest user/assistant message time. Where pi throws and silently drops the
whole session (a user message whose content is null, say) we keep it and say why.

Summaries are built from the bytes appended since the last look: `SummaryBuilder` keeps the
few running values the listing needs, so a file that grew is read from where we stopped.
pi's rules are written once, in one hot loop over typed lines (`_feed_many`); a line the typed
decoder refuses is turned into a typed line and goes through the same loop. (Over 450 lines:
the rules, the summary they fill and the decoding they rely on are read best side by side.)
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable
from io import BytesIO
from typing import Annotated, Any

import msgspec
from msgspec import UNSET, Raw, UnsetType

from ..common.jsvalues import (
    NotAnArray,
    date_ms,
    iso_from_ms,
    js_number,
    js_string,
    js_truthy,
    text_of_blocks,
)
from ..common.problems import ProblemKind
from ..reading.heads import CostHead, UsageHead, session_name_of, usage_numbers
from ..reading.lines import HEAD_BYTES, TAIL_BYTES, BytesSource, LineDecodeError, decode_json, read_lines

NO_MESSAGES = "(no messages)"
_HUGE = 2**1023  # an int below this converts to a float without overflow
NULL_BLOCK = "a message has a null content block"


class _Block(msgspec.Struct, gc=False):
    type: Any = None
    text: Raw = Raw(b"null")  # decoded only when the text is wanted (a first message, search)


class _Bare(msgspec.Struct, gc=False):
    """A block of which only its being there counts: an assistant's, when no text is kept (a
    null block makes the line odd, so a list of these never holds one)."""


# A string, or the blocks (a null block is None: pi's text extraction throws on it). Content
# of another shape makes the line odd (read by the exact path).
_Content = str | list[_Block | None] | UnsetType | None


# The typed decoders tell the roles apart by their tag and decode of each only what the
# listing reads: a tool result's content (most of a session's bytes) is skipped, and so are an
# assistant's blocks when no text is kept. A role not listed, a missing or a repeated role makes
# the line odd; the plain path (`_list_line_of`) makes the same records of it.
class _Message(msgspec.Struct, gc=False, tag_field="role"):
    pass


class _UserMessage(_Message, tag="user"):
    timestamp: Any = None
    content: _Content = UNSET


class _AssistantMessage(_Message, tag="assistant"):
    timestamp: Any = None
    usage: UsageHead | None = None
    content: _Content = UNSET


class _BareAssistantMessage(_Message, tag="assistant"):
    timestamp: Any = None
    usage: UsageHead | None = None
    content: str | list[_Bare] | UnsetType | None = UNSET


class _ToolResultMessage(_Message, tag="toolResult"):
    usage: UsageHead | None = None


# pi's usual lines, read leaner still (`pi-sessions list` tries these first; a file with any
# other line is read again with the decoders above): a message's own time and a usage's total
# are finite numbers, so the entry's time is never needed and the usage's parts never summed.
_Finite = Annotated[float, msgspec.Meta(ge=-sys.float_info.max, le=sys.float_info.max)]


class _LeanCost(msgspec.Struct, gc=False):
    total: _Finite


class _LeanUsage(msgspec.Struct, gc=False):
    totalTokens: _Finite
    cost: _LeanCost | None = None


class _LeanUserMessage(_Message, tag="user"):
    timestamp: _Finite
    content: _Content = UNSET


class _LeanAssistantMessage(_Message, tag="assistant"):
    timestamp: _Finite
    usage: _LeanUsage | None = None
    content: str | list[_Bare] | UnsetType | None = UNSET


class _LeanToolResultMessage(_Message, tag="toolResult"):
    usage: _LeanUsage | None = None


class _SystemMessage(_Message, tag="system"):
    pass


class _CustomMessage(_Message, tag="custom"):
    pass


class _BashExecutionMessage(_Message, tag="bashExecution"):
    pass


class _BranchSummaryMessage(_Message, tag="branchSummary"):
    pass


class _CompactionSummaryMessage(_Message, tag="compactionSummary"):
    pass


class _HookMessage(_Message, tag="hookMessage"):  # (older files: pi reads it as custom)
    pass


# The roles whose messages the listing only counts.
_CountedOnly = (
    _SystemMessage
    | _CustomMessage
    | _BashExecutionMessage
    | _BranchSummaryMessage
    | _CompactionSummaryMessage
    | _HookMessage
)


class _OtherMessage(msgspec.Struct, gc=False):
    """A message the listing only counts, made by the plain path (another role, or not even
    an object: pi reads `.role` of it, undefined)."""


class _ListLine(msgspec.Struct, gc=False):
    """One entry as the listing reads it (with its text kept: the browser's index)."""

    type: Any = None
    id: Any = None
    parentId: Any = None
    timestamp: Any = None
    name: Any = UNSET
    message: _UserMessage | _AssistantMessage | _ToolResultMessage | _CountedOnly | UnsetType | None = UNSET
    usage: UsageHead | None = None


class _BareListLine(_ListLine):
    """`_ListLine` when no text is kept (`pi-sessions list`)."""

    message: (  # (another assistant record: a decoder's type)
        _UserMessage | _BareAssistantMessage | _ToolResultMessage | _CountedOnly | UnsetType | None
    ) = UNSET  # type: ignore[assignment]


class _LeanListLine(msgspec.Struct, gc=False):
    """A usual line when no text is kept: the typed fields of `_ListLine` but the time."""

    type: Any = None
    id: Any = None
    parentId: Any = None
    name: Any = UNSET
    message: (
        _LeanUserMessage | _LeanAssistantMessage | _LeanToolResultMessage | _CountedOnly | UnsetType | None
    ) = UNSET
    usage: UsageHead | None = None


_line_decoder = msgspec.json.Decoder(_ListLine)
_bare_line_decoder = msgspec.json.Decoder(_BareListLine)
_lean_line_decoder = msgspec.json.Decoder(_LeanListLine)

# What each message record's class says its role is (the plain path's other roles: None).
_USER, _ASSISTANT, _TOOL_RESULT = "user", "assistant", "toolResult"
_ROLE_OF = {
    _UserMessage: _USER,
    _LeanUserMessage: _USER,
    _AssistantMessage: _ASSISTANT,
    _BareAssistantMessage: _ASSISTANT,
    _LeanAssistantMessage: _ASSISTANT,
    _ToolResultMessage: _TOOL_RESULT,
    _LeanToolResultMessage: _TOOL_RESULT,
}.get


def _plain_usage(usage: Any) -> UsageHead | None:
    if not isinstance(usage, dict):
        return None
    cost = usage.get("cost")
    return UsageHead(
        input=usage.get("input"),
        output=usage.get("output"),
        cacheRead=usage.get("cacheRead"),
        cacheWrite=usage.get("cacheWrite"),
        totalTokens=usage.get("totalTokens"),
        cost=CostHead(total=cost.get("total")) if isinstance(cost, dict) else None,
    )


def _list_line_of(value: dict[str, Any]) -> _ListLine:
    """The typed line for a plain decoded entry, nested values of the wrong shape dropped as
    pi's listing would never look at them. The content stays the decoded value."""
    message = value.get("message", UNSET)
    if isinstance(message, dict):
        role = message.get("role")
        if role == "user":
            message = _UserMessage(timestamp=message.get("timestamp"), content=message.get("content", UNSET))
        elif role == "assistant":
            message = _AssistantMessage(
                timestamp=message.get("timestamp"),
                usage=_plain_usage(message.get("usage")),
                content=message.get("content", UNSET),
            )
        elif role == "toolResult":
            message = _ToolResultMessage(usage=_plain_usage(message.get("usage")))
        else:
            message = _OtherMessage()
    elif message is not None and message is not UNSET:
        message = _OtherMessage()  # a string, a number...: pi reads `.role` of it (undefined)
    return _ListLine(
        type=value.get("type"),
        id=value.get("id"),
        parentId=value.get("parentId"),
        timestamp=value.get("timestamp"),
        name=value.get("name", UNSET),
        message=message,
        usage=_plain_usage(value.get("usage")),
    )


# Lines are decoded one by one (a line holding two values or none is then never mistaken for
# one); up to this many bytes they are split off in one call (a copy), past it viewed in place.
SPLIT_BYTES = 4 * 1024 * 1024


def _line_views(data: bytes | bytearray, start: int, stop: int) -> list[memoryview]:
    """The lines of `data[start:stop]` (`stop` after a newline) without copying them: a big
    file is mostly long lines (tool outputs), found newline to newline (memchr)."""
    view = memoryview(data)
    find = data.find
    lines: list[memoryview] = []
    append = lines.append
    pos = start
    while pos < stop:
        newline = find(b"\n", pos, stop)
        append(view[pos:newline])
        pos = newline + 1
    return lines


class _Odd:
    """A line whose shape the typed decoder refused; carried as the plain decoded value."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def _decode_list_line(data: bytes | bytearray | memoryview) -> _ListLine | _Odd:
    try:
        return _line_decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return _Odd(decode_json(data))


class SessionSummary(msgspec.Struct, kw_only=True, array_like=True, gc=False):
    """What the list shows for one session file (kept as is in the index cache)."""

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
    problems: list[str] = msgspec.field(default_factory=list)
    pi_lists_it: bool = True

    def to_json(self) -> dict[str, Any]:
        return msgspec.to_builtins(self._json_row())  # type: ignore[no-any-return]

    def _json_row(self) -> _JsonSummary:
        return _JsonSummary(
            self.path,
            self.id,
            self.cwd,
            self.name,
            self.parent_session_path,
            self.created,
            self.modified,
            self.message_count,
            self.first_message,
            self.size,
            self.entry_count,
            self.tip_count,
            self.has_compaction,
            self.tokens,
            round(self.cost, 6),
            self.problems,
            self.pi_lists_it,
        )

    @property
    def title(self) -> str:
        """What pi's picker shows: the name, else the first message."""
        return self.name if self.name else self.first_message

    @property
    def is_fork(self) -> bool:
        return isinstance(self.parent_session_path, str) and bool(self.parent_session_path)


class _JsonSummary(msgspec.Struct, rename="camel", gc=False):
    """A summary as `list --json` writes it (the fields in this order, named as pi's are)."""

    path: str
    id: Any
    cwd: str
    name: str | None
    parent_session_path: Any
    created: str | None
    modified: str | None
    message_count: int
    first_message: str
    size: int
    entry_count: int
    branch_count: int
    has_compaction: bool
    tokens: float
    cost: float
    problems: list[str]
    pi_lists_it: bool


_json_encoder = msgspec.json.Encoder()


def json_lines(summaries: Iterable[SessionSummary]) -> bytes:
    """Each summary's `to_json` as one JSON line, in one call (twice as fast at 10,000 sessions
    as a dict and a call each); a value msgspec cannot write takes `encode_json`'s way."""
    rows = [summary._json_row() for summary in summaries]
    try:
        return _json_encoder.encode_lines(rows)
    except (msgspec.EncodeError, UnicodeEncodeError, OverflowError, TypeError, ValueError):
        from ..common.jsonout import encode_json

        return b"".join(encode_json(msgspec.to_builtins(row)) + b"\n" for row in rows)


class NotASession(Exception):
    """The file's first parsed object is not a session header: pi skips it."""


HEADER_FIELDS = ("type", "version", "id", "timestamp", "cwd", "parentSession")


class SummaryBuilder(msgspec.Struct, kw_only=True, array_like=True):
    """Running state of one file's summary. Feed it the bytes appended since last time; it
    is small enough to be kept in the index cache and continued from there."""

    header: dict[str, Any] | None = None
    offset: int = 0  # first byte not yet read (a held-back partial line starts here)
    line_number: int = 1
    tail: bytes = b""  # the TAIL_BYTES before `offset`: tells a grown file from a rewritten one
    head: bytes = b""  # the file's first HEAD_BYTES (at most up to `offset`), for the same check
    message_count: int = 0
    first_message: str = ""
    name: str | None = None
    last_activity: float | None = None
    entry_count: int = 0
    has_compaction: bool = False
    tokens: float = 0.0
    cost: float = 0.0
    tips: set[str] = msgspec.field(default_factory=set)  # ids without a child so far
    referenced: set[str] = msgspec.field(default_factory=set)  # parents that were not tips when named
    malformed_lines: int = 0
    pi_drop_reason: str | None = None
    texts: list[str] | None = None  # user/assistant texts, when kept for search
    title: str | None = None  # oh-my-pi's title slot (the line before the header), when there is one

    # ---------------------------------------------------------------- reading
    def feed_bytes(self, data: bytes | bytearray, final: bool = True) -> None:
        """Consume `data`, the file's bytes from `self.offset` on; not `final` (more of the
        file follows: a piece of a big one), a last line without its newline is held back."""
        pos = 0
        if self.header is None:
            pos = self._find_header(data, final)
            if self.header is None:
                self._advance(data, pos)
                return
        end = data.rfind(b"\n") + 1
        if end > pos:
            if not self._feed_fast(data, pos, end):
                self._feed_slow(bytes(data[pos:end]))
                self.line_number += data.count(b"\n", pos, end)
            pos = end
        if pos < len(data) and final:
            # A last line without its newline: taken when complete, else held back.
            rest = data[pos:]
            if not rest.strip():
                pos = len(data)
            else:
                try:
                    value = _decode_list_line(rest)
                except ValueError:
                    value = None
                if value is not None:
                    self._feed(value)
                    pos = len(data)
        self._advance(data, pos)

    def _advance(self, data: bytes | bytearray, pos: int) -> None:
        if pos:
            if len(self.head) < HEAD_BYTES:
                self.head += data[: min(pos, HEAD_BYTES - len(self.head))]
            self.tail = (self.tail + data[max(0, pos - TAIL_BYTES) : pos])[-TAIL_BYTES:]
            self.offset += pos

    def _find_header(self, data: bytes | bytearray, final: bool = True) -> int:
        """Skip blank and malformed lines up to the first parsed object, which must be a
        header; returns where the entries start (or where to wait for more bytes)."""
        pos = 0
        while pos < len(data):
            nl = data.find(b"\n", pos)
            complete = nl >= 0
            if not complete and not final:
                return pos  # (the rest of the line follows)
            line_end = nl if complete else len(data)
            next_pos = line_end + 1 if complete else len(data)
            line = data[pos:line_end]
            if not line.strip():
                if not complete:
                    return pos
                pos = next_pos
                self.line_number += 1
                continue
            try:
                value = decode_json(line)
            except ValueError:
                if not complete:
                    return pos  # a header still being written: wait for the rest
                self.malformed_lines += 1
                pos = next_pos
                self.line_number += 1
                continue
            if complete:
                self.line_number += 1
            if not js_truthy(value):
                pos = next_pos
                continue  # pi's reader skips null, false, 0 and ""
            if self.title is None and isinstance(value, dict) and value.get("type") == "title":
                # oh-my-pi's title slot before its header: pi refuses the file, we read it
                title = value.get("title")
                self.title = title.strip() if isinstance(title, str) else ""
                self._drop("an oh-my-pi title line comes before the header")
                pos = next_pos
                continue
            if not isinstance(value, dict) or value.get("type") != "session":
                raise NotASession("the first entry is not a session header")
            self.header = {k: value[k] for k in HEADER_FIELDS if k in value}
            return next_pos
        return pos

    def _feed_fast(self, data: bytes | bytearray, start: int, stop: int) -> bool:
        """All complete lines (`data[start:stop]`, `stop` after a newline) decoded at C speed;
        False when any line needs the exact path (a blank one, an odd shape...)."""
        lines: Iterable[bytes] | list[bytes] | list[memoryview]
        if stop - start > SPLIT_BYTES or data.__class__ is not bytes:  # (BytesIO would copy it)
            lines = _line_views(data, start, stop)
        else:
            # Each line a copy, found with memchr (bytes.split looks at every byte: twice the
            # time), decoded and dropped one by one (a list of them all first: 16% slower); a
            # line keeps its newline, which the decoder reads as trailing space.
            source = BytesIO(data)  # (shares `data`, no copy)
            source.seek(start)
            if stop < len(data):
                lines = source.readlines()
                lines.pop()  # what follows the last newline
            else:
                lines = source
        values: list[Any]
        try:
            if self.texts is not None:
                values = list(map(_line_decoder.decode, lines))
            else:
                try:
                    values = list(map(_lean_line_decoder.decode, lines))
                except msgspec.ValidationError:  # (not only pi's usual lines: the full types)
                    if isinstance(lines, BytesIO):
                        lines.seek(start)
                    values = list(map(_bare_line_decoder.decode, lines))
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            return False
        self.line_number += len(values)
        self._feed_many(values)
        return True

    def _feed_many(self, values: list[Any]) -> None:
        """`_feed` for a whole file's lines at once, with the hot state in locals: a cold
        listing spends most of its Python time here (hundreds of thousands of entries)."""
        tips, referenced = self.tips, self.referenced
        message_count = 0
        # Summed in file order from the running totals, as pi sums (a run's own subtotal
        # added at the end gave another last digit than the same lines fed one by one).
        tokens, cost = self.tokens, self.cost
        last_activity = self.last_activity
        want_first = not self.first_message
        keep_texts = self.texts is not None
        role_of = _ROLE_OF
        for value in values:
            # Tips (entries nobody names as parent) without keeping every id: an entry is a
            # tip until a child names it; a parent that was not a tip is remembered in case
            # it shows up later (a child written before its parent).
            entry_id, parent_id = value.id, value.parentId
            if entry_id.__class__ is str:
                if entry_id in referenced:
                    referenced.discard(entry_id)
                else:
                    tips.add(entry_id)
            if parent_id.__class__ is str:
                if parent_id in tips:
                    tips.discard(parent_id)
                else:
                    referenced.add(parent_id)
            kind = value.type
            if kind != "message":
                if value.usage is not None or kind == "session_info" or kind == "compaction":
                    self.tokens, self.cost = tokens, cost
                    self._feed_other(value)  # (nothing to do for the others: most entries)
                    tokens, cost = self.tokens, self.cost
                continue
            message_count += 1
            message: Any = value.message  # (told apart by class below: mypy cannot follow)
            role = role_of(message.__class__)  # (as the decoder or the plain path told it)
            if role is None:
                if message is None or message is UNSET:
                    self._drop("a message entry has no message object")
                continue
            if role is not _USER:
                usage = message.usage  # (the roles whose usage pi counts)
                if usage is not None:  # (usage_numbers, inlined: a call per reply was measurable)
                    total = usage.totalTokens
                    if (total.__class__ is int and -(2**53) < total < 2**53) or (
                        total.__class__ is float and total - total == 0.0  # (finite)
                    ):
                        tokens += total
                    else:
                        tokens += usage.tokens()
                    spent = usage.cost.total if usage.cost is not None else None
                    if spent.__class__ is float and spent - spent == 0.0:
                        cost += spent
                    elif spent is not None:
                        cost += usage.cost_total()
                if role is _TOOL_RESULT:
                    continue
            content = message.content
            if content is UNSET:
                continue
            t = message.timestamp
            if t.__class__ is int or t.__class__ is float:
                # pi: Math.max(lastActivityTime ?? 0, t)
                if last_activity is None:
                    last_activity = js_number(t) if t > 0 else 0.0
                elif t > last_activity:
                    # js_number inlined for the usual (a float already, or an int a float holds)
                    last_activity = t if t.__class__ is float else float(t) if t < _HUGE else js_number(t)
            else:
                self.last_activity = last_activity
                self._activity(t, value.timestamp)
                last_activity = self.last_activity
            if keep_texts or (want_first and role == "user"):
                text = self._text(content)
                self._message_text(role, text)
                want_first = not self.first_message
            else:
                # Without the text: would pi's extraction throw? A string never does, an
                # array only with a null block in it (never in a bare one); anything else does.
                if content.__class__ is list:
                    if None not in content:  # (never in a bare block list: quick)
                        continue
                elif content.__class__ is str:
                    continue
                self._text(content)
        self.tokens, self.cost = tokens, cost
        self.entry_count += len(values)
        self.message_count += message_count
        self.last_activity = last_activity

    def _feed_slow(self, region: bytes) -> None:
        result = read_lines(BytesSource(region), _decode_list_line)
        for line in result.lines:
            self._feed(line.value)
        self.malformed_lines += sum(1 for p in result.problems if p.kind != ProblemKind.PARTIAL_LAST_LINE)

    # ---------------------------------------------------------------- one entry
    def _feed(self, value: _ListLine | _Odd) -> None:
        if isinstance(value, _Odd):
            self._feed_plain(value.value)
        else:
            self._feed_many([value])

    def _feed_other(self, value: _ListLine) -> None:
        kind = value.type
        if kind == "session_info":
            self._name(value.name)
        elif kind == "compaction":
            self.has_compaction = True
        usage = value.usage
        if usage is not None and kind in ("usage", "compaction", "branch_summary"):
            self._add_usage(usage)

    def _add_usage(self, usage: UsageHead) -> None:
        tokens, cost = usage_numbers(usage)
        self.tokens += tokens
        self.cost += cost

    def _feed_plain(self, value: Any) -> None:
        """A line the typed decoder refused (odd shapes, lone surrogates...): the same rules,
        on the same fields taken from the plain decoded value."""
        if not isinstance(value, dict):
            return  # JSON.parse gave a non-object: pi's listing reads `.type` of it and moves on
        self._feed_many([_list_line_of(value)])

    def _name(self, value: Any) -> None:
        if value is not UNSET and value is not None and not isinstance(value, str):
            self._drop("a session_info name is not a string")
        self.name = session_name_of(None if value is UNSET else value)

    def _activity(self, message_ts: Any, entry_ts: Any) -> None:
        if isinstance(message_ts, int | float) and not isinstance(message_ts, bool):
            t: float | None = js_number(message_ts)
        else:
            t = date_ms(entry_ts)
        if t is not None and not math.isnan(t):
            self.last_activity = max(self.last_activity if self.last_activity is not None else 0.0, t)

    def _text(self, content: Any) -> str:
        """pi's extractTextContent of a message's content (typed, or a plain decoded value);
        where pi would throw, the session is marked as one pi's list leaves out."""
        if content.__class__ is list and content and content[0].__class__ is _Block:
            parts: list[str] = []
            for block in content:
                if block is None:
                    self._drop(NULL_BLOCK)
                    return ""
                if block.type == "text":
                    try:
                        parts.append(js_string(decode_json(block.text)))
                    except LineDecodeError as e:
                        self._drop(f"a message has unreadable content ({e})")
                        return ""
            return " ".join(parts)
        try:
            return text_of_blocks(content, " ")
        except NotAnArray as e:
            self._drop(f"a message has unreadable content ({e})")
        except TypeError:
            self._drop(NULL_BLOCK)
        return ""

    def _message_text(self, role: str, text: str) -> None:
        if not text:
            return
        if self.texts is not None:
            self.texts.append(text)
        if not self.first_message and role == "user":
            self.first_message = text

    def _drop(self, reason: str) -> None:
        if self.pi_drop_reason is None:
            self.pi_drop_reason = reason

    # ---------------------------------------------------------------- the summary
    def summary(self, path: str, size: int, mtime_ns: int, inode: int) -> SessionSummary:
        header = self.header or {}
        # pi parses the header's timestamp for `created` and, a string only, for `modified`'s
        # fallback: parsed once (a cold listing of 10,000 sessions parsed each header twice)
        header_ts = header.get("timestamp")
        created_ms = date_ms(header_ts) if "timestamp" in header else None
        header_ms = created_ms if isinstance(header_ts, str) else None
        if self.last_activity is not None and self.last_activity > 0:
            modified_ms: float | None = self.last_activity
        elif header_ms is not None:
            modified_ms = header_ms
        else:
            modified_ms = float(mtime_ns // 1_000_000)
        cwd = header.get("cwd")
        problems: list[str] = []
        if self.malformed_lines:
            problems.append(f"{self.malformed_lines} malformed line(s) skipped")
        if self.pi_drop_reason:
            problems.append(f"pi leaves this session out of its list: {self.pi_drop_reason}")
        return SessionSummary(
            path=path,
            id=header.get("id"),
            cwd=cwd if isinstance(cwd, str) else "",
            name=self.title or self.name,
            parent_session_path=header.get("parentSession"),
            created=iso_from_ms(created_ms),
            modified=iso_from_ms(modified_ms),
            modified_ms=modified_ms if modified_ms is not None else 0.0,
            message_count=self.message_count,
            first_message=self.first_message or NO_MESSAGES,
            size=size,
            mtime_ns=mtime_ns,
            inode=inode,
            entry_count=self.entry_count,
            tip_count=len(self.tips),
            has_compaction=self.has_compaction,
            tokens=self.tokens,
            cost=self.cost,
            problems=problems,
            pi_lists_it=self.pi_drop_reason is None,
        )
