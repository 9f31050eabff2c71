"""The structural record of one entry: what the tree, the context walk and the totals need.

Reading a session decodes each line into an `EntryRecord` with msgspec: ids, links, the small
type-specific fields and a head of the message (role, model, usage). Message bodies, tool
outputs, system prompts and extension data are validated but not kept: they are read back by
byte offset when someone looks at them (see `Session.entry_dict`). This keeps a 100 MB
session at a few MB of memory and makes opening it a matter of scanning its bytes once.
The usage and name heads (core/reading/heads.py) are decoded the same way by the listing. (A little
over 450 lines: the record types and the one decoding loop that fills them change together.)
"""

# No `from __future__ import annotations`: msgspec would evaluate the annotation strings of
# every Struct here (a dozen) at import, which costs more than the rest of the module.
import math
from itertools import accumulate, count, repeat
from operator import add
from sys import intern
from typing import TYPE_CHECKING, Any, Union

import msgspec
from msgspec import UNSET, Raw, UnsetType

from ..common.jsvalues import js_truthy
from ..common.problems import ProblemKind
from .heads import CostHead, UsageHead, session_name_of, usage_numbers
from .lines import LineDecodeError, decode_json

# Internal fields carry JSON names no session line uses, and are always set after decoding.
_INTERNAL = "§pi-sessions§"


class MessageHead(msgspec.Struct, gc=False):
    role: Any = None
    provider: Any = UNSET
    model: Any = UNSET
    usage: UsageHead | None = None
    stopReason: Any = None
    toolName: Any = None
    customType: Any = None
    content: Raw | UnsetType = UNSET  # dropped right after reading: only its size and kind stay


# The message roles whose usage pi 1.6.0 adds to a session's totals (AgentSession.getSessionStats,
# the footer, getUsageCostBreakdown): replies, and tool results that report one (a subagent's).
# A user, custom or bashExecution message's usage is not counted, nor a custom entry's.
USAGE_ROLES = ("assistant", "toolResult")

# What a message's content (or a context edit's replacement) looked like, without keeping it.
CONTENT_ABSENT = 0
CONTENT_NULL = 1
CONTENT_STRING = 2
CONTENT_ARRAY = 3
CONTENT_OTHER = 4


_KIND_BY_FIRST_BYTE = {ord("n"): CONTENT_NULL, ord('"'): CONTENT_STRING, ord("["): CONTENT_ARRAY}


def _raw_kind(raw: Raw | UnsetType) -> int:
    if raw is UNSET:
        return CONTENT_ABSENT
    view = memoryview(raw)
    return _KIND_BY_FIRST_BYTE.get(view[0], CONTENT_OTHER) if len(view) else CONTENT_OTHER


def _raw_truthy(raw: Raw | UnsetType) -> bool:
    if raw is UNSET:
        return False
    view = memoryview(raw)
    if len(view) and view[0] in (0x7B, 0x5B):  # an object or an array: always truthy
        return True
    return js_truthy(msgspec.json.decode(bytes(view)))


class EntryRecord(msgspec.Struct, gc=False, kw_only=True):
    """One non-header line of a session, as far as structure goes (fields named as in the file).

    Nine lines in ten are plain messages: they are `MessageRecord`s, which hold only the
    fields every line has; every other line is a `FullRecord`. Both answer for every field
    (a message record's type-specific fields are their defaults, as a message line has none)."""

    id: Any = None
    parentId: Any = None
    # UNSET once the session keeps it in its column of timestamps (`Session.timestamp_of`).
    timestamp: Any = None
    message: MessageHead | UnsetType | None = UNSET

    # --- set by the reader, never from the file ---------------------------------------------
    index: int = msgspec.field(default=-1, name=_INTERNAL + "index")  # position among records
    line: int = msgspec.field(default=0, name=_INTERNAL + "line")  # 1-based physical line
    offset: int = msgspec.field(default=0, name=_INTERNAL + "offset")
    length: int = msgspec.field(default=0, name=_INTERNAL + "length")
    parsed_index: int = msgspec.field(default=0, name=_INTERNAL + "parsed")  # in pi's parsed array
    content_kind: int = msgspec.field(default=CONTENT_ABSENT, name=_INTERNAL + "ck")
    content_size: int = msgspec.field(default=0, name=_INTERNAL + "cs")
    tokens: float = msgspec.field(default=0.0, name=_INTERNAL + "tok")  # what this entry adds to totals
    cost: float = msgspec.field(default=0.0, name=_INTERNAL + "cost")
    # An assistant reply's reported context (pi's calculateContextTokens of its usage), known
    # from the line when its usage is plain: the int, or None when it reports nothing; UNSET:
    # read the body (`tokens.reported_context`). (No room taken: 13 fields and 14 fill the
    # same 128-byte block of a message record.)
    reported: Any = msgspec.field(default=UNSET, name=_INTERNAL + "rep")

    if TYPE_CHECKING:
        type: Any
        # label, context_edit
        targetId: Any
        label: Any
        # session_info
        name: Any
        # compaction / branch_summary
        firstKeptEntryId: Any
        firstKeptEntryIndex: Any
        tokensBefore: Any
        summary: Any
        fromId: Any
        # model_change / thinking_level_change / usage
        provider: Any
        modelId: Any
        model: Any
        thinkingLevel: Any
        kind: Any
        customType: Any
        display: Any
        usage: UsageHead | None
        replacement: Raw | UnsetType
        systemMessage: Raw | UnsetType
        replacement_kind: int
        has_system_message: bool
    else:
        # What a record without these fields (a message record) answers for them.
        type = None
        targetId = None
        label = None
        name = None
        firstKeptEntryId = None
        firstKeptEntryIndex = UNSET
        tokensBefore = None
        summary = None
        fromId = UNSET
        provider = UNSET
        modelId = UNSET
        model = UNSET
        thinkingLevel = UNSET
        kind = None
        customType = None
        display = None
        usage = None
        replacement = UNSET
        systemMessage = UNSET
        replacement_kind = CONTENT_ABSENT
        has_system_message = False

    # --- derived views ----------------------------------------------------------------------
    @property
    def role(self) -> Any:
        m = self.message
        return m.role if isinstance(m, MessageHead) else None


