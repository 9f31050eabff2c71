"""A worker that fails tells the user in one line (a notification), never ends unseen: the
branch costs of a big session, the sparkline of a long path, a report, the costs view."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pi_sessions.app.audit_screen import CompactionAuditScreen
from pi_sessions.app.costs_screen import CostsScreen
from pi_sessions.widgets import branch_rows, sparkline

from tests.helpers.app import loaded, make_app, until
from tests.helpers.corpus import FIXTURES

SESSIONS = FIXTURES / "sessions"
FORKS = "--home-u-proj-a--/2025-03-27T21-33-24-765Z_0195d986-2f9d-71e5-b35b-1baa9927ca36.jsonl"


def copy_of(tmp_path: Path, name: str) -> Path:
    root = tmp_path / "sessions"
    (root / name).parent.mkdir(parents=True)
    shutil.copyfile(SESSIONS / name, root / name)
    return root


def broken(*args: Any, **kwargs: Any) -> Any:
    raise ZeroDivisionError("the figures do not add up")


def notices(app: Any) -> list[str]:
    return [n.message for n in app._notifications]


async def test_branch_costs_that_fail_in_their_worker_say_so_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(branch_rows, "SYNC_COSTS", 3)  # built in a worker thread
    monkeypatch.setattr(branch_rows, "branch_totals", broken)
    root = copy_of(tmp_path, FORKS)
    app = make_app(root, tmp_path / "cache", open_path=root / FORKS)
    async with app.run_test(size=(160, 48), notifications=True) as pilot:
        screen = await loaded(pilot)
        want = "Working out what each branch spent failed: the figures do not add up"
        await until(pilot, lambda: want in notices(app), "the failure told")
        screen.branch_tree.refresh()  # drawn again: not built (and failed) again
        await pilot.pause()
        assert notices(app).count(want) == 1
        assert screen.branch_tree.costs is None


async def test_a_sparkline_that_fails_in_its_worker_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def steps(*args: Any) -> Iterator[None]:
        yield None  # not done at once: the rest is read by the worker
        raise ZeroDivisionError("the figures do not add up")

    monkeypatch.setattr(sparkline, "timeline_steps", steps)
    root = copy_of(tmp_path, FORKS)
    app = make_app(root, tmp_path / "cache", open_path=root / FORKS)
    async with app.run_test(size=(160, 48), notifications=True) as pilot:
        screen = await loaded(pilot)  # (waits for the sparkline: its failure ends the wait)
        want = "Reading the replies for the sparkline failed: the figures do not add up"
        await until(pilot, lambda: want in notices(app), "the failure told")
        assert "cannot read the replies" in screen.context_view.header.sparkline.text()


async def test_a_report_and_the_costs_view_that_fail_say_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(CompactionAuditScreen, "build", broken)
    monkeypatch.setattr("pi_sessions.app.subcommands.costs.replies_of", broken)
    root = copy_of(tmp_path, FORKS)
    app = make_app(root, tmp_path / "cache", open_path=root / FORKS)
    async with app.run_test(size=(160, 48), notifications=True) as pilot:
        await loaded(pilot)
        await pilot.press("A")
        want = "Reading the report failed: the figures do not add up"
        await until(pilot, lambda: want in notices(app), "the report's failure told")
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, CompactionAuditScreen), "the report closed")
        app.push_screen(CostsScreen([]))
        want = "Reading the costs failed: the figures do not add up"
        await until(pilot, lambda: want in notices(app), "the costs' failure told")
