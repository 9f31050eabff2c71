"""Builders for tool calls, tool results and user shell commands in hand-made sessions."""

from __future__ import annotations

from typing import Any

from tests.helpers.sessions import assistant, entry


def call(name: str, call_id: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}


def tool_use(
    entry_id: str, parent: str | None, n: int, *calls: dict[str, Any], stop: str = "toolUse"
) -> dict[str, Any]:
    """An assistant message that calls tools."""
    return assistant(
        entry_id, parent, "", n, content=[{"type": "text", "text": "on it"}, *calls], stopReason=stop
    )


def tool_result(
    entry_id: str, parent: str | None, n: int, call_id: str, tool: str, text: str, error: bool = False
) -> dict[str, Any]:
    message = {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": tool,
        "content": [{"type": "text", "text": text}],
        "isError": error,
        "timestamp": n,
    }
    return entry("message", entry_id, parent, n, message=message)


def user_bash(
    entry_id: str, parent: str | None, n: int, command: str, output: str, exclude: bool = False
) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "bashExecution",
        "command": command,
        "output": output,
        "exitCode": 0,
        "cancelled": False,
        "truncated": False,
        "timestamp": n,
    }
    if exclude:
        message["excludeFromContext"] = True
    return entry("message", entry_id, parent, n, message=message)


def compaction(
    entry_id: str, parent: str, n: int, first_kept: str, summary: str = "summary"
) -> dict[str, Any]:
    return entry(
        "compaction", entry_id, parent, n, summary=summary, firstKeptEntryId=first_kept, tokensBefore=100
    )


def context_edit(entry_id: str, parent: str, n: int, target: str, replacement: Any) -> dict[str, Any]:
    return entry("context_edit", entry_id, parent, n, targetId=target, replacement=replacement)
