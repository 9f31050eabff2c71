"""The plain entry models answer exactly as the pydantic ones do (entries.py builds a
well-formed entry itself and asks pydantic about the rest): the same fields, and for the
corpus and for every field given an odd value, the same model, values, extras and problem."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from pi_sessions.core import entries as E
from pi_sessions.core import entries_pydantic as P
from pydantic import BaseModel

from .conftest import FIXTURES

LINEAR = next((FIXTURES / "sessions" / "--home-u-proj-a--").glob("*.jsonl"))

ODD_VALUES: list[Any] = [
    None,
    True,
    0,
    -3,
    2**60 + 1,
    10**400,
    1.5,
    "",
    "text",
    "7",
    "a\ud800b",
    [],
    ["x"],
    [1, None],
    [{"type": "text", "text": "t"}],
    [{"type": "text", "text": 5}],
    [{"type": "toolCall", "name": "bash", "arguments": {"c": 1}}, {"type": "later"}, 3],
    {},
    {"a": 1},
    {"a": "b", "c": None},
    {"input": 3, "cost": {"total": 0.5}},
    {"input": "x"},
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": [{"type": "thinking", "thinking": "hm", "redacted": 1}]},
    {"role": 3},
    {"content": [{"type": "image", "data": 1}]},
    {"\ud800": 1},
]


def corpus() -> Iterator[dict[str, Any]]:
    for path in sorted((FIXTURES / "sessions").rglob("*.jsonl")):
        for line in path.read_text().splitlines():
            try:
                raw = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(raw, dict):
                yield raw


def variations(raw: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The value itself, then each field (and each of its message's fields) in turn given
    every odd value, then dropped, plus an odd extra field."""
    yield raw
    for key in raw:
        for odd in ODD_VALUES:
            yield {**raw, key: odd}
        yield {k: v for k, v in raw.items() if k != key}
    message = raw.get("message")
    if isinstance(message, dict):
        for key in message:
            for odd in ODD_VALUES:
                yield {**raw, "message": {**message, key: odd}}
    yield {**raw, "later\ud800": 1}


def samples() -> list[dict[str, Any]]:
    """One of each kind and role of the corpus (the first seen), with all their variations."""
    seen: dict[tuple[Any, Any], dict[str, Any]] = {}
    for raw in corpus():
        message = raw.get("message")
        role = message.get("role") if isinstance(message, dict) else None
        seen.setdefault((raw.get("type"), role), raw)
    return list(seen.values())


def test_both_sets_of_models_have_the_same_fields() -> None:
    pydantic_models = {
        name: cls
        for name, cls in vars(P).items()
        if isinstance(cls, type) and issubclass(cls, BaseModel) and cls is not BaseModel
    }
    assert set(pydantic_models) - {"Lenient"} == set(E._CLASSES)
    for name, model in pydantic_models.items():
        if name == "Lenient":
            continue
        fields = {
            field: (info.default if not info.is_required() else None, info.is_required())
            for field, info in model.model_fields.items()
        }
        ours = {
            field: (default, required) for field, (_, default, required) in E._CLASSES[name]._fields.items()
        }
        assert list(ours.items()) == list(fields.items()), name


def pydantic_answer(kind: str, value: Any) -> Any:
    return E._plain(getattr(P, kind)(value))


@pytest.mark.parametrize("raw", samples(), ids=lambda raw: f"{raw.get('type')}")
def test_entries_and_messages_parse_as_pydantic_parses_them(raw: dict[str, Any]) -> None:
    for value in variations(raw):
        if value.get("type") == "session":
            assert E.parse_header(value) == pydantic_answer("parse_header", value), value
            continue
        assert E.parse_entry(value) == pydantic_answer("parse_entry", value), value
        message = value.get("message")
        assert E.parse_message(message) == pydantic_answer("parse_message", message), message


def test_content_and_odd_values_as_pydantic_reads_them() -> None:
    for value in ODD_VALUES:
        assert E.as_content(value) == E._plain(P.as_content(value)), value
        assert E.parse_entry(value) == pydantic_answer("parse_entry", value), value
        assert E.parse_message(value) == pydantic_answer("parse_message", value), value
        assert E.parse_header(value) == pydantic_answer("parse_header", value), value


def test_a_well_formed_session_is_read_without_pydantic() -> None:
    """(What the browser's first screen needs: pydantic is imported only for an odd value.)"""
    code = (
        "import json, sys\n"
        "from pi_sessions.core.describe import content_text\n"
        "from pi_sessions.core.entries import parse_entry\n"
        f"for line in open({str(LINEAR)!r}):\n"
        "    raw = json.loads(line)\n"
        "    if raw.get('type') != 'session':\n"
        "        entry = parse_entry(raw)\n"
        "        content_text(getattr(getattr(entry, 'message', None), 'content', None))\n"
        "print('pydantic' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
