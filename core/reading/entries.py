"""Typed views of session entries, messages and content blocks (plain classes, lenient).

Reading a session never goes through these models: structure comes from `records`, bodies
are read back by offset. The models are built when a body is looked at (what a pane shows,
an excerpt, an export), one entry at a time. They are lenient the way pi is: unknown entry
types, roles and block types become `Unknown*` models that keep every field; extra fields
are kept on every model; a field of the wrong type never raises, the entry (or message) is
kept as unknown with the reason in plain words (`problem`, e.g. "usage.input: expected a
number, got text"). The one coercion: a whole number where a number is expected.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeAlias, TypeVar


class OddValue(ValueError):
    """A field's value is not of the expected kind: where it is, what was expected, what came."""

    def __init__(self, expected: str, value: Any, got: str | None = None) -> None:
        self.where = ""  # the field path, built up as the error passes out through the models
        self.expected = expected
        self.got = got or _kind_of(value)
        super().__init__(self.reason())

    def inside(self, part: str) -> OddValue:
        self.where = part + self.where
        self.args = (self.reason(),)
        return self

    def reason(self) -> str:
        where = self.where.lstrip(".")
        said = f"expected {self.expected}, got {self.got}"
        return f"{where}: {said}" if where else said


_MISSING = object()


def _kind_of(value: Any) -> str:
    if value is _MISSING:
        return "nothing"
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if type(value) is int or type(value) is float:
        return "a number"
    names: dict[type, str] = {str: "text", list: "a list", dict: "an object"}
    return names.get(type(value), type(value).__name__)


class Lenient:
    """Extra fields are kept (and shown); nothing is rejected for carrying more. Immutable."""

    # name -> (check, default, required); made from the annotations (see _prepare)
    _fields: dict[str, tuple[Callable[[Any], Any], Any, bool]] = {}

    def __init__(self, **data: Any) -> None:
        _fill(self, data)  # (for values from our own code: an odd one raises OddValue)

    def extras(self) -> dict[str, Any]:
        return dict(self.__dict__["_extra"])

    def __getattr__(self, name: str) -> Any:
        # An extra field reads as an attribute too.
        try:
            return self.__dict__["_extra"][name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.__dict__ == self.__dict__

    def __hash__(self) -> int:
        # By its fields' values (a list among them cannot be hashed).
        return hash((type(self), *(v for k, v in self.__dict__.items() if k != "_extra")))

    def __repr__(self) -> str:
        shown = {k: v for k, v in self.__dict__.items() if k != "_extra"} | self.__dict__["_extra"]
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in shown.items())})"


_M = TypeVar("_M", bound=Lenient)


def _fill(model: Lenient, data: dict[str, Any]) -> None:
    values: dict[str, Any] = {}
    fields = type(model)._fields
    for name, (check, default, required) in fields.items():
        value = data.get(name, _MISSING)
        if value is _MISSING:
            if required:
                raise OddValue("text", _MISSING).inside("." + name)
            values[name] = default
            continue
        try:
            values[name] = check(value)
        except OddValue as odd:
            raise odd.inside("." + name) from None
    values["_extra"] = {key: value for key, value in data.items() if key not in fields}
    model.__dict__.update(values)


def _build(cls: type[_M], data: dict[str, Any]) -> _M:
    model = cls.__new__(cls)
    _fill(model, data)
    return model


# ---------------------------------------------------------------------- field checks
def _any(value: Any) -> Any:
    return value


def _exactly(kind: type, expected: str, or_none: bool) -> Callable[[Any], Any]:
    """A check taking a value of exactly `kind` (a bool is not an int here), or None if allowed."""

    def check(value: Any) -> Any:
        if type(value) is kind or (or_none and value is None):
            return value
        raise OddValue(expected, value)

    return check


def _float_or_none(value: Any) -> float | None:
    if value is None or type(value) is float:
        return value
    if type(value) is int:
        try:
            return float(value)  # as JavaScript reads the number
        except OverflowError:
            raise OddValue("a number", value, got="a number too large to hold") from None
    raise OddValue("a number", value)


def _sections(value: Any) -> dict[str, str | None] | None:
    if value is None:
        return None
    if type(value) is not dict:
        raise OddValue("an object", value)
    for name, text in value.items():
        if text is not None and type(text) is not str:
            raise OddValue("text or null", text).inside(f".{name}")
    return dict(value)


