"""Driving the real app in tests: build it on a folder, wait for conditions, read the screen."""

from __future__ import annotations

import html
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pi_sessions.app.config import Settings
from pi_sessions.app.main_screen import MainScreen
from pi_sessions.app.tui import PiSessionsApp
from pi_sessions.core.common.locations import SessionsRoot
from textual.pilot import Pilot

from tests.helpers.cli import RAW_CONTROL

WAIT = 15.0  # only a hang reaches this


def make_app(
    root: Path,
    cache: Path,
    *,
    open_path: Path | None = None,
    cwd: str | None = None,
    pi_agent_dir: Path | None = None,
    **settings: Any,
) -> PiSessionsApp:
    """The app on `root`; pi's keybindings.json is read from `pi_agent_dir` (by default a
    folder that does not exist: the tester's own pi settings never change a test)."""
    return PiSessionsApp(
        Settings(**settings),
        SessionsRoot(str(root), "the test folder", True),
        open_path=str(open_path) if open_path else None,
        current_cwd=cwd or "/nowhere",
        cache_dir=str(cache),
        pi_agent_dir=str(pi_agent_dir) if pi_agent_dir else str(cache / "no-pi-agent"),
    )


async def until(pilot: Pilot[Any], condition: Callable[[], object], what: str = "condition") -> None:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if condition():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def main(pilot: Pilot[Any]) -> MainScreen:
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen), screen
    return screen


async def loaded(pilot: Pilot[Any]) -> MainScreen:
    """Wait until the sessions are listed and one is open with its context shown."""
    await until(
        pilot, lambda: isinstance(pilot.app.screen, MainScreen) and pilot.app.screen.scanned, "the scan"
    )
    screen = main(pilot)
    await until(
        pilot,
        lambda: screen.session is not None and screen.context_view.projection is not None,
        "an open session",
    )
    await settled(pilot)
    return screen


async def settled(pilot: Pilot[Any]) -> None:
    """Wait until no pane has a scroll waiting for the next refresh, and the figures read in
    the background (the context sparkline, the tree's branch costs and cache breaks) are in."""
    screen = main(pilot)
    await until(
        pilot,
        lambda: not screen.branch_tree.scroll_pending and not screen.context_view.body.scroll_pending,
        "scrolling",
    )
    await until(
        pilot,
        lambda: (
            not screen.context_view.header.sparkline.pending
            and not screen.branch_tree.costs_pending
            and not screen.branch_tree.break_marks.pending
        ),
        "the context sparkline, the branch costs and the cache breaks",
    )

    def thumbs_caught_up() -> bool:
        return all(
            not (w.show_vertical_scrollbar and w.region.height) or w.vertical_scrollbar.position == w.scroll_y
            for w in (screen.branch_tree, screen.context_view.body, screen.sidebar.session_list)
        )

    await until(pilot, thumbs_caught_up, "the scrollbars to show the scroll positions")
    await pilot.pause()


def lines_of(widget: Any) -> list[str]:
    """The text a Line-API widget shows right now."""
    return [widget.render_line(y).text for y in range(widget.size.height)]


def segments_of(widget: Any) -> list[str]:
    return [seg.text for y in range(widget.size.height) for seg in widget.render_line(y)]


def static_text(screen: Any, selector: str) -> str:
    """The plain text a Static shows (a one-line FitStatic: all of it, before it is cut to fit)."""
    from pi_sessions.widgets.plain import FitStatic
    from textual.widgets import Static

    widget = screen.query_one(selector, Static)
    if isinstance(widget, FitStatic):
        return widget.full_text
    return str(widget.render())


async def watching(pilot: Pilot[Any]) -> None:
    """Until the main screen's watcher is running: from then on, writes are seen."""
    screen = main(pilot)
    await until(pilot, lambda: screen.watcher is not None and screen.watcher.running, "the watcher")


_SVG_TEXT = re.compile(r'<text [^>]*\bx="([\d.]+)"[^>]*clip-path="url\(#[\w-]*-line-(\d+)\)">(.*?)</text>')
_SVG_CHAR_WIDTH = 12.2  # Rich's SVG export: 0.61 x a 20px font per cell


def screen_text(app: Any) -> str:
    """Everything on the terminal right now (dialogs, titles, footer included), one line per
    row, read from the app's own screenshot: what the user sees, whatever drew it."""
    rows: dict[int, str] = {}
    for x, row, text in _SVG_TEXT.findall(app.export_screenshot()):
        line = rows.get(int(row), "")
        rows[int(row)] = line.ljust(round(float(x) / _SVG_CHAR_WIDTH)) + html.unescape(text).replace(
            "\xa0", " "
        )
    return "\n".join(rows.get(r, "") for r in range(max(rows, default=-1) + 1))


class Scanner:
    """Scans what the current screen would send to the terminal: every segment of every
    line the compositor renders. Remembers the text of each view for later checks."""

    def __init__(self, app: Any, pilot: Any) -> None:
        self.app, self.pilot = app, pilot
        self.views: dict[str, str] = {}

    async def __call__(self, what: str) -> str:
        await self.pilot.pause()
        lines = []
        for y, strip in enumerate(self.app.screen._compositor.render_strips()):
            for segment in strip:
                bad = RAW_CONTROL.findall(segment.text)  # not even a newline inside a line
                assert not bad, f"{what}: raw {bad!r} on screen line {y}: {segment.text!r}"
            lines.append(strip.text)
        self.views[what] = text = "\n".join(lines)
        return text
