"""What an entry says, in words: its kind, a one-line excerpt, its full text, a summary line.

Each description is computed from the entry read back by offset (`Session.entry_dict`), only
for the entries someone looks at (the rows in view, a CLI line), and is safe to print: session
text comes out of `text.one_line` with its controls shown as placeholders. The few glyphs it
puts in (an arrow, quotes, a dot, the ellipsis) come from the `Glyphs` it is given.
"""

from __future__ import annotations

import json
from typing import Any

from ..common.glyphs import UNICODE, Glyphs
from ..common.jsvalues import js_string
from ..common.problems import StaleFileError
from ..common.text import human_count, one_line
from ..reading.entries import (
    AnyMessage,
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    CustomEntry,
    CustomMessageEntry,
    CustomRoleMessage,
    ImageBlock,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionInfoEntry,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ThinkingLevelChangeEntry,
    ToolCallBlock,
    ToolResultMessage,
    UnknownMessage,
    UsageEntry,
    UserMessage,
    as_content,
    content_blocks,
    parse_entry,
)
from ..reading.records import EntryRecord
from .session import Session


def kind_label(record: EntryRecord) -> str:
    """`user`, `assistant`, `tool`, `compaction`... (the first column of a row)."""
    kind = record.type
    if kind == "message":
        role = record.role
        if role == "toolResult":
            return "tool"
        if role == "bashExecution":
            return "bash"
        return role if isinstance(role, str) else "message?"
    if not isinstance(kind, str):
        return "?"  # a type that is not even a string (an object, a list...)
    return {
        "model_change": "model",
        "thinking_level_change": "thinking",
        "branch_summary": "branch",
        "custom_message": "ext-msg",
        "session_info": "name",
        "context_edit": "edit",
    }.get(kind, kind)


def content_text(content: Any, with_tools: bool = True, *, glyphs: Glyphs = UNICODE) -> str:
    """Readable text of a message content, raw or typed (text blocks; tool calls shown as
    `→ name(args)`; images as `[image]`)."""
    blocks = content_blocks(as_content(content))
    if not blocks and content is not None and not isinstance(content, str | list):
        return js_string(content)
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, TextBlock):
            parts.append(block.text)
        elif isinstance(block, ToolCallBlock) and with_tools:
            parts.append(f"{glyphs.arrow} {block.name}({_args_preview(block.arguments, glyphs)})")
        elif isinstance(block, ImageBlock):
            parts.append("[image]")
    return " ".join(p for p in parts if p)


def _args_preview(args: Any, glyphs: Glyphs) -> str:
    if isinstance(args, dict):
        items = []
        for key, value in list(args.items())[:3]:
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)[:60]
            items.append(f"{key}={one_line(str(shown), 40, glyphs=glyphs)}")
        return ", ".join(items)
    return "" if args is None else one_line(js_string(args), 60, glyphs=glyphs)


def excerpt(session: Session, record: EntryRecord, limit: int = 160, *, glyphs: Glyphs = UNICODE) -> str:
    """A one-line description of an entry, safe to print (controls shown as placeholders)."""
    try:
        entry = session.entry_dict(record)
    except (StaleFileError, OSError, ValueError):
        return "(could not read this line back: the file changed)"
    return one_line(_describe(record, entry, glyphs), limit, glyphs=glyphs)


class Excerpts:
    """The `excerpt` of each entry of one session, read back once (by record index): a list of
    rows (the branch tree, the compare list) draws its rows again at every move."""

    def __init__(self, limit: int = 300) -> None:
        self.limit = limit
        self.session: Session | None = None
        self._by_index: dict[int, str] = {}

    def reset(self, session: Session | None) -> None:
        """Excerpts of `session` from now on (none kept from before)."""
        self.session = session
        self._by_index = {}

    def of(self, record: EntryRecord, glyphs: Glyphs = UNICODE) -> str:
        cached = self._by_index.get(record.index)
        if cached is None and self.session is not None:
            cached = excerpt(self.session, record, self.limit, glyphs=glyphs)
            self._by_index[record.index] = cached
        return cached or ""


