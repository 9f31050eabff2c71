"""Which usage counts in what a session and a path cost: pi 1.6.0's rule, everywhere we show it.

pi adds up the usage of assistant replies, of tool results that carry one (a subagent's),
of `usage` entries, and of compactions and branch summaries that report one
(AgentSession.getSessionStats, the footer's getSessionStats, getUsageCostBreakdown). A usage
on a user, custom or bashExecution message, a custom_message entry or a custom entry is not
counted. The figures below are what pi said of `usage_session()` (its own functions called on
this very file with /tmp/oracle/node22; the path costs are getUsageCostBreakdown(getBranch(leaf))
summed, the same rule applied to a path's entries).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pi_sessions.core.common.text import short_cost
from pi_sessions.core.listing.summary import SessionSummary
from pi_sessions.core.projection.branch_costs import branch_totals
from pi_sessions.core.projection.context import project
from pi_sessions.core.projection.window import format_tokens
from pi_sessions.core.session.session import Session
from pi_sessions.widgets.plain import FitStatic

from tests.helpers.app import lines_of, loaded, make_app
from tests.helpers.cli import cli
from tests.helpers.sessions import assistant, entry, header, user, write

# What pi 1.6.0 said of usage_session():
# AgentSession.getSessionStats: tokens.total 247, cost 2.9775 (the footer's totals: the same)
PI_SESSION = (247.0, 2.9775)
# getUsageCostBreakdown(getBranch(leaf)), summed over its keys: (tokens, cost)
PI_PATH = {"cu": (191.0, 0.885), "a3": (71.0, 2.1025)}


def usage(inp: int, out: int, cost: float) -> dict[str, Any]:
    return {
        "input": inp,
        "output": out,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": inp + out,
        "cost": {"total": cost},
    }


def message(entry_id: str, parent: str, n: int, **fields: Any) -> dict[str, Any]:
    return entry("message", entry_id, parent, n, message={"timestamp": n, **fields})


def tool_result(entry_id: str, parent: str, n: int, **fields: Any) -> dict[str, Any]:
    block = [{"type": "text", "text": "result"}]
    return message(
        entry_id, parent, n, role="toolResult", toolCallId=entry_id, content=block, isError=False, **fields
    )


def usage_session(path: Path) -> Path:
    """Every kind of entry with a usage, on two branches below a1:

    u1 a1 ┬ t1 t2 cm m1 u2 b1 us k1 cu   (leaf cu)
          └ t3 bs a3                     (leaf a3, the default)
    """
    return write(
        path,
        header(),
        user("u1", None, "q", 1),
        assistant("a1", "u1", "calls a tool", 2, usage=usage(10, 5, 0.01)),
        tool_result("t1", "a1", 3, toolName="subagent", usage=usage(100, 20, 0.5)),  # counted
        tool_result("t2", "t1", 4, toolName="read"),  # no usage
        entry(
            "custom_message",
            "cm",
            "t2",
            5,
            customType="x",
            content="hi",
            display=True,
            usage=usage(1000, 0, 7.0),
        ),
        message(
            "m1",
            "cm",
            6,
            role="custom",
            customType="x",
            content="hi",
            display=True,
            usage=usage(2000, 0, 11.0),
        ),
        message("u2", "m1", 7, role="user", content="q2", usage=usage(3000, 0, 13.0)),
        message(
            "b1",
            "u2",
            8,
            role="bashExecution",
            command="ls",
            output="",
            exitCode=0,
            usage=usage(4000, 0, 17.0),
        ),
        entry(
            "usage",
            "us",
            "b1",
            9,
            kind="cache_warming",
            provider="anthropic",
            model="m",
            usage=usage(7, 1, 0.25),
        ),
        entry(
            "compaction",
            "k1",
            "us",
            10,
            summary="s",
            firstKeptEntryId="u2",
            tokensBefore=50,
            usage=usage(40, 8, 0.125),
        ),
        entry("custom", "cu", "k1", 11, customType="x", data={}, usage=usage(5000, 0, 19.0)),
        tool_result("t3", "a1", 12, toolName="subagent", usage=usage(30, 3, 2.0)),  # counted
        entry("branch_summary", "bs", "t3", 13, fromId="t1", summary="s", usage=usage(6, 2, 0.0625)),
        assistant("a3", "bs", "end", 14, usage=usage(11, 4, 0.03)),
    )


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    return usage_session(tmp_path / "sessions" / "--home-u-proj--" / "usage.jsonl")


def test_session_and_path_totals_count_what_pi_counts(session_file: Path) -> None:
    session = Session.open(str(session_file))
    assert (session.totals.tokens, session.totals.cost) == pytest.approx(PI_SESSION)
    for leaf, figures in PI_PATH.items():
        totals = project(session, leaf).path_totals(session)
        assert (totals.tokens, totals.cost) == pytest.approx(figures), leaf
    # The two branches below a1 split what follows a1 (15 tokens, $0.01) between them.
    branches = {b.child_id: b.totals for b in branch_totals(session).fork("a1")}
    assert (branches["t1"].tokens, branches["t1"].cost) == pytest.approx((191.0 - 15, 0.885 - 0.01))
    assert (branches["t3"].tokens, branches["t3"].cost) == pytest.approx((71.0 - 15, 2.1025 - 0.01))


def test_a_growing_session_counts_an_appended_tool_results_usage(session_file: Path) -> None:
    session = Session.open(str(session_file))
    with session_file.open("ab") as f:
        line = tool_result("t9", "a3", 20, toolName="subagent", usage=usage(100, 0, 1.0))
        f.write(json.dumps(line).encode() + b"\n")
    session.refresh()
    assert (session.totals.tokens, session.totals.cost) == pytest.approx((247.0 + 100, 2.9775 + 1.0))


def test_stats_list_and_compare_show_pis_totals(session_file: Path) -> None:
    stats = json.loads(cli("stats", str(session_file), "--leaf", "cu", "--json").stdout)
    assert (stats["session_totals"]["tokens"], stats["session_totals"]["cost"]) == pytest.approx(PI_SESSION)
    assert (stats["path_totals"]["tokens"], stats["path_totals"]["cost"]) == pytest.approx(PI_PATH["cu"])
    listed = cli("list", "--session-dir", str(session_file.parent.parent), "--no-cache", "--json").stdout
    (row,) = [json.loads(line) for line in listed.splitlines()]
    assert (row["tokens"], row["cost"]) == pytest.approx(PI_SESSION)
    compared = json.loads(cli("compare", str(session_file), "cu", "a3", "--json").stdout)
    assert (compared["a"]["tokens"], compared["a"]["cost"]) == pytest.approx((191.0 - 15, 0.885 - 0.01))
    assert (compared["b"]["tokens"], compared["b"]["cost"]) == pytest.approx((71.0 - 15, 2.1025 - 0.01))


async def test_the_browser_shows_pis_totals(session_file: Path, tmp_path: Path) -> None:
    root = session_file.parent.parent
    app = make_app(root, tmp_path / "cache", open_path=session_file)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        assert screen.context_leaf == "a3"
        (summary,) = screen.sidebar.summaries
        assert isinstance(summary, SessionSummary)
        assert (summary.tokens, summary.cost) == pytest.approx(PI_SESSION)
        want = f"{format_tokens(PI_SESSION[0])} {short_cost(PI_SESSION[1])}"  # "247 $2.98"
        assert any(line.rstrip().endswith(want) for line in lines_of(screen.sidebar.session_list)), want
        figures = screen.query_one("#context-cost", FitStatic).full_text
        # The path's $2.1025 (three decimals: a float sum may land either side of the 5).
        assert "$2.10" in figures and f" {format_tokens(PI_PATH['a3'][0])} tokens" in figures, figures
