"""What a message says in the context pane: a title and styled paragraphs, from the raw message.

Every message shape pi writes (user, assistant with thinking and tool calls, tool results,
bash runs, summaries, extension messages, system prompt updates, and what cannot be read) is
turned here into `Paragraph`s: a tone (the component class that styles it) and plain text.
The scroller and the pane never look inside a message; they lay these paragraphs out.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any, NamedTuple

from ..core.common.glyphs import Glyphs
from ..core.common.jsvalues import js_string
from ..core.common.text import human_count, one_line
from ..core.reading.entries import (
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomRoleMessage,
    ImageBlock,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    UnknownMessage,
    UserMessage,
    as_content,
    content_blocks,
    parse_message,
)
from ..core.session.describe import content_text


class Tone(StrEnum):
    """How a piece of the context pane is styled: each value is a component class of the body."""

    ROLE_USER = "context--role-user"
    ROLE_ASSISTANT = "context--role-assistant"
    ROLE_TOOL = "context--role-tool"
    ROLE_SYSTEM = "context--role-system"
    ROLE_SUMMARY = "context--role-summary"
    ROLE_OTHER = "context--role-other"
    META = "context--meta"
    TEXT = "context--text"
    THINKING = "context--thinking"
    TOOL_CALL = "context--toolcall"
    EXCLUDED = "context--excluded"
    REPLACED = "context--replaced"
    HINT = "context--hint"


class Paragraph(NamedTuple):
    tone: Tone
    text: str
    wrap: bool = True  # wrapped to the width (indented); False: one line, cut to fit


ROLE_TONES = {
    "user": Tone.ROLE_USER,
    "assistant": Tone.ROLE_ASSISTANT,
    "toolResult": Tone.ROLE_TOOL,
    "bashExecution": Tone.ROLE_TOOL,
    "system": Tone.ROLE_SYSTEM,
    "compactionSummary": Tone.ROLE_SUMMARY,
    "branchSummary": Tone.ROLE_SUMMARY,
}


def role_tone(role: Any) -> Tone:
    return ROLE_TONES.get(str(role), Tone.ROLE_OTHER)


def role_title(raw: Any, glyphs: Glyphs) -> str:
    """The first line of a message block: what kind of message, from whom."""
    message = parse_message(raw)
    dot = f" {glyphs.dot} "
    if isinstance(message, ToolResultMessage):
        return f"tool result{dot}{message.toolName or ''}" + (" (error)" if message.isError else "")
    if isinstance(message, CompactionSummaryMessage):
        size = f" of {human_count(message.tokensBefore)} tokens" if message.tokensBefore is not None else ""
        return f"compaction summary{size}"
    if isinstance(message, BranchSummaryMessage):
        return f"branch summary (from {message.fromId})"
    if isinstance(message, CustomRoleMessage):
        hidden = ", hidden in pi" if message.display is False else ""
        return f"extension message{dot}{message.customType or ''}{hidden}"
    if isinstance(message, BashExecutionMessage):
        excluded = f"{dot}not sent (excludeFromContext)" if message.excludeFromContext else ""
        return f"bash{dot}exit {message.exitCode}{excluded}"
    if isinstance(message, AssistantMessage):
        stop = f"{dot}{message.stopReason}" if message.stopReason not in (None, "stop", "toolUse") else ""
        # pi 1.5+: the model the provider says answered, when it is not the one asked for
        answered = message.extras().get("responseModel")
        if isinstance(answered, str) and answered and answered != message.model:
            stop = f" (answered by {answered}){stop}"
        return f"assistant{dot}{message.model}{stop}" if message.model else f"assistant{stop}"
    if isinstance(message, SystemMessage):
        return "system prompt update"
    if isinstance(message, UserMessage):
        return "user"
    if isinstance(message, UnknownMessage) and not isinstance(raw, dict):
        return "(not a message object)"
    return js_string(getattr(message, "role", None)) or "message"


def message_paragraphs(raw: Any, expanded: bool, glyphs: Glyphs) -> list[Paragraph]:
    """The paragraphs of a message, in order (collapsed: thinking and tool arguments short)."""
    message = parse_message(raw)
    if isinstance(message, CompactionSummaryMessage | BranchSummaryMessage):
        return [Paragraph(Tone.TEXT, message.summary)]
    if isinstance(message, BashExecutionMessage):
        return [
            Paragraph(Tone.TOOL_CALL, f"$ {message.command}"),
            Paragraph(Tone.TEXT, message.output or "(no output)"),
        ]
    if isinstance(message, SystemMessage):
        text = content_text(message.content, glyphs=glyphs)
        out = [Paragraph(Tone.TEXT, text)] if text else []
        for name, value in (message.sections or {}).items():
            out.append(Paragraph(Tone.META, f"§ {name}: " + ("(removed)" if value is None else value)))
        for tools, title in ((message.toolsAdded, "+ tools"), (message.toolsRemoved, "- tools")):
            if tools:
                names = ", ".join(js_string(t.get("name")) for t in tools)
                out.append(Paragraph(Tone.META, f"{title}: {names}"))
        return out or [Paragraph(Tone.META, "(empty)")]
    if isinstance(message, UnknownMessage):
        if not isinstance(raw, dict):
            return [Paragraph(Tone.TEXT, js_string(raw))]
        if message.problem:
            return [
                Paragraph(Tone.META, f"(cannot show: {message.problem})"),
                Paragraph(Tone.TEXT, json.dumps(raw, ensure_ascii=False)),
            ]
    content = getattr(message, "content", None)
    if content is None and isinstance(message, UnknownMessage):
        content = as_content(message.extras().get("content"))
    if isinstance(content, str):
        return [Paragraph(Tone.TEXT, content)]
    out = []
    for block in content_blocks(content):
        if isinstance(block, TextBlock):
            out.append(Paragraph(Tone.TEXT, block.text))
        elif isinstance(block, ThinkingBlock):
            if block.redacted:
                out.append(Paragraph(Tone.THINKING, "thinking (redacted)"))
            elif expanded:
                out.append(Paragraph(Tone.THINKING, "thinking: " + block.thinking))
            else:
                short = one_line(block.thinking, 70, glyphs=glyphs)
                out.append(Paragraph(Tone.THINKING, f"thinking: {short}  (enter to read)"))
        elif isinstance(block, ToolCallBlock):
            args = block.arguments
            if expanded:
                shown = json.dumps(args, indent=2, ensure_ascii=False) if not isinstance(args, str) else args
            else:
                flat = json.dumps(args, ensure_ascii=False) if not isinstance(args, str) else args
                shown = one_line(flat, 160, glyphs=glyphs)
            out.append(Paragraph(Tone.TOOL_CALL, f"{glyphs.arrow} {block.name} {shown}"))
        elif isinstance(block, ImageBlock):
            out.append(Paragraph(Tone.META, f"[image {block.mimeType or ''}]"))
        else:
            kind = block.get("type") if isinstance(block, dict) else getattr(block, "type", None)
            out.append(Paragraph(Tone.META, f"[{js_string(kind)} block]"))  # (a block kept raw: a dict)
    if isinstance(message, ToolResultMessage) and not out:
        out.append(Paragraph(Tone.META, "(empty result)"))
    return out or [Paragraph(Tone.META, "(no content)" if content is None else "(empty)")]


def entry_text(entry: dict[str, Any], glyphs: Glyphs) -> str:
    """An entry out of context, expanded: its message's paragraphs, else its main field."""
    message = entry.get("message")
    if isinstance(message, dict):
        return "\n".join(p.text for p in message_paragraphs(message, True, glyphs))
    for key in ("summary", "content", "name", "label"):
        if key in entry:
            value = entry[key]
            return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=2)
    return json.dumps(entry, ensure_ascii=False, indent=2)