def _describe(record: EntryRecord, raw: dict[str, Any], glyphs: Glyphs) -> str:
    entry = parse_entry(raw)
    if isinstance(entry, MessageEntry):
        return _describe_message(entry.message, glyphs)
    if isinstance(entry, CompactionEntry):
        size = f"{human_count(entry.tokensBefore)} tokens" if entry.tokensBefore is not None else "?"
        return f"[compaction: {size}] {entry.summary}"
    if isinstance(entry, BranchSummaryEntry):
        return f"[branch summary] {entry.summary or '(empty)'}"
    if isinstance(entry, ModelChangeEntry):
        return f"{glyphs.arrow} {entry.provider or ''}/{entry.modelId or ''}"
    if isinstance(entry, ThinkingLevelChangeEntry):
        return f"{glyphs.arrow} {entry.thinkingLevel or ''}"
    if isinstance(entry, LabelEntry):
        quoted = f"{glyphs.open_quote}{entry.label}{glyphs.close_quote}"
        return f"{quoted} on {entry.targetId}" if entry.label else f"cleared label on {entry.targetId}"
    if isinstance(entry, SessionInfoEntry):
        return f"{glyphs.open_quote}{entry.name}{glyphs.close_quote}" if entry.name else "(name cleared)"
    if isinstance(entry, CustomEntry):
        return f"{entry.customType or ''} (extension state, not sent)"
    if isinstance(entry, CustomMessageEntry):
        hidden = "" if entry.display is not False else " (hidden)"
        return f"{entry.customType or ''}{hidden}: {content_text(entry.content, glyphs=glyphs)}"
    if isinstance(entry, ContextEditEntry):
        if "replacement" not in raw:
            return f"edit of {entry.targetId} without a replacement (ignored)"
        if entry.replacement is None:
            return f"omit {entry.targetId}"
        return f"replace {entry.targetId}: {content_text(entry.replacement.content, glyphs=glyphs)}"
    if isinstance(entry, UsageEntry):
        note = f" {entry.note}" if entry.note else ""
        return f"{entry.kind or ''}: {human_count(record.tokens)} tokens{note}"
    if entry.problem:
        return f"({js_string(raw.get('type'))}: {entry.problem}; kept as is)"
    return f"({js_string(raw.get('type'))}: unknown entry type, kept as is)"


def _describe_message(message: AnyMessage, glyphs: Glyphs) -> str:
    if isinstance(message, ToolResultMessage):
        error = " error" if message.isError else ""
        return f"{message.toolName or 'tool'}{error}: {content_text(message.content, glyphs=glyphs)}"
    if isinstance(message, BashExecutionMessage):
        tail = f" (exit {message.exitCode})" if message.exitCode else ""
        return f"$ {message.command}{tail}  {message.output}"
    if isinstance(message, SystemMessage):
        bits = [content_text(message.content, glyphs=glyphs) or "system prompt"]
        if message.sections:
            bits.append("sections: " + ", ".join(message.sections))
        if message.toolsAdded:
            bits.append(f"+{len(message.toolsAdded)} tools")
        return f" {glyphs.dot} ".join(bits)
    if isinstance(message, AssistantMessage):
        text = content_text(message.content, glyphs=glyphs)
        if message.stopReason not in (None, "stop", "toolUse"):
            text = f"[{message.stopReason}] {text}".strip()
        if not text and any(isinstance(b, ThinkingBlock) for b in content_blocks(message.content)):
            text = "(thinking only)"
        return text or "(empty)"
    if isinstance(message, CustomRoleMessage):
        return f"{message.customType or ''}: {content_text(message.content, glyphs=glyphs)}"
    if isinstance(message, UserMessage):
        return content_text(message.content, glyphs=glyphs) or "(empty)"
    if isinstance(message, UnknownMessage):
        if message.problem and message.role in (None, "user", "assistant", "toolResult"):
            return f"(unreadable message: {message.problem})"
        return (
            content_text(message.extras().get("content"), glyphs=glyphs)
            or f"({js_string(message.role)} message)"
        )
    return content_text(getattr(message, "content", None), glyphs=glyphs) or "(empty)"


def entry_summary_line(
    session: Session, record: EntryRecord, limit: int = 100, *, glyphs: Glyphs = UNICODE
) -> str:
    label = session.labels.get(record.id)
    tag = f" [{one_line(js_string(label), 30, glyphs=glyphs)}]" if label else ""
    return f"{record.id} {kind_label(record):9}{tag} {excerpt(session, record, limit, glyphs=glyphs)}"


def entry_text(entry: dict[str, Any], *, glyphs: Glyphs = UNICODE) -> str:
    """Everything readable in an entry (to search within a session, to copy)."""
    parts: list[str] = []
    message = entry.get("message")
    if isinstance(message, dict):
        content = message.get("content")
        parts.append(content_text(content, glyphs=glyphs))
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "thinking":
                    parts.append(js_string(block.get("thinking")))
        for key in ("command", "output", "toolName", "customType", "errorMessage"):
            if isinstance(message.get(key), str):
                parts.append(message[key])
    for key in ("summary", "name", "label", "customType", "modelId", "thinkingLevel"):
        if isinstance(entry.get(key), str):
            parts.append(entry[key])
    if entry.get("type") == "custom_message":
        parts.append(content_text(entry.get("content"), glyphs=glyphs))
    return "\n".join(p for p in parts if p)