def _dict_list(value: Any) -> list[dict[str, Any]] | None:
    if value is None:
        return None
    if type(value) is not list:
        raise OddValue("a list", value)
    for at, item in enumerate(value):
        if type(item) is not dict:
            raise OddValue("an object", item).inside(f"[{at}]")
    return [dict(item) for item in value]


def _content(value: Any) -> Content:
    if value is None or type(value) is str:
        return value
    if type(value) is not list:
        raise OddValue("text or a list of blocks", value)
    blocks: list[ContentBlock] = []
    for at, item in enumerate(value):
        try:
            blocks.append(_block(item))
        except OddValue as odd:
            raise odd.inside(f"[{at}]") from None
    return blocks


def _model_check(name: str) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if value is None:
            return None
        if type(value) is dict:
            return _build(_CLASSES[name], value)
        raise OddValue("an object", value)

    return check


_CHECKS: dict[str, Callable[[Any], Any]] = {
    "Any": _any,
    "str": _exactly(str, "text", or_none=False),
    "str | None": _exactly(str, "text", or_none=True),
    "bool | None": _exactly(bool, "true or false", or_none=True),
    "int | None": _exactly(int, "a whole number", or_none=True),
    "float | None": _float_or_none,
    "Content": _content,
    "dict[str, str | None] | None": _sections,
    "list[dict[str, Any]] | None": _dict_list,
}


def _prepare(classes: list[type[Lenient]]) -> None:
    """Each class's fields from its annotations (base classes' first)."""
    for cls in classes:
        fields: dict[str, tuple[Callable[[Any], Any], Any, bool]] = {}
        for klass in reversed(cls.__mro__):
            # (inspect.get_annotations would cost an import before the first screen)
            for name, annotation in klass.__dict__.get("__annotations__", {}).items():  # noqa: RUF063
                if name.startswith("_"):
                    continue
                if annotation.startswith("Literal["):
                    check: Callable[[Any], Any] = _any  # the tag: the dispatch chose the class by it
                elif annotation.endswith(" | None") and annotation[:-7] in _CLASSES:
                    check = _model_check(annotation[:-7])
                else:
                    check = _CHECKS[annotation]
                default = klass.__dict__.get(name, _MISSING)
                fields[name] = (check, None if default is _MISSING else default, default is _MISSING)
        if cls is MessageEntry:
            fields["message"] = (parse_message, None, False)
        cls._fields = fields


# ---------------------------------------------------------------------- content blocks
class TextBlock(Lenient):
    type: Literal["text"]
    text: str = ""


class ThinkingBlock(Lenient):
    type: Literal["thinking"]
    thinking: str = ""
    redacted: bool | None = None


class ImageBlock(Lenient):
    type: Literal["image"]
    mimeType: str | None = None
    data: str | None = None


class ToolCallBlock(Lenient):
    type: Literal["toolCall"]
    id: str | None = None
    name: str = ""
    arguments: Any = None


class UnknownBlock(Lenient):
    type: Any = None


ContentBlock: TypeAlias = TextBlock | ThinkingBlock | ImageBlock | ToolCallBlock | UnknownBlock
Content: TypeAlias = str | list[ContentBlock] | None


# ---------------------------------------------------------------------- usage
class Cost(Lenient):
    input: float | None = None
    output: float | None = None
    cacheRead: float | None = None
    cacheWrite: float | None = None
    total: float | None = None


class Usage(Lenient):
    input: float | None = None
    output: float | None = None
    cacheRead: float | None = None
    cacheWrite: float | None = None
    totalTokens: float | None = None
    cost: Cost | None = None


# ---------------------------------------------------------------------- messages
class UserMessage(Lenient):
    role: Literal["user"]
    content: Content = None
    timestamp: Any = None


class AssistantMessage(Lenient):
    role: Literal["assistant"]
    content: Content = None
    api: str | None = None
    provider: str | None = None
    model: str | None = None
    usage: Usage | None = None
    stopReason: str | None = None
    errorMessage: str | None = None
    timestamp: Any = None


class ToolResultMessage(Lenient):
    role: Literal["toolResult"]
    toolCallId: str | None = None
    toolName: str | None = None
    content: Content = None
    isError: bool | None = None
    details: Any = None
    timestamp: Any = None


