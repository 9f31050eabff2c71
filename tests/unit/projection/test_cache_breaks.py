"""Where the prompt cache broke: hand-made paths whose replies report cache reads, each break
with the cause placed between the two replies, and its cost (the input paid again)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pi_sessions.core.projection.cache_breaks import cache_breaks
from pi_sessions.core.session.session import Session

from tests.helpers.cli import cli
from tests.helpers.sessions import assistant, entry, header, system, user, write


def reply(
    eid: str, parent: str, n: int, read: int, written: int, fresh: int = 100, **msg: Any
) -> dict[str, Any]:
    usage = {
        "input": fresh,
        "output": 50,
        "cacheRead": read,
        "cacheWrite": written,
        "totalTokens": fresh + 50 + read + written,
        # $3 per million input tokens, $0.30 per million read from the cache
        "cost": {"input": fresh * 3e-6, "output": 0, "cacheRead": read * 3e-7, "cacheWrite": 0, "total": 0},
    }
    return assistant(eid, parent, "ok", n, usage=usage, **msg)


BETWEEN: dict[str, Any] = {
    "model": lambda n: entry("model_change", "x", "u2", n, provider="openai", modelId="gpt-5"),
    "thinking-level": lambda n: entry("thinking_level_change", "x", "u2", n, thinkingLevel="high"),
    "system-prompt": lambda n: system("x", "u2", n, content="new tools"),
    "context-edit": lambda n: entry("context_edit", "x", "u2", n, targetId="u1", replacement=None),
}


def session(tmp: Path, middle: dict[str, Any] | None, lost: bool = True, gap: int = 0) -> Session:
    lines = [
        header(cwd="/"),
        user("u1", None, "one", 1),
        reply("a1", "u1", 2, read=0, written=8000),
        user("u2", "a1", "two", 3 + gap),
    ]
    parent = "u2"
    if middle is not None:
        lines.append(middle)
        parent = "x"
    lines.append(
        reply("a2", parent, 5 + gap, read=0 if lost else 8000, written=8200, fresh=8100 if lost else 100)
    )
    return Session.open(write(tmp / "s.jsonl", *lines))


@pytest.mark.parametrize("cause", sorted(BETWEEN))
def test_a_break_names_the_change_between_the_replies(cause: str, tmp_path: Path) -> None:
    s = session(tmp_path, BETWEEN[cause](4))
    [found] = cache_breaks(s, s.path_to("a2"))
    assert (found.entry_id, found.previous_id, found.causes) == ("a2", "a1", (cause,))
    assert (found.cache_read, found.expected_read, found.extra_tokens) == (0, 8000, 8000)
    assert found.extra_cost is None  # neither reply read from the cache: its price is not known


def test_an_idle_gap_past_the_cache_lifetime_is_a_cause(tmp_path: Path) -> None:
    s = session(tmp_path, None, gap=600)  # ten minutes between the reply and the next question
    [found] = cache_breaks(s, s.path_to("a2"))
    assert found.causes == ("idle",) and "10 min idle" in found.detail


def test_a_kept_cache_is_no_break_and_an_unexplained_loss_says_unknown(tmp_path: Path) -> None:
    kept = session(tmp_path, None, lost=False)
    assert cache_breaks(kept, kept.path_to("a2")) == []
    lost = session(tmp_path, None)
    [found] = cache_breaks(lost, lost.path_to("a2"))
    assert found.causes == ("unknown",)


def test_a_reply_from_another_model_is_a_model_cause(tmp_path: Path) -> None:
    lines = [
        header(cwd="/"),
        user("u1", None, "one", 1),
        reply("a1", "u1", 2, read=0, written=8000),
        user("u2", "a1", "two", 3),
        reply("a2", "u2", 4, read=0, written=8200, fresh=8100, provider="google", model="gemini-2.5-pro"),
    ]
    s = Session.open(write(tmp_path / "s.jsonl", *lines))
    [found] = cache_breaks(s, s.path_to("a2"))
    assert (
        found.causes == ("model",) and "anthropic/claude-sonnet-4-5 -> google/gemini-2.5-pro" in found.detail
    )


def test_the_cost_is_the_input_price_less_the_cache_price(tmp_path: Path) -> None:
    lines = [
        header(cwd="/"),
        user("u1", None, "one", 1),
        reply("a1", "u1", 2, read=1000, written=7000),  # reads at $0.30 per million
        user("u2", "a1", "two", 3),
        reply("a2", "u2", 4, read=0, written=8200, fresh=8100),
    ]
    s = Session.open(write(tmp_path / "s.jsonl", *lines))
    [found] = cache_breaks(s, s.path_to("a2"))
    assert found.extra_tokens == 8000
    assert found.extra_cost == pytest.approx(8000 * (3e-6 - 3e-7))


def test_stats_json_lists_the_breaks(tmp_path: Path) -> None:
    session(tmp_path, BETWEEN["thinking-level"](4))
    value = json.loads(cli("stats", str(tmp_path / "s.jsonl"), "--json").stdout)
    assert [(b["entry_id"], b["causes"], b["extra_tokens"]) for b in value["cache_breaks"]] == [
        ("a2", ["thinking-level"], 8000)
    ]


def test_a_damaged_entry_between_the_replies_is_no_cause_and_no_crash(tmp_path: Path) -> None:
    """Found by the CI fuzz run (seed 2021, case 372): an entry whose type is a list."""
    s = session(
        tmp_path,
        {"type": ["compaction"], "id": "x", "parentId": "u2", "timestamp": "2025-01-01T00:00:04.000Z"},
    )
    [found] = cache_breaks(s, s.path_to("a2"))
    assert found.causes == ("unknown",)
