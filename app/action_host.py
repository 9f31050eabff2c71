"""What the action flows (app/actions.py, app/export_flows.py) need from the screen they run on:
what is open and selected, the settings, the status line, dialogs, and `after_external_change`."""

from __future__ import annotations

from typing import Protocol, TypeVar

from textual.notifications import SeverityLevel
from textual.screen import Screen

from ..core.common.glyphs import Glyphs
from ..core.common.locations import SessionsRoot
from ..core.listing.summary import SessionSummary
from ..core.session.session import Session
from .config import Settings

T = TypeVar("T")


class ActionHost(Protocol):
    """What the actions need from the screen they run on."""

    @property
    def settings(self) -> Settings: ...
    @property
    def root(self) -> SessionsRoot: ...
    @property
    def current_cwd(self) -> str: ...
    @property
    def glyphs(self) -> Glyphs: ...
    @property
    def session(self) -> Session | None:
        """The open session."""

    @property
    def context_leaf(self) -> str | None:
        """The entry whose context is shown."""

    def selected_entry(self) -> str | None:
        """The entry under the tree's cursor."""

    def selected_summary(self) -> SessionSummary | None:
        """The session under the sidebar's cursor."""

    def is_live(self, path: str) -> bool:
        """Another writer (a pi) appended to `path` moments ago."""

    def set_status(self, text: str, *, error: bool = False) -> None: ...
    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
    ) -> None: ...
    async def push_screen_wait(self, screen: Screen[T]) -> T:
        """Show `screen` and wait for what it is dismissed with."""

    async def after_external_change(
        self, path: str, *, select_session: str | None = None, by_us: bool = True
    ) -> None:
        """We wrote, moved or ran something on `path` (`by_us=False`: we found that someone else
        did): every pane and count is current when this returns (with `select_session`, that
        session is selected and open)."""

    def run_in_terminal(self, argv: list[str], cwd: str) -> int:
        """Hand the terminal to `argv` and come back: its exit status (OSError if it cannot run)."""

    def exit_app(self) -> None: ...
    def osc52_from_thread(self, text: str) -> None:
        """From a worker thread: put `text` on the terminal's clipboard (OSC 52)."""
