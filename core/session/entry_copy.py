"""The text pi's tree copies for an entry (`app.message.copy`, ctrl+x in pi's /tree): a
message's text blocks, a bash command, a summary; None when there is nothing to copy."""

from __future__ import annotations

from typing import Any


def _full_content(content: Any) -> str:
    """pi's `extractFullContent`: a string as it is, else the text blocks joined together."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text":
            text = block.get("text", _MISSING)
            # JavaScript's `+=` on a missing or null field.
            parts.append("undefined" if text is _MISSING else "null" if text is None else _js(text))
    return "".join(parts)


_MISSING = object()


def _js(value: Any) -> str:
    from ..common.jsvalues import js_string

    return js_string(value)


def entry_copy_text(entry: dict[str, Any]) -> str | None:
    """What pi's tree selector copies for this entry (`getEntryCopyText`)."""
    kind = entry.get("type")
    text: Any = None
    if kind == "message":
        message = entry.get("message")
        if isinstance(message, dict):
            if message.get("role") == "bashExecution":
                text = message.get("command")
            elif "content" in message:
                text = _full_content(message.get("content"))
                if not text and message.get("role") == "assistant":
                    text = message.get("errorMessage")
    elif kind == "custom_message":
        text = _full_content(entry.get("content"))
    elif kind in ("compaction", "branch_summary"):
        text = entry.get("summary")
    return text if isinstance(text, str) and text.strip() else None