class BashExecutionMessage(Lenient):
    role: Literal["bashExecution"]
    command: str = ""
    output: str = ""
    exitCode: int | None = None
    cancelled: bool | None = None
    truncated: bool | None = None
    fullOutputPath: str | None = None
    excludeFromContext: bool | None = None
    timestamp: Any = None


class CustomRoleMessage(Lenient):
    """`role: "custom"`: extension content in context (v2's `hookMessage`, or a projected
    `custom_message` entry)."""

    role: Literal["custom"]
    customType: str | None = None
    content: Content = None
    display: bool | None = None
    details: Any = None
    timestamp: Any = None


class SystemMessage(Lenient):
    role: Literal["system"]
    content: Content = None
    sections: dict[str, str | None] | None = None
    toolsAdded: list[dict[str, Any]] | None = None
    toolsRemoved: list[dict[str, Any]] | None = None
    timestamp: Any = None


class CompactionSummaryMessage(Lenient):
    role: Literal["compactionSummary"]
    summary: str = ""
    tokensBefore: float | None = None
    timestamp: Any = None


class BranchSummaryMessage(Lenient):
    role: Literal["branchSummary"]
    summary: str = ""
    fromId: str | None = None
    timestamp: Any = None


class UnknownMessage(Lenient):
    role: Any = None
    problem: str | None = None  # why it is not one of the known kinds


# ---------------------------------------------------------------------- entries
class SessionHeader(Lenient):
    type: Literal["session"]
    id: str
    version: Any = None
    timestamp: Any = None
    cwd: str | None = None
    parentSession: str | None = None


class EntryBase(Lenient):
    id: Any = None
    parentId: Any = None
    timestamp: Any = None


class MessageEntry(EntryBase):
    type: Literal["message"]
    message: Any = None  # an AnyMessage (parse_message): an odd message never makes the entry unknown


class ThinkingLevelChangeEntry(EntryBase):
    type: Literal["thinking_level_change"]
    thinkingLevel: str | None = None


class ModelChangeEntry(EntryBase):
    type: Literal["model_change"]
    provider: str | None = None
    modelId: str | None = None


class CompactionEntry(EntryBase):
    type: Literal["compaction"]
    summary: str = ""
    firstKeptEntryId: str | None = None
    tokensBefore: float | None = None
    systemMessage: SystemMessage | None = None
    details: Any = None
    usage: Usage | None = None
    fromHook: bool | None = None


class BranchSummaryEntry(EntryBase):
    type: Literal["branch_summary"]
    fromId: str | None = None
    summary: str = ""
    details: Any = None
    usage: Usage | None = None
    fromHook: bool | None = None


class CustomEntry(EntryBase):
    type: Literal["custom"]
    customType: str | None = None
    data: Any = None


class CustomMessageEntry(EntryBase):
    type: Literal["custom_message"]
    customType: str | None = None
    content: Content = None
    display: bool | None = None
    details: Any = None


class LabelEntry(EntryBase):
    type: Literal["label"]
    targetId: str | None = None
    label: str | None = None


class SessionInfoEntry(EntryBase):
    type: Literal["session_info"]
    name: str | None = None


class Replacement(Lenient):
    content: Content = None


class ContextEditEntry(EntryBase):
    type: Literal["context_edit"]
    targetId: str | None = None
    replacement: Replacement | None = None


class UsageEntry(EntryBase):
    type: Literal["usage"]
    kind: str | None = None  # any string: unknown kinds are normal usage
    provider: str | None = None
    model: str | None = None
    usage: Usage | None = None
    note: str | None = None


class UnknownEntry(EntryBase):
    type: Any = None
    problem: str | None = None  # why it is not one of the eleven kinds (None: a future type)


AnyEntry: TypeAlias = (
    MessageEntry
    | ThinkingLevelChangeEntry
    | ModelChangeEntry
    | CompactionEntry
    | BranchSummaryEntry
    | CustomEntry
    | CustomMessageEntry
    | LabelEntry
    | SessionInfoEntry
    | ContextEditEntry
    | UsageEntry
    | UnknownEntry
)
AnyMessage: TypeAlias = (
    UserMessage
    | AssistantMessage
    | ToolResultMessage
    | BashExecutionMessage
    | CustomRoleMessage
    | SystemMessage
    | CompactionSummaryMessage
    | BranchSummaryMessage
    | UnknownMessage
)