class MessageRecord(EntryRecord, tag_field="type", tag="message", forbid_unknown_fields=True):
    """A message line holding the keys pi writes on one and nothing else."""

    if not TYPE_CHECKING:
        type = "message"


class _RareFields(EntryRecord):
    """Every structural field a line may have besides the common ones."""

    # label, context_edit
    targetId: Any = None
    label: Any = None
    # session_info
    name: Any = None
    # compaction / branch_summary
    firstKeptEntryId: Any = None
    firstKeptEntryIndex: Any = UNSET
    tokensBefore: Any = None
    summary: Any = None
    fromId: Any = UNSET
    # model_change / thinking_level_change / usage
    provider: Any = UNSET
    modelId: Any = UNSET
    model: Any = UNSET
    thinkingLevel: Any = UNSET
    kind: Any = None
    customType: Any = None
    display: Any = None
    usage: UsageHead | None = None
    replacement: Raw | UnsetType = UNSET
    systemMessage: Raw | UnsetType = UNSET
    replacement_kind: int = msgspec.field(default=CONTENT_ABSENT, name=_INTERNAL + "rk")
    has_system_message: bool = msgspec.field(default=False, name=_INTERNAL + "sm")


class FullRecord(_RareFields):
    """Any line: every structural field, the type whatever it is."""

    type: Any = None


# The types pi writes, each a tagged record (the type is its class's), so one decoder tells
# them apart on the first key; a line of another type is read as a FullRecord.
KNOWN_TYPES = (
    "session",
    "thinking_level_change",
    "model_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
    "context_edit",
    "usage",
)


def _typed_record(kind: str) -> type[EntryRecord]:
    made: type[EntryRecord] = msgspec.defstruct(  # type: ignore[assignment]
        "TypedRecord",
        [],
        bases=(_RareFields,),
        namespace={"type": kind, "__doc__": f"A {kind} line."},
        tag_field="type",
        tag=kind,
        gc=False,
        kw_only=True,
    )
    return made


_TYPED_RECORDS = tuple(_typed_record(kind) for kind in KNOWN_TYPES)
_full_decoder = msgspec.json.Decoder(FullRecord)

_record_decoder = msgspec.json.Decoder(Union[MessageRecord, *_TYPED_RECORDS])


def decode_record(data: bytes | memoryview) -> EntryRecord | dict[str, Any]:
    """One line -> EntryRecord, or the decoded dict when the line is a session header.

    Raises LineDecodeError for a line that is not JSON or not an object.
    """
    as_written = True  # (else odd values were dropped: the usage is not the line's)
    try:
        record: EntryRecord = _record_decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        try:
            record = _full_decoder.decode(data)
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            other = _decode_lenient(data)
            if isinstance(other, dict):
                return other
            record, as_written = other, False
    if record.type == "session":
        # Headers are decoded in full: they are small and shown as they are.
        return decode_json(data)  # type: ignore[no-any-return]
    _finish(record, as_written)
    return record


def _decode_lenient(data: bytes | memoryview) -> EntryRecord | dict[str, Any]:
    """A line with keys of odd shapes (the lenient path): the header's dict, or a record of
    what is structural in it."""
    value = decode_json(data)
    if not isinstance(value, dict):
        raise LineDecodeError(
            ProblemKind.NOT_AN_OBJECT, f"not an entry (a JSON {_js_type(value)}, not an object)"
        )
    if value.get("type") == "session":
        return value
    return _record_from_dict(value)


