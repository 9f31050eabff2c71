"""Typed views of entries, messages and blocks: every corpus entry maps to its kind; anything
odd is kept as unknown with the reason in plain words, never raised."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from pi_sessions.core.reading import entries as E
from pi_sessions.core.reading.entries import parse_entry, parse_header, parse_message

from tests.helpers.cli import cli
from tests.helpers.corpus import FIXTURES
from tests.helpers.sessions import entry, header, user, write

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
            expected = KINDS.get(str(raw.get("type")), E.UnknownEntry)
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
    assert isinstance(message.content, list) and message.content[0].extras() == {"textSignature": "s"}


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
    assert parse_message("just text").problem == "expected an object, got text"


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ({"type": "usage", "id": "u", "usage": {"input": "12"}}, "usage.input: expected a number, got text"),
        (
            {"type": "compaction", "id": "c", "usage": {"cost": {"total": [1]}}},
            "usage.cost.total: expected a number, got a list",
        ),
        (
            {"type": "compaction", "id": "c", "tokensBefore": 10**400},
            "tokensBefore: expected a number, got a number too large to hold",
        ),
        ({"type": "label", "id": "l", "label": True}, "label: expected text, got true"),
        (
            {"type": "context_edit", "id": "e", "replacement": {"content": 7}},
            "replacement.content: expected text or a list of blocks, got a number",
        ),
        ({"type": "session_info", "id": "s", "name": None, "problem": 3}, None),
    ],
)
def test_an_odd_field_names_itself_and_what_was_expected(raw: dict, problem: str | None) -> None:
    entry = parse_entry(raw)
    if problem is None:  # a field of the entry's own called `problem`: kept as the entry's kind
        assert isinstance(entry, E.SessionInfoEntry) and entry.extras() == {"problem": 3}
        return
    assert isinstance(entry, E.UnknownEntry) and entry.problem == problem
    # Every field is kept, as it was.
    assert (entry.type, entry.id) == (raw["type"], raw["id"])
    assert {k: v for k, v in raw.items() if k not in ("type", "id")} == entry.extras()


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (
            {"role": "assistant", "content": [{"type": "text", "text": 5}]},
            "content[0].text: expected text, got a number",
        ),
        (
            {"role": "user", "content": [{"type": "text", "text": "hi"}, "bare"]},
            "content[1]: expected a block (an object), got text",
        ),
        (
            {"role": "bashExecution", "command": "ls", "exitCode": "1"},
            "exitCode: expected a whole number, got text",
        ),
        ({"role": "toolResult", "isError": 1}, "isError: expected true or false, got a number"),
        ({"role": "system", "sections": {"tools": 3}}, "sections.tools: expected text or null, got a number"),
        ({"role": "system", "toolsAdded": ["bash"]}, "toolsAdded[0]: expected an object, got text"),
        (
            {"role": "assistant", "usage": {"input": None, "cost": "free"}},
            "usage.cost: expected an object, got text",
        ),
        ({"role": "user", "content": "hi", "problem": {}}, None),
        (None, "expected an object, got null"),
    ],
)
def test_an_odd_message_says_what_is_wrong(raw: dict | None, problem: str | None) -> None:
    message = parse_message(raw)
    if problem is None:
        assert isinstance(message, E.UserMessage) and message.extras() == {"problem": {}}
        return
    assert isinstance(message, E.UnknownMessage) and message.problem == problem
    if raw is not None:
        assert message.role == raw["role"] and message.extras() == {
            k: v for k, v in raw.items() if k != "role"
        }


def test_a_whole_number_is_taken_as_a_number_and_nothing_else_is_coerced() -> None:
    message = parse_message({"role": "assistant", "usage": {"input": 3, "cost": {"total": 2**60 + 1}}})
    assert isinstance(message, E.AssistantMessage) and message.usage is not None
    assert message.usage.input == 3.0 and type(message.usage.input) is float
    assert message.usage.cost is not None and message.usage.cost.total == float(
        2**60
    )  # as JavaScript reads it
    for odd in (True, "3", 3.0):
        assert isinstance(parse_message({"role": "bashExecution", "exitCode": odd}), E.UnknownMessage)


def test_a_header_must_be_well_formed() -> None:
    good = {"type": "session", "id": "x", "cwd": "/p", "version": 3, "later": 1}
    parsed = parse_header(good)
    assert parsed is not None and (parsed.id, parsed.cwd, parsed.extras()) == ("x", "/p", {"later": 1})
    for odd in (
        {**good, "id": None},
        {k: v for k, v in good.items() if k != "id"},
        {**good, "cwd": 1},
        [good],
    ):
        assert parse_header(odd) is None


ODD_VALUES: list = [
    None,
    True,
    -3,
    10**400,
    1.5,
    "",
    "7",
    "a\ud800b",
    [],
    [1, None],
    [{"type": "text", "text": 5}],
    {},
    {"input": "x"},
    {"role": 3},
]


def test_no_odd_value_in_any_field_raises() -> None:
    """Each field of one corpus entry of each kind and role, given each odd value in turn: the
    entry is its kind or unknown with a reason, and its fields all still there."""
    samples: dict[tuple, dict] = {}
    for path in sorted((FIXTURES / "sessions").rglob("*.jsonl")):
        for line in path.read_text().splitlines():
            try:
                raw = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(raw, dict) and raw.get("type") != "session":
                message = raw.get("message")
                samples.setdefault(
                    (raw.get("type"), message.get("role") if isinstance(message, dict) else None), raw
                )
    for raw in samples.values():
        variations = [{**raw, key: odd} for key in raw for odd in ODD_VALUES]
        message = raw.get("message")
        if isinstance(message, dict):
            variations += [{**raw, "message": {**message, key: odd}} for key in message for odd in ODD_VALUES]
        for value in variations:
            parsed = parse_entry(value)
            if isinstance(parsed, E.UnknownEntry) and str(value["type"]) in KINDS:
                assert parsed.problem and ": expected " in parsed.problem, parsed
                kept = {k: v for k, v in parsed.__dict__.items() if k not in ("_extra", "problem")}
                assert {k: v for k, v in (kept | parsed.extras()).items() if v is not None} == {
                    k: v for k, v in value.items() if v is not None and k != "problem"
                }
            inner = parse_message(value.get("message"))
            role = inner.role if isinstance(inner.role, str) else None
            if isinstance(inner, E.UnknownMessage) and role in ROLES and role != "hookMessage":
                assert inner.problem and "expected " in inner.problem, inner
            content = value["message"].get("content") if isinstance(value.get("message"), dict) else None
            E.content_blocks(E.as_content(content))


def test_an_odd_entry_and_message_read_sensibly_in_tree_and_context(tmp_path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        header(),
        user("a", None, "hello"),
        entry("usage", "u", "a", kind="turn", usage={"input": "12"}),
        entry("message", "b", "u", message={"role": "assistant", "content": [{"type": "text", "text": 5}]}),
    )
    tree = cli("tree", str(path))
    assert tree.code == 0
    assert "(usage: usage.input: expected a number, got text; kept as is)" in tree.stdout
    assert "(unreadable message: content[0].text: expected text, got a number)" in tree.stdout
    context = cli("context", "--json", str(path))
    assert context.code == 0  # JSON stays exact: the odd message as it was written
    assert json.loads(context.stdout)["messages"][1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": 5}],
    }
