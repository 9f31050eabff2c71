"""The snapshot tests' demo (tests/snapshot/): the bundled demo sessions in a private folder,
with everything a picture depends on pinned (`pinned`), and an app over them (`demo_app`).

Pinned: the clock (ages), HOME (`~` in folder names), TZ, the working directory, the terminal's
environment (NO_COLOR, COLORTERM, TEXTUAL_*), and the folder the demo is copied to (its path is
on screen: a private folder under /tmp, shown as one fixed name of the same length).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pi_sessions.app.config import Settings
from pi_sessions.app.demo import prepare_demo
from pi_sessions.app.tui import PiSessionsApp
from pi_sessions.core.common.locations import SessionsRoot
from pi_sessions.core.writing import fork as fork_module
from pi_sessions.widgets import sidebar
from textual import constants

from tests.helpers.app import loaded

NOW = 1767225600.0  # 2026-01-01T00:00:00Z: ages are computed against this
HOME = "/home/u"  # the demo's sessions live under it: folder names show as ~/...
# The demo is copied to /tmp/pi-snap-XXXXXXXX (mkdtemp: 8 random characters) and pictured as:
SHOWN_ROOT = "/tmp/pi-snap-snapshot"
TERMINAL_ENV = ("NO_COLOR", "FORCE_COLOR", "COLORTERM", "COLUMNS", "LINES")


@pytest.fixture
def pinned(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Pin what the screen depends on; yields the private folder the demo goes to."""
    monkeypatch.setattr(sidebar, "clock", lambda: NOW)
    # A fork's file name holds the time and a random session id.
    monkeypatch.setattr(fork_module, "time", SimpleNamespace(time=lambda: NOW))
    monkeypatch.setattr(
        fork_module, "secrets", SimpleNamespace(token_bytes=bytes, token_hex=lambda n: "5a" * n)
    )
    for name in list(os.environ):
        if (name.startswith("TEXTUAL_") and not name.startswith("TEXTUAL_SNAPSHOT")) or name in TERMINAL_ENV:
            monkeypatch.delenv(name)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("HOME", HOME)
    # Textual reads these when it is imported; the app reads them when it is built.
    monkeypatch.setattr(constants, "COLOR_SYSTEM", "truecolor")
    monkeypatch.setattr(constants, "FILTERS", "")
    monkeypatch.setattr(constants, "TEXTUAL_ANIMATIONS", "none")
    folder = Path(tempfile.mkdtemp(prefix="pi-snap-", dir="/tmp"))
    assert len(str(folder)) == len(SHOWN_ROOT), folder
    monkeypatch.chdir(folder)  # "the current directory" in some dialogs
    old_tz = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    try:
        yield folder
    finally:
        if old_tz is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = old_tz
        time.tzset()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def demo_app(pinned: Path, tmp_path: Path) -> Any:
    sessions = prepare_demo(pinned)

    def make(
        open_file: str | None = None,
        *,
        app_class: type[PiSessionsApp] = PiSessionsApp,
        root: Path = sessions,
        **settings: Any,
    ) -> PiSessionsApp:
        app = app_class(
            Settings(**settings),
            SessionsRoot(str(root), "the demo", True),
            open_path=str(root / open_file) if open_file else None,
            current_cwd="/home/u/proj-a",
            cache_dir=str(tmp_path / "cache"),
        )
        export = app.export_screenshot

        def export_pinned(**kwargs: Any) -> str:
            shown = export(**kwargs).replace(str(pinned), SHOWN_ROOT)
            # A path shortened from its middle to fit (the status line) keeps a piece of the
            # folder's random name before its ellipsis: pictured as the same piece of ours.
            for end in range(len(SHOWN_ROOT) - 1, len("/tmp/pi-snap-"), -1):
                shown = shown.replace(f"{str(pinned)[:end]}…", f"{SHOWN_ROOT[:end]}…")
            return shown

        app.export_screenshot = export_pinned  # type: ignore[method-assign]
        return app

    make.sessions = sessions  # type: ignore[attr-defined]
    return make


async def ready(pilot: Any) -> None:
    """The demo listed and its first session shown, the frame after drawn."""
    await loaded(pilot)
    await pilot.pause()
