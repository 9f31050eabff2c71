"""The costs screen (`$`): the per-period table of every session, a fork's copies counted once,
as `pi-sessions costs` prints it; `g` regroups, escape closes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_sessions.app.costs_screen import CostsScreen
from pi_sessions.app.main_screen import MainScreen
from pi_sessions.core.session.session import Session
from pi_sessions.core.writing.fork import plan_fork, write_fork
from textual.pilot import Pilot

from tests.helpers.app import loaded, make_app, screen_text, until
from tests.helpers.checks import known
from tests.helpers.cli import cli
from tests.helpers.sessions import header, reply, user, write


def _store(root: Path) -> None:
    """A session of two replies on two days, and a fork of it that adds a third on a third day."""
    folder = root / "--home-u-proj--"
    source = write(
        folder / "2025-03-01T10-00-00-000Z_source.jsonl",
        header(),
        user("u1", None, "first"),
        reply("a1", "u1", "2025-03-01T10:00:05.000Z", cost=0.25, tokens=(1000, 200, 0, 0)),
        user("u2", "a1", "second"),
        reply("a2", "u2", "2025-03-03T10:01:00.000Z", cost=0.5, tokens=(1000, 200, 0, 0)),
    )
    fork = Path(write_fork(plan_fork(Session.open(source), "a2", folder=str(folder))))
    with fork.open("a") as f:
        f.write(json.dumps(reply("a3", "a2", "2025-03-10T09:00:00.000Z", cost=2.0)) + "\n")


async def _open(pilot: Pilot[Any]) -> CostsScreen:
    await pilot.press("dollar_sign")
    await until(pilot, lambda: isinstance(pilot.app.screen, CostsScreen), "the costs screen")
    screen = pilot.app.screen
    assert isinstance(screen, CostsScreen)
    await until(pilot, lambda: screen.report is not None, "every session read")
    await pilot.pause()
    return screen


async def test_the_costs_screen_shows_each_day_once_with_a_bar_and_regroups(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    _store(root)
    printed = cli("costs", "--session-dir", str(root), "--json")
    days = {row["key"]: row for row in map(json.loads, printed.stdout.splitlines())}
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        await loaded(pilot)
        costs = await _open(pilot)
        shown = screen_text(app)
        assert "Costs by day" in shown and "3 paid replies" in shown and "$2.75" in shown
        for day, row in days.items():
            line = next(line for line in shown.splitlines() if day in line and "$" in line)
            assert f"${row['cost']:.4f}" in line and f"{row['input']:,}" in line
        # the costliest day has the longest bar; the fork's copies are not counted again
        bars = {
            day: next(ln for ln in shown.splitlines() if day in ln and "$" in ln).count("█") for day in days
        }
        assert bars["2025-03-10"] > bars["2025-03-03"] > bars["2025-03-01"] > 0
        assert "2 copies of them in forks or clones not counted again" in shown
        # the plot: every day from the first to the last, in all and per model
        assert "cost per day, 2025-03-01 to 2025-03-10 (10 days)" in shown
        plot = [ln for ln in costs.lines if ln.startswith(("all ", "anthropic/"))]
        assert len(plot) == 2 and all(len(ln.split()[-1]) == 10 for ln in plot)
        await pilot.press("p")
        await pilot.pause()
        assert any(ln.startswith("/home/u/proj ") for ln in costs.lines)

        await pilot.press("g")
        await pilot.pause()
        assert costs.by == "week" and [g.key for g in known(costs.report).groups] == [
            "2025-W09",
            "2025-W10",
            "2025-W11",
        ]
        assert "Costs by week" in screen_text(app)
        await pilot.press("g", "g")
        await pilot.pause()
        assert costs.by == "model" and "anthropic/claude-sonnet-4-5" in screen_text(app)

        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, MainScreen), "back on the main screen")