class HeaderLine:
    """A session header line (the first, or a later one pi ignores), decoded in full."""

    __slots__ = ("length", "line", "offset", "value")

    def __init__(self, value: dict[str, Any], offset: int, length: int, line: int) -> None:
        self.value = value
        self.offset = offset
        self.length = length
        self.line = line


def decode_entry_at(data: bytes, offset: int, number: int) -> EntryRecord | HeaderLine:
    """One line at `offset` (line `number`) -> its record, placed; or its header."""
    value = decode_record(data)
    if isinstance(value, dict):
        return HeaderLine(value, offset, len(data), number)
    value.offset, value.length, value.line = offset, len(data), number
    return value


def decode_entries(lines: list[bytes], offset: int, number: int) -> list[EntryRecord | HeaderLine]:
    """`decode_entry_at` for a run of lines in one go; raises ValueError (or RecursionError)
    when some line needs the lenient path, so the run is read line by line instead."""
    records: list[EntryRecord | HeaderLine] = list(map(_record_decoder.decode, lines))
    message_record, message_head, unset, str_ = MessageRecord, MessageHead, UNSET, str
    kind_of, other = _KIND_BY_FIRST_BYTE.get, CONTENT_OTHER
    heads: dict[tuple[Any, ...], MessageHead] = {}
    plain = _PLAIN_CLASSES
    # Line lengths repeat: one int object for each length (100,000 of them took 2.3 MiB).
    shared: dict[int, int] = {}
    raw_lengths = list(map(len, lines))
    lengths = list(map(shared.setdefault, raw_lengths, raw_lengths))
    # Each line's offset and number, made without a Python step per line.
    offsets = accumulate(map(add, lengths, repeat(1)), initial=offset)
    places = zip(records, lengths, offsets, count(number), strict=False)
    for record, length, position, line in places:
        if record.__class__ is message_record:
            # Nine lines in ten: `_finish` for a message record, inlined with `_raw_kind` and
            # `_intern_head` (a message record has no usage, replacement or system message of
            # its own; a function call per line is a tenth of the open of a long session).
            record.offset, record.length, record.line = position, length, line
            m = record.message
            if m.__class__ is message_head:
                role = m.role
                usage = m.usage
                if usage is not None:
                    if role in USAGE_ROLES:
                        # What `usage_numbers` and `_reported` give for the usage pi writes
                        # (a positive int of tokens, a finite cost), without two calls per reply.
                        total, cost = usage.totalTokens, usage.cost
                        spent = cost.total if cost is not None else None
                        if (
                            total.__class__ is int
                            and 0 < total < 9007199254740992  # 2**53
                            and spent.__class__ is float
                            and spent - spent == 0.0
                        ):
                            record.tokens, record.cost = float(total), spent
                            if role == "assistant":
                                stop = m.stopReason
                                aborted = stop.__class__ is str_ and stop in ("aborted", "error")
                                record.reported = None if aborted else total
                        else:
                            record.tokens, record.cost = usage_numbers(usage)
                            if role == "assistant":
                                record.reported = _reported(m, usage)
                elif role == "assistant":
                    record.reported = None  # (what `_reported` gives for a reply without usage)
                content = m.content
                if content is not unset:
                    size = len(content)
                    record.content_kind = kind_of(memoryview(content)[0], other) if size else other
                    record.content_size = size
                # Heads repeat (a role, a model, a stop reason): one head for each that holds
                # only strings and nulls (numbers would compare equal across types), shared
                # by the records that have it (100,000 heads took 8 MiB). Only such heads are
                # kept, and a decoded value equal to a string or null is one: a head found
                # needs no look at its classes (nor its usage and content dropped: it goes).
                key = (role, m.provider, m.model, m.stopReason, m.toolName, m.customType)
                try:
                    head = heads.get(key)
                except TypeError:  # a list or an object among them
                    head = None
                if head is not None:
                    record.message = head
                else:
                    m.usage, m.content = None, unset
                    _intern_head(m)
                    if key[0].__class__ is str_ and all(v.__class__ in plain for v in key):
                        heads[key] = m
        elif record.type == "session":  # type: ignore[union-attr]
            i = line - number
            records[i] = HeaderLine(decode_json(lines[i]), position, length, line)
        else:
            record.offset, record.length, record.line = position, length, line
            _finish(record)  # type: ignore[arg-type]
    return records


_PLAIN_CLASSES = frozenset({str, type(None), type(UNSET)})


