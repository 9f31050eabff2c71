"""The entry models as pydantic validates them: the reference `entries.py` follows exactly.

`entries.py` builds its plain models itself when an entry is well-formed (nearly always), and
asks these models only about the rest: what a coercion gives, or why a value does not fit
(the `problem` kept on an unknown entry or message). Imported then, not at start: pydantic
and these schemas took ~100 ms of the browser's start. A test keeps both sets of models alike.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Tag, TypeAdapter, ValidationError, field_validator


class Lenient(BaseModel):
    """Extra fields are kept (and shown); nothing is rejected for carrying more."""

    model_config = ConfigDict(extra="allow", frozen=True)

    def extras(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


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


_BLOCK_TAGS = {"text", "thinking", "image", "toolCall"}


def _block_tag(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    return kind if isinstance(kind, str) and kind in _BLOCK_TAGS else "unknown"


ContentBlock = Annotated[
    Annotated[TextBlock, Tag("text")]
    | Annotated[ThinkingBlock, Tag("thinking")]
    | Annotated[ImageBlock, Tag("image")]
    | Annotated[ToolCallBlock, Tag("toolCall")]
    | Annotated[UnknownBlock, Tag("unknown")],
    Discriminator(_block_tag),
]
Content = str | list[ContentBlock] | None


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


_MESSAGE_TAGS = {
    "user",
    "assistant",
    "toolResult",
    "bashExecution",
    "custom",
    "system",
    "compactionSummary",
    "branchSummary",
}


def _message_tag(value: Any) -> str:
    role = value.get("role") if isinstance(value, dict) else getattr(value, "role", None)
    return role if isinstance(role, str) and role in _MESSAGE_TAGS else "unknown"


Message = Annotated[
    Annotated[UserMessage, Tag("user")]
    | Annotated[AssistantMessage, Tag("assistant")]
    | Annotated[ToolResultMessage, Tag("toolResult")]
    | Annotated[BashExecutionMessage, Tag("bashExecution")]
    | Annotated[CustomRoleMessage, Tag("custom")]
    | Annotated[SystemMessage, Tag("system")]
    | Annotated[CompactionSummaryMessage, Tag("compactionSummary")]
    | Annotated[BranchSummaryMessage, Tag("branchSummary")]
    | Annotated[UnknownMessage, Tag("unknown")],
    Discriminator(_message_tag),
]


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
    message: Any = None  # an AnyMessage: an odd message never makes the entry unknown

    @field_validator("message", mode="plain")
    @classmethod
    def _lenient_message(cls, value: Any) -> AnyMessage:
        return parse_message(value)


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


_ENTRY_TAGS = {
    "message",
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
}


def _entry_tag(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    return kind if isinstance(kind, str) and kind in _ENTRY_TAGS else "unknown"


Entry = Annotated[
    Annotated[MessageEntry, Tag("message")]
    | Annotated[ThinkingLevelChangeEntry, Tag("thinking_level_change")]
    | Annotated[ModelChangeEntry, Tag("model_change")]
    | Annotated[CompactionEntry, Tag("compaction")]
    | Annotated[BranchSummaryEntry, Tag("branch_summary")]
    | Annotated[CustomEntry, Tag("custom")]
    | Annotated[CustomMessageEntry, Tag("custom_message")]
    | Annotated[LabelEntry, Tag("label")]
    | Annotated[SessionInfoEntry, Tag("session_info")]
    | Annotated[ContextEditEntry, Tag("context_edit")]
    | Annotated[UsageEntry, Tag("usage")]
    | Annotated[UnknownEntry, Tag("unknown")],
    Discriminator(_entry_tag),
]

_entry_adapter: TypeAdapter[Entry] = TypeAdapter(Entry)
_message_adapter: TypeAdapter[Message] = TypeAdapter(Message)
_block_adapter: TypeAdapter[ContentBlock] = TypeAdapter(ContentBlock)

AnyEntry = (
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
AnyMessage = (
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


def _first_error(e: ValidationError) -> str:
    error = e.errors()[0]
    where = ".".join(str(part) for part in error.get("loc", ()))
    return f"{where}: {error.get('msg')}" if where else str(error.get("msg"))


def _text_keys(value: dict[str, Any]) -> dict[str, Any]:
    """pydantic refuses a field name holding a lone surrogate (JSON allows one): such a key
    is kept with U+FFFD in its place."""
    return {
        key if key.isascii() else key.encode("utf-16", "surrogatepass").decode("utf-16", "replace"): item
        for key, item in value.items()
    }


def parse_entry(value: Any) -> AnyEntry:
    """One entry as a typed model; anything odd becomes an `UnknownEntry` keeping all of it."""
    if not isinstance(value, dict):
        return UnknownEntry(problem=f"not an object: {type(value).__name__}")
    try:
        return _entry_adapter.validate_python(value)
    except ValidationError as e:
        return UnknownEntry.model_validate({**_text_keys(value), "problem": _first_error(e)})


def parse_message(value: Any) -> AnyMessage:
    if not isinstance(value, dict):
        return UnknownMessage(problem=f"not an object: {type(value).__name__}")
    try:
        return _message_adapter.validate_python(value)
    except ValidationError as e:
        return UnknownMessage.model_validate({**_text_keys(value), "problem": _first_error(e)})


def parse_header(value: Any) -> SessionHeader | None:
    try:
        return SessionHeader.model_validate(value)
    except ValidationError:
        return None


_content_adapter: TypeAdapter[Content] = TypeAdapter(Content)


def as_content(value: Any) -> Content:
    """Raw content (from a read-back dict) as typed content; unusable content is None."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list):
        try:
            return _content_adapter.validate_python(value)
        except ValidationError:
            return [_as_block(item) for item in value]
    return None


def _as_block(item: Any) -> TextBlock | ThinkingBlock | ImageBlock | ToolCallBlock | UnknownBlock:
    if isinstance(item, BaseModel):
        return item  # type: ignore[return-value]
    if not isinstance(item, dict):
        return UnknownBlock.model_validate({"type": None, "value": item})
    try:
        return _block_adapter.validate_python(item)
    except ValidationError:
        return UnknownBlock.model_validate(_text_keys(item))


def content_blocks(
    content: Content,
) -> list[TextBlock | ThinkingBlock | ImageBlock | ToolCallBlock | UnknownBlock]:
    """Content as blocks (a plain string is one text block)."""
    if content is None:
        return []
    if isinstance(content, str):
        return [TextBlock(type="text", text=content)]
    return list(content)
