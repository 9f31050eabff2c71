"""What the screen looks like, at 80x24 and 160x48, on the bundled demo sessions.

Update the pictures after a deliberate change with `pytest tests/test_snapshots.py --snapshot-update`
and look at them (tests/__snapshots__) before committing.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from pi_sessions.app.config import Settings
from pi_sessions.app.demo import prepare_demo
from pi_sessions.app.tui import PiSessionsApp
from pi_sessions.core.locations import SessionsRoot
from pi_sessions.widgets import sidebar

from .apphelpers import loaded, settled

pytestmark = pytest.mark.snapshot

FIXED_ROOT = Path("/tmp/pi-sessions-snapshots")  # a fixed path: it is shown on screen
NOW = 1767225600.0  # 2026-01-01T00:00:00Z: ages are computed against this
KITCHEN_SINK = "--tmp-scratch--/2025-03-30T10-52-05-079Z_0195e6ae-1c57-71e5-b35b-1bbb5f940b52.jsonl"


@pytest.fixture
def demo_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(sidebar, "clock", lambda: NOW)
    shutil.rmtree(FIXED_ROOT, ignore_errors=True)
    sessions = prepare_demo(FIXED_ROOT)

    def make(open_file: str | None = None, **settings: Any) -> PiSessionsApp:
        return PiSessionsApp(
            Settings(**settings),
            SessionsRoot(str(sessions), "the demo", True),
            open_path=str(sessions / open_file) if open_file else None,
            current_cwd="/home/u/proj-a",
            cache_dir=str(tmp_path / "cache"),
        )

    yield make
    shutil.rmtree(FIXED_ROOT, ignore_errors=True)


async def _ready(pilot: Any) -> None:
    await loaded(pilot)
    await pilot.pause()


def test_small_terminal_first_screen(snap_compare: Any, demo_app: Any) -> None:
    assert snap_compare(demo_app(), terminal_size=(80, 24), run_before=_ready)


def test_small_terminal_tree_and_context(snap_compare: Any, demo_app: Any) -> None:
    async def tree(pilot: Any) -> None:
        await _ready(pilot)
        await pilot.press("tab", "k", "k")
        await settled(pilot)

    assert snap_compare(demo_app(), terminal_size=(80, 24), run_before=tree)


def test_wide_terminal_three_panes(snap_compare: Any, demo_app: Any) -> None:
    assert snap_compare(demo_app(), terminal_size=(160, 48), run_before=_ready)


def test_wide_terminal_excluded_entries_with_reasons(snap_compare: Any, demo_app: Any) -> None:
    async def excluded(pilot: Any) -> None:
        await _ready(pilot)
        await pilot.press("x")
        await settled(pilot)

    assert snap_compare(demo_app(KITCHEN_SINK), terminal_size=(160, 48), run_before=excluded)


def test_ascii_and_help(snap_compare: Any, demo_app: Any) -> None:
    async def help_screen(pilot: Any) -> None:
        await _ready(pilot)
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(demo_app(ascii=True), terminal_size=(80, 24), run_before=help_screen)
