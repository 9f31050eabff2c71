"""`pi-sessions costs`: tokens and cost over many sessions, each paid reply counted once."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from pi_sessions.core.session.session import Session
from pi_sessions.core.writing.fork import plan_fork, write_fork

from tests.helpers.cli import cli, raw_controls
from tests.helpers.sessions import entry, header, reply, user, write


def _iso(ms: int) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def costs(root: Path, *args: str) -> list[dict[str, Any]]:
    result = cli("costs", "--session-dir", str(root), "--json", *args)
    assert result.code == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def by_key(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {row["key"]: row for row in rows}


def test_a_fork_copying_replies_counts_them_once(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    folder = root / "--home-u-proj--"
    source = write(
        folder / "2025-03-01T10-00-00-000Z_source.jsonl",
        header(),
        user("u1", None, "first"),
        reply("a1", "u1", "2025-03-01T10:00:05.000Z", cost=0.25),
        user("u2", "a1", "second"),
        reply("a2", "u2", "2025-03-01T10:01:00.000Z", cost=0.5),
    )
    fork = Path(write_fork(plan_fork(Session.open(source), "a2", folder=str(folder))))
    # The fork goes on and pays for one reply of its own.
    with fork.open("a") as f:
        f.write(json.dumps(reply("a3", "a2", "2025-03-02T09:00:00.000Z", cost=2.0)) + "\n")

    rows = by_key(costs(root))
    assert rows["2025-03-01"]["replies"] == 2 and rows["2025-03-01"]["cost"] == pytest.approx(0.75)
    assert rows["2025-03-02"]["replies"] == 1 and rows["2025-03-02"]["cost"] == pytest.approx(2.0)
    assert rows["2025-03-01"]["input"] == 200 and rows["2025-03-01"]["cache_read"] == 2000
    readable = cli("costs", "--session-dir", str(root))
    assert "2 copies of them in forks or clones not counted again" in readable.stdout
    total = next(line for line in readable.stdout.splitlines() if line.startswith("total"))
    assert total.split()[1] == "3" and total.endswith("$2.7500")


def test_estimated_counts_the_replies_without_a_billed_total(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    write(
        root / "--p--" / "2025-03-01T10-00-00-000Z_a.jsonl",
        header(),
        reply("a1", None, "2025-03-01T10:00:00.000Z", billed=True, cost=1.0),
        reply("a2", "a1", "2025-03-01T10:01:00.000Z", billed=False, cost=0.5),
        reply("a3", "a2", "2025-03-01T10:02:00.000Z", cost=0.25),
    )
    [row] = costs(root)
    assert (row["replies"], row["estimated"], row["cost"]) == (3, 2, pytest.approx(1.75))


def _spread(root: Path) -> None:
    """Two projects, two models, replies on both sides of a month, a year and an ISO week."""
    write(
        root / "--home-u-a--" / "2024-12-30T10-00-00-000Z_a.jsonl",
        header(cwd="/home/u/a", timestamp="2024-12-30T10:00:00.000Z"),
        reply("a1", None, "2024-12-30T10:00:00.000Z", tokens=(1, 2, 3, 4), cost=1.0),
        reply("a2", "a1", "2025-03-31T23:59:00.000Z", tokens=(10, 20, 30, 40), cost=2.0),
    )
    write(
        root / "--home-u-b--" / "2025-04-01T10-00-00-000Z_b.jsonl",
        header(
            cwd="/home/u/b", id="0195aaaa-0000-7000-8000-000000000002", timestamp="2025-04-01T00:00:00.000Z"
        ),
        reply(
            "b1",
            None,
            "2025-04-01T00:00:01.000Z",
            tokens=(100, 200, 300, 400),
            cost=4.0,
            provider="openai",
            model="gpt-5",
            responseModel="gpt-5-2025-08-07",
        ),
        reply("b2", "b1", "2025-04-06T12:00:00.000Z", tokens=(1000, 0, 0, 0), cost=8.0),
    )


@pytest.mark.parametrize(
    ("by", "expected"),
    [
        ("day", {"2024-12-30": 1.0, "2025-03-31": 2.0, "2025-04-01": 4.0, "2025-04-06": 8.0}),
        # 2024-12-30 is in ISO week 1 of 2025; 31 March to 6 April 2025 is week 14.
        ("week", {"2025-W01": 1.0, "2025-W14": 14.0}),
        ("month", {"2024-12": 1.0, "2025-03": 2.0, "2025-04": 12.0}),
        # pi's key: the provider and the model that answered (responseModel) when it says.
        ("model", {"anthropic/claude-sonnet-4-5": 11.0, "openai/gpt-5-2025-08-07": 4.0}),
        ("cwd", {"/home/u/b": 12.0, "/home/u/a": 3.0}),
    ],
)
def test_each_grouping(tmp_path: Path, by: str, expected: dict[str, float]) -> None:
    root = tmp_path / "sessions"
    _spread(root)
    rows = costs(root, "--by", by)
    assert {r["key"]: r["cost"] for r in rows} == pytest.approx(expected)
    keys = [r["key"] for r in rows]
    # Periods oldest first; models and projects costliest first.
    assert keys == (sorted(keys) if by in ("day", "week", "month") else list(expected))
    assert sum(r["input"] for r in rows) == 1111 and sum(r["cache_write"] for r in rows) == 444
    assert all(isinstance(r[k], int) for r in rows for k in ("input", "output", "cache_read", "cache_write"))


def test_since_keeps_the_replies_made_within_the_window(tmp_path: Path) -> None:
    now = int(time.time() * 1000)
    hour, day = 3_600_000, 86_400_000
    root = tmp_path / "sessions"
    write(
        root / "--p--" / "2025-03-01T10-00-00-000Z_a.jsonl",
        header(),
        reply("old", None, _iso(now - 3 * day), cost=1.0),
        reply("new", "old", _iso(now - hour), cost=0.5),
    )
    [recent] = costs(root, "--since", "2d", "--by", "month")
    assert (recent["replies"], recent["cost"]) == (1, 0.5)
    assert sum(r["replies"] for r in costs(root, "--since", "1w")) == 2
    bad = cli("costs", "--session-dir", str(root), "--since", "2 days")
    assert bad.code == 2 and bad.out == b"" and bad.stderr.count("\n") == 1 and "--since" in bad.stderr


def test_a_reply_counts_on_the_day_it_was_made_and_usage_entries_count_too(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    summary_usage = {"input": 7, "output": 3, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.125}}
    write(
        root / "--p--" / "2025-03-01T10-00-00-000Z_a.jsonl",
        header(),
        # made a second before midnight, written after it
        reply("a1", None, "2025-03-01T23:59:59.000Z", written="2025-03-02T00:00:01.000Z", cost=1.0),
        {
            **entry(
                "usage", "u1", "a1", kind="web_search", provider="exa", model="search", usage=summary_usage
            ),
            "timestamp": "2025-03-02T00:00:02.000Z",
        },
        {
            **entry(
                "compaction",
                "c1",
                "u1",
                summary="what happened",
                firstKeptEntryId="a1",
                tokensBefore=9,
                usage=summary_usage,
            ),
            "timestamp": "2025-03-02T00:00:03.000Z",
        },
    )
    days = by_key(costs(root))
    assert days["2025-03-01"]["replies"] == 1 and days["2025-03-01"]["cost"] == 1.0
    assert days["2025-03-02"]["replies"] == 2 and days["2025-03-02"]["cost"] == 0.25
    models = by_key(costs(root, "--by", "model"))
    assert models["exa/search"]["input"] == 7 and models["Tools/summaries"]["cost"] == 0.125


def test_the_readable_table_is_inert_and_empty_stores_say_so(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    write(
        root / "--p--" / "2025-03-01T10-00-00-000Z_a.jsonl",
        header(cwd="/home/u/\x1b[31mred"),
        reply("a1", None, "2025-03-01T10:00:00.000Z", tokens=(1234567, 0, 0, 0), provider="x\x07y"),
    )
    for by in ("cwd", "model", "day"):
        shown = cli("costs", "--session-dir", str(root), "--by", by)
        assert shown.code == 0 and not raw_controls(shown.stdout)
        assert "1,234,567" in shown.stdout
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = cli("costs", "--session-dir", str(empty))
    assert nothing.code == 0 and "no paid replies" in nothing.stdout
    assert cli("costs", "--session-dir", str(empty), "--json").out == b""


def test_a_hostile_session_is_counted_and_printed_inert(tmp_path: Path) -> None:
    from tests.helpers.evil import hostile_session

    root = tmp_path / "sessions"
    hostile_session(root)
    for by in ("day", "week", "month", "model", "cwd"):
        shown = cli("costs", "--session-dir", str(root), "--by", by)
        assert shown.code == 0 and not raw_controls(shown.stdout) and shown.err == b""
        assert "paid replies" in shown.stdout
        rows = costs(root, "--by", by)
        assert rows and sum(r["replies"] for r in rows) == sum(r["replies"] for r in costs(root))