_CLASSES: dict[str, type[Lenient]] = {
    cls.__name__: cls
    for cls in list(globals().values())
    if isinstance(cls, type) and issubclass(cls, Lenient) and cls is not Lenient
}
_BLOCK_KINDS: dict[str, type[Lenient]] = {
    "text": TextBlock,
    "thinking": ThinkingBlock,
    "image": ImageBlock,
    "toolCall": ToolCallBlock,
}
_MESSAGE_KINDS: dict[str, type[Lenient]] = {
    "user": UserMessage,
    "assistant": AssistantMessage,
    "toolResult": ToolResultMessage,
    "bashExecution": BashExecutionMessage,
    "custom": CustomRoleMessage,
    "system": SystemMessage,
    "compactionSummary": CompactionSummaryMessage,
    "branchSummary": BranchSummaryMessage,
}
_ENTRY_KINDS: dict[str, type[Lenient]] = {
    "message": MessageEntry,
    "thinking_level_change": ThinkingLevelChangeEntry,
    "model_change": ModelChangeEntry,
    "compaction": CompactionEntry,
    "branch_summary": BranchSummaryEntry,
    "custom": CustomEntry,
    "custom_message": CustomMessageEntry,
    "label": LabelEntry,
    "session_info": SessionInfoEntry,
    "context_edit": ContextEditEntry,
    "usage": UsageEntry,
}


def _kind(kinds: dict[str, type[Lenient]], tag: Any, unknown: type[Lenient]) -> type[Lenient]:
    return kinds.get(tag, unknown) if type(tag) is str else unknown


def _block(item: Any) -> TextBlock | ThinkingBlock | ImageBlock | ToolCallBlock | UnknownBlock:
    if isinstance(item, Lenient):
        return item  # type: ignore[return-value]  # already typed
    if type(item) is not dict:
        raise OddValue("a block (an object)", item)
    return _build(_kind(_BLOCK_KINDS, item.get("type"), UnknownBlock), item)  # type: ignore[return-value]


def _parse(value: Any, kinds: dict[str, type[Lenient]], tag: str, unknown: type[_M]) -> Lenient:
    """`value` as the model its tag names; if it is not an object, or a field is odd, as
    `unknown` keeping every field, with the reason (a `problem` field of its own is replaced)."""
    if type(value) is not dict:
        return _build(unknown, {"problem": OddValue("an object", value).reason()})
    try:
        return _build(_kind(kinds, value.get(tag), unknown), value)
    except OddValue as odd:
        return _build(unknown, {**value, "problem": odd.reason()})


def parse_entry(value: Any) -> AnyEntry:
    """One entry as a typed model; anything odd becomes an `UnknownEntry` keeping all of it."""
    return _parse(value, _ENTRY_KINDS, "type", UnknownEntry)  # type: ignore[return-value]


def parse_message(value: Any) -> AnyMessage:
    """A message as a typed model; anything odd becomes an `UnknownMessage` keeping all of it."""
    return _parse(value, _MESSAGE_KINDS, "role", UnknownMessage)  # type: ignore[return-value]


def parse_header(value: Any) -> SessionHeader | None:
    """The session header, or None if `value` is not a well-formed one."""
    if type(value) is not dict or value.get("type") != "session":
        return None
    try:
        return _build(SessionHeader, value)
    except OddValue:
        return None


def as_content(value: Any) -> Content:
    """Raw content (from a read-back dict) as typed content; unusable content is None, an
    unusable block an `UnknownBlock` keeping what it held."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list):
        return [_as_block(item) for item in value]
    return None


def _as_block(item: Any) -> TextBlock | ThinkingBlock | ImageBlock | ToolCallBlock | UnknownBlock:
    if isinstance(item, Lenient):
        return item  # type: ignore[return-value]  # already typed
    if type(item) is not dict:
        return _build(UnknownBlock, {"type": None, "value": item})
    try:
        return _block(item)
    except OddValue:
        return _build(UnknownBlock, item)


def content_blocks(
    content: Content,
) -> list[TextBlock | ThinkingBlock | ImageBlock | ToolCallBlock | UnknownBlock]:
    """Content as blocks (a plain string is one text block)."""
    if content is None:
        return []
    if isinstance(content, str):
        return [TextBlock(type="text", text=content)]
    return list(content)


_prepare(list(_CLASSES.values()))
