"""Paid replies and the cost report on the pi 1.6.0 corpus: each reply pi counted, each once."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from pi_sessions.app.subcommands.costs import store_replies
from pi_sessions.core.projection.cost_report import GROUPINGS, cost_report
from pi_sessions.core.projection.paid_replies import paid_replies
from pi_sessions.core.session.session import Session

from tests.helpers.corpus import FIXTURES, SHARED_FIXTURES

ROOTS = [p for p in (FIXTURES / "sessions", SHARED_FIXTURES / "sessions") if p.is_dir()]
KINDS = ("input", "output", "cacheRead", "cacheWrite")


def _number(value: Any) -> float:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if ok else 0.0


def _raw_paid(path: Path) -> list[tuple[tuple[Any, Any], dict[str, Any]]]:
    """Each line pi adds to a session's totals, read with plain json: ((id, timestamp), usage)."""
    found = []
    for text in path.read_text(errors="replace").splitlines():
        try:
            line = json.loads(text)
        except ValueError:
            continue
        if not isinstance(line, dict):
            continue
        message = line.get("message")
        if line.get("type") == "message" and isinstance(message, dict):
            usage = message.get("usage") if message.get("role") in ("assistant", "toolResult") else None
        elif line.get("type") in ("usage", "compaction", "branch_summary"):
            usage = line.get("usage")
        else:
            usage = None
        if isinstance(usage, dict):
            found.append(((line.get("id"), line.get("timestamp")), usage))
    return found


def _cost(usage: dict[str, Any]) -> float:
    cost = usage.get("cost")
    return _number(cost.get("total")) if isinstance(cost, dict) else 0.0


@pytest.mark.parametrize("root", ROOTS, ids=lambda p: p.parent.parent.name)
def test_every_session_s_paid_replies_are_what_its_totals_count(root: Path) -> None:
    for path in sorted(root.glob("*/*.jsonl")):
        session = Session.open(path)
        replies = list(paid_replies(session))
        raw = _raw_paid(path)
        assert sum(r.cost for r in replies) == pytest.approx(session.totals.cost), path.name
        assert len(replies) == len(raw), path.name
        for ours, kind in zip(("input", "output", "cache_read", "cache_write"), KINDS, strict=True):
            assert sum(getattr(r, ours) for r in replies) == sum(_number(u.get(kind)) for _, u in raw)


@pytest.mark.parametrize("root", ROOTS, ids=lambda p: p.parent.parent.name)
def test_the_report_counts_each_reply_a_fork_copied_once(root: Path) -> None:
    files = {p.name: p for p in root.glob("*/*.jsonl")}
    raw = {name: _raw_paid(p) for name, p in files.items()}
    # A fork's copies: the paid lines of a file whose header names a parent that the parent
    # holds too (same id and time). The parent's path is where pi wrote it: match its name.
    copies: list[dict[str, Any]] = []
    for name, path in files.items():
        head = json.loads(path.read_text(errors="replace").split("\n", 1)[0])
        parent = head.get("parentSession") if isinstance(head, dict) else None
        if isinstance(parent, str) and Path(parent).name in raw:
            theirs = {key for key, _ in raw[Path(parent).name]}
            copies.extend(usage for key, usage in raw[name] if key in theirs)
    everything = [usage for lines in raw.values() for _, usage in lines]
    replies = store_replies(str(root))
    for by in GROUPINGS:
        report = cost_report(replies, by)
        assert report.copies == len(copies)
        assert report.total.replies == len(everything) - len(copies) == sum(g.replies for g in report.groups)
        expected_cost = sum(map(_cost, everything)) - sum(map(_cost, copies))
        assert report.total.cost == pytest.approx(expected_cost)
        assert sum(g.cost for g in report.groups) == pytest.approx(expected_cost)
        for ours, kind in zip(("input", "output", "cache_read", "cache_write"), KINDS, strict=True):
            want = sum(_number(u.get(kind)) for u in everything) - sum(_number(u.get(kind)) for u in copies)
            assert getattr(report.total, ours) == want == sum(getattr(g, ours) for g in report.groups)


@pytest.mark.parametrize("root", ROOTS, ids=lambda p: p.parent.parent.name)
def test_the_plot_s_series_fill_every_period_and_add_up(root: Path) -> None:
    from datetime import date, timedelta

    from pi_sessions.core.projection.cost_report import cost_series

    replies = store_replies(str(root))
    for by in ("day", "week", "month"):
        report = cost_report(replies, by)
        dated = [g for g in report.groups if g.key != "unknown"]
        for split in ("model", "cwd"):
            series = cost_series(replies, by, split)
            assert series.periods[0] == dated[0].key and series.periods[-1] == dated[-1].key
            assert len(set(series.periods)) == len(series.periods) == len(series.total)
            assert set(series.periods) >= {g.key for g in dated}
            by_period = dict(zip(series.periods, series.total, strict=True))
            for group in dated:
                assert by_period[group.key] == pytest.approx(group.cost)
            for i, total in enumerate(series.total):
                assert sum(costs[i] for _, costs in series.parts) == pytest.approx(total)
            if by == "day":  # no day left out between the first and the last
                first = date.fromisoformat(series.periods[0])
                assert list(series.periods) == [
                    (first + timedelta(days=n)).isoformat() for n in range(len(series.periods))
                ]
            assert {name for name, _ in series.parts} == {g.key for g in cost_report(replies, split).groups}


def test_the_plot_s_periods_cross_a_year_as_the_calendar_does() -> None:
    from datetime import UTC, datetime

    from pi_sessions.core.projection.cost_report import cost_series
    from pi_sessions.core.projection.paid_replies import PaidReply

    def made(iso: str, cost: float) -> PaidReply:
        ms = datetime.fromisoformat(iso).replace(tzinfo=UTC).timestamp() * 1000
        return PaidReply(iso, "/s", "/p", None, "assistant", ms, None, "a/b", 1, 1, 0, 0, cost, False)

    replies = [made("2020-12-28T12:00", 1.0), made("2021-01-11T12:00", 2.0)]
    weeks = cost_series(replies, "week")
    assert weeks.periods == ("2020-W53", "2021-W01", "2021-W02") and weeks.total == (1.0, 0.0, 2.0)
    months = cost_series(replies, "month")
    assert months.periods == ("2020-12", "2021-01") and months.total == (1.0, 2.0)
    assert len(cost_series(replies, "day").periods) == 15
