"""Where the prompt cache broke: hand-made paths whose replies report cache reads, each break
with the cause placed between the two replies, and its cost (the input paid again)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pi_sessions.core.common.problems import SessionError
from pi_sessions.core.projection.cache_breaks import break_at, break_steps, cache_breaks, tree_cache_breaks
from pi_sessions.core.session.session import Session

from tests.helpers.checks import known
from tests.helpers.cli import cli
from tests.helpers.corpus import session_files
from tests.helpers.sessions import cached_reply as reply
from tests.helpers.sessions import entry, header, system, user, write

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


def branchy(tmp: Path) -> Session:
    """a1 has two answers below it: a2 after a model change (the cache lost), a3 kept it."""
    lines = [
        header(cwd="/"),
        user("u1", None, "one", 1),
        reply("a1", "u1", 2, read=0, written=8000),
        user("u2", "a1", "two", 3),
        entry("model_change", "m", "u2", 4, provider="openai", modelId="gpt-5"),
        reply("a2", "m", 5, read=0, written=8200, fresh=8100),
        user("u3", "a1", "three", 6),
        reply("a3", "u3", 7, read=8000, written=200),
        user("u4", "a3", "four", 8),
        reply("a4", "u4", 9, read=0, written=9000, fresh=8300),  # lost with nothing between
    ]
    return Session.open(write(tmp / "b.jsonl", *lines))


def test_the_tree_has_each_reply_s_break_as_its_own_path_has_it(tmp_path: Path) -> None:
    s = branchy(tmp_path)
    tree = tree_cache_breaks(s)
    assert sorted(tree.breaks) == ["a2", "a4"]
    for leaf in ("a2", "a4"):
        for found in cache_breaks(s, s.path_to(leaf)):
            assert tree.get(found.entry_id) == found
    assert tree.breaks["a2"].causes == ("model",) and tree.breaks["a4"].causes == ("unknown",)
    assert tree.get("a3") is None


def test_the_break_at_a_leaf_and_a_piece_at_a_time(tmp_path: Path) -> None:
    s = branchy(tmp_path)
    assert break_at(s, s.path_to("a2")) == cache_breaks(s, s.path_to("a2"))[0]
    assert break_at(s, s.path_to("a3")) is None and break_at(s, s.path_to("u4")) is None
    fresh = Session.open(s.path or "")
    steps = list(break_steps(fresh, fresh.path_to("a4"), step=2))
    assert steps[:-1] and all(step is None for step in steps[:-1])
    assert steps[-1] == cache_breaks(s, s.path_to("a4"))
    summary = known(break_at(s, s.path_to("a2"))).summary()
    assert (
        summary == "the prompt cache was lost at this reply: a model change; 8.0k tokens of input paid again"
    )


def test_a_live_session_s_new_replies_get_their_breaks(tmp_path: Path) -> None:
    s = branchy(tmp_path)
    tree = tree_cache_breaks(s)
    with open(known(s.path), "a") as f:
        f.write(json.dumps(user("u5", "a4", "five", 10)) + "\n")
        f.write(json.dumps(reply("a5", "u5", 11, read=0, written=9100, fresh=9000)) + "\n")
    s.refresh()
    grown = tree.current(s)
    assert sorted(grown.breaks) == ["a2", "a4", "a5"]
    assert grown.breaks["a5"] == cache_breaks(s, s.path_to("a5"))[-1]


def test_on_every_corpus_file_the_tree_and_each_path_agree() -> None:
    for path in session_files()[:40]:
        try:
            s = Session.open(path)
        except SessionError:
            continue
        tree = tree_cache_breaks(s)
        on_paths = {}
        for leaf in s.entry_ids():
            if not s.children_of(leaf):
                on_paths.update({b.entry_id: b for b in cache_breaks(s, s.path_to(leaf))})
        assert on_paths == tree.breaks, path