def _intern_head(m: MessageHead) -> None:
    """The short strings of a message head shared (a session holds thousands of "assistant"
    and model names)."""
    value = m.role
    if value.__class__ is str:
        m.role = intern(value)
    value = m.provider
    if value.__class__ is str:
        m.provider = intern(value)
    value = m.model
    if value.__class__ is str:
        m.model = intern(value)
    value = m.stopReason
    if value.__class__ is str:
        m.stopReason = intern(value)
    value = m.toolName
    if value.__class__ is str:
        m.toolName = intern(value)


def _finish(record: EntryRecord, as_written: bool = True) -> None:
    """Keep of the decoded line what the session needs: the usage's two numbers (and a reply's
    reported context, when the usage is `as_written`), the content's kind and size; the
    repeated short strings shared (a session holds thousands of "message", "assistant" and
    model names)."""
    kind = record.type
    if record.__class__ is FullRecord and kind.__class__ is str:
        record.type = kind = intern(kind)
    m = record.message
    if isinstance(m, MessageHead):
        usage = m.usage
        if as_written and kind == "message" and m.role == "assistant":
            record.reported = _reported(m, usage)
        if usage is not None:
            if kind == "message" and m.role in USAGE_ROLES:
                record.tokens, record.cost = usage_numbers(usage)
            m.usage = None
        content = m.content
        if content is not UNSET:
            record.content_kind = _raw_kind(content)
            record.content_size = len(content)
            m.content = UNSET
        _intern_head(m)
    usage = record.usage
    if usage is not None:
        if kind in ("usage", "compaction", "branch_summary"):
            record.tokens, record.cost = usage_numbers(usage)
        record.usage = None  # the two numbers are all we keep
    if record.replacement is not UNSET:
        record.replacement_kind = _raw_kind(record.replacement)
        record.replacement = UNSET
    if record.systemMessage is not UNSET:
        record.has_system_message = _raw_truthy(record.systemMessage)
        record.systemMessage = UNSET


def _reported(head: MessageHead, usage: UsageHead | None) -> Any:
    """An assistant reply's reported context as `message_tokens.usage_context_tokens` and
    `tokens.reported_context` give it, when the head alone decides it: None for an aborted or
    error reply or one without usage, the int for a positive int `totalTokens` (what pi
    writes); UNSET for anything else (its body is read)."""
    stop = head.stopReason
    if stop.__class__ is str and stop in ("aborted", "error"):
        return None
    if usage is None:  # no usage, or null
        return None
    total = usage.totalTokens
    if total.__class__ is int and 0 < total < 2**53:
        return total
    return UNSET


def _js_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "value"


def _record_from_dict(value: dict[str, Any]) -> EntryRecord:
    """Slow path for lines the typed decoder refused (odd nested types, lone surrogates,
    invalid UTF-8): keep what is structural, drop nested values of the wrong shape."""
    clean = dict(value)
    msg = clean.get("message", UNSET)
    bad_message = False
    if "message" in clean:
        if isinstance(msg, dict):
            clean["message"] = _clean_usage_holder(msg)
        else:
            bad_message = msg is not None
            clean["message"] = None
    if "usage" in clean:
        clean["usage"] = _clean_usage(clean["usage"])
    try:
        encoded = msgspec.json.encode(clean)
    except (msgspec.EncodeError, UnicodeEncodeError, OverflowError, ValueError):
        encoded = msgspec.json.encode(_without_surrogates(clean))
    record = _full_decoder.decode(encoded)
    for key in _STRUCTURAL_STRINGS:
        # Cleaning lone surrogates must not change what links entries together.
        original = value.get(key)
        if isinstance(original, str):
            setattr(record, key, original)
    if "type" in value:
        record.type = value["type"]  # whatever it is: reading the line back compares it
    if bad_message:
        # pi would pass a non-object message through as it is; we keep none and report it.
        record.message = None
    return record


_STRUCTURAL_STRINGS = ("type", "id", "parentId", "targetId", "firstKeptEntryId", "label", "name", "timestamp")


def _clean_usage_holder(msg: dict[str, Any]) -> dict[str, Any]:
    out = dict(msg)
    if "usage" in out:
        out["usage"] = _clean_usage(out["usage"])
    return out


def _clean_usage(usage: Any) -> Any:
    if not isinstance(usage, dict):
        return None
    out = dict(usage)
    if "cost" in out and not isinstance(out["cost"], dict):
        out["cost"] = None
    return out


def _without_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, list):
        return [_without_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


__all__ = [
    "CONTENT_ABSENT",
    "CONTENT_ARRAY",
    "CONTENT_NULL",
    "CONTENT_OTHER",
    "CONTENT_STRING",
    "USAGE_ROLES",
    "CostHead",
    "EntryRecord",
    "FullRecord",
    "HeaderLine",
    "MessageHead",
    "MessageRecord",
    "UsageHead",
    "decode_entries",
    "decode_entry_at",
    "decode_record",
    "session_name_of",
]
