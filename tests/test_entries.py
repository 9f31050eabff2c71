"""Typed views of entries, messages and blocks: every corpus entry maps to its kind; anything
odd is kept as unknown with the reason, never raised."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from pi_sessions.core import entries as E
from pi_sessions.core.entries import parse_entry, parse_header, parse_message

from .conftest import FIXTURES

KINDS = {
    "message": E.MessageEntry,
    "thinking_level_change": E.ThinkingLevelChangeEntry,
    "model_change": E.ModelChangeEntry,
    "compaction": E.CompactionEntry,
    "branch_summary": E.BranchSummaryEntry,
    "custom": E.CustomEntry,
    "custom_message": E.CustomMessageEntry,
    "label": E.LabelEntry,
    "session_info": E.SessionInfoEntry,
    "context_edit": E.ContextEditEntry,
    "usage": E.UsageEntry,
}
ROLES = {
    "user": E.UserMessage,
    "assistant": E.AssistantMessage,
    "toolResult": E.ToolResultMessage,
    "bashExecution": E.BashExecutionMessage,
    "custom": E.CustomRoleMessage,
    "system": E.SystemMessage,
    "hookMessage": E.UnknownMessage,  # a v2 role, renamed to custom by migration
}


def test_every_corpus_entry_maps_to_its_kind() -> None:
    seen: Counter[str] = Counter()
    for path in sorted((FIXTURES / "sessions").rglob("*.jsonl")):
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(raw, dict):
                continue
            if raw.get("type") == "session":
                header = parse_header(raw)
                assert header is not None and header.id == raw["id"]
                continue
            entry = parse_entry(raw)
            expected = KINDS.get(raw.get("type"), E.UnknownEntry)
            assert type(entry) is expected, (path.name, raw.get("type"), getattr(entry, "problem", None))
            seen[raw.get("type")] += 1
            if isinstance(entry, E.MessageEntry):
                role = raw["message"].get("role")
                assert type(entry.message) is ROLES[role], (
                    path.name,
                    role,
                    getattr(entry.message, "problem", None),
                )
    assert set(KINDS) <= set(seen), f"the corpus lacks {set(KINDS) - set(seen)}"


def test_extra_fields_are_kept() -> None:
    entry = parse_entry(
        {"type": "model_change", "id": "a", "provider": "x", "modelId": "y", "future": {"k": 1}}
    )
    assert isinstance(entry, E.ModelChangeEntry) and entry.extras() == {"future": {"k": 1}}
    message = parse_message(
        {"role": "assistant", "content": [{"type": "text", "text": "hi", "textSignature": "s"}]}
    )
    assert isinstance(message, E.AssistantMessage)
    assert message.content[0].extras() == {"textSignature": "s"}


def test_unknown_types_roles_and_blocks_are_kept() -> None:
    entry = parse_entry({"type": "telemetry", "id": "t", "parentId": None, "payload": [1, 2]})
    assert isinstance(entry, E.UnknownEntry) and entry.problem is None and entry.extras()["payload"] == [1, 2]
    message = parse_message({"role": "narrator", "content": "once upon a time"})
    assert isinstance(message, E.UnknownMessage) and message.extras()["content"] == "once upon a time"
    blocks = E.content_blocks(
        E.as_content([{"type": "audio", "data": "..."}, "bare string", {"type": "text", "text": 5}])
    )
    assert [type(b) for b in blocks] == [E.UnknownBlock, E.UnknownBlock, E.UnknownBlock]


@pytest.mark.parametrize(
    "raw",
    [
        {"type": "label", "id": "l", "targetId": "x", "label": ["not", "a", "string"]},
        {"type": "compaction", "id": "c", "summary": {"oops": 1}},
        {"type": "usage", "id": "u", "usage": "lots"},
        {"type": "context_edit", "id": "e", "targetId": "x", "replacement": "not an object"},
    ],
)
def test_wrong_types_become_unknown_with_a_reason(raw: dict) -> None:
    entry = parse_entry(raw)
    assert isinstance(entry, E.UnknownEntry) and entry.problem
    assert entry.type == raw["type"] and entry.id == raw["id"]


def test_an_odd_message_keeps_its_entry() -> None:
    entry = parse_entry({"type": "message", "id": "m", "message": {"role": "user", "content": 42}})
    assert isinstance(entry, E.MessageEntry)
    assert isinstance(entry.message, E.UnknownMessage) and "content" in (entry.message.problem or "")
    entry = parse_entry({"type": "message", "id": "m", "message": None})
    assert isinstance(entry, E.MessageEntry) and isinstance(entry.message, E.UnknownMessage)
    assert parse_message("just text").problem == "not an object: str"
