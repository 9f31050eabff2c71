"""Pin, archive and tag the session under the sidebar's cursor: the side file beside
config.toml (core/writing/marks_file.py, never the session file), then the sidebar again.

Pinned sessions come first in their folder's group; archived ones leave the list (a search
with `is:archived` finds them); `tag:NAME` in the search keeps the sessions tagged NAME. The
marks are read when the screen starts and again, whole, after every change: a change merged
under the lock brings what another browser changed meanwhile too.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Protocol, TypeVar

from textual.notifications import SeverityLevel
from textual.screen import Screen

from ..core.common.problems import SessionError
from ..core.common.text import one_line
from ..core.listing.marks import MARKS_FILE, MarkChange, MarkError, Marks
from ..core.listing.summary import SessionSummary
from ..widgets.sidebar import SessionSidebar

T = TypeVar("T")
MARK_FLOWS = ("pin", "archive", "tag")  # the flows a binding names (`flow('pin')`), here


def marks_path() -> Path:
    """The side file: beside config.toml, in our config folder."""
    from .config import config_path

    return config_path().parent / MARKS_FILE


def load_marks(sidebar: SessionSidebar) -> str | None:
    """Give the sidebar the marks on disk (before its first rows); a problem as one line."""
    from ..core.writing.marks_file import read_marks

    try:
        sidebar.marks = sidebar.session_list.marks = read_marks(marks_path())
    except (MarkError, OSError) as e:
        return f"pins and tags not read: {getattr(e, 'strerror', None) or e}"
    return None


class MarkHost(Protocol):
    """What the flows need from the screen (MainScreen is one)."""

    @property
    def sidebar(self) -> SessionSidebar: ...
    def selected_summary(self) -> SessionSummary | None: ...
    def set_status(self, text: str, *, error: bool = False) -> None: ...
    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
    ) -> None: ...
    async def push_screen_wait(self, screen: Screen[T]) -> T: ...


class MarkActions:
    def __init__(self, host: MarkHost) -> None:
        self.host = host

    def _target(self) -> tuple[SessionSummary, str] | None:
        summary = self.host.selected_summary()
        if summary is None:
            self.host.notify("no session selected", severity="warning")
            return None
        if not isinstance(summary.id, str) or not summary.id:
            self.host.set_status("this session's header has no id: it cannot be marked", error=True)
            return None
        return summary, summary.id

    async def pin(self) -> None:
        """Pin the session to the top of its group, or unpin it."""
        target = self._target()
        if target is not None:
            pinned = not self.host.sidebar.marks.of(target[1]).pinned
            await self._change(target, MarkChange(pinned=pinned), "pinned" if pinned else "unpinned")

    async def archive(self) -> None:
        """Archive the session (it leaves the list; `is:archived` finds it), or bring it back."""
        target = self._target()
        if target is not None:
            archived = not self.host.sidebar.marks.of(target[1]).archived
            what = "archived (search is:archived to see it)" if archived else "unarchived"
            await self._change(target, MarkChange(archived=archived), what)

    async def tag(self) -> None:
        """Edit the session's tags in a small input: the words there are its tags."""
        from ..core.listing.marks import normalize_tag
        from .screens import PromptScreen

        target = self._target()
        if target is None:
            return
        before = self.host.sidebar.marks.of(target[1]).tags
        prompt = PromptScreen(
            f"Tags of {one_line(target[0].title, 120)}",
            value=" ".join(before),
            placeholder="auth bug wip",
            detail="Words separated by spaces; empty clears them. "
            "`tag:NAME` in the search keeps the tagged sessions.",
        )
        value = await self.host.push_screen_wait(prompt)
        if value is None:
            return
        try:
            after = {normalize_tag(word) for word in value.split()}
        except MarkError as e:
            self.host.set_status(str(e), error=True)
            return
        # Only what the user changed: a tag another browser added meanwhile stays.
        added, removed = sorted(after - set(before)), sorted(set(before) - after)
        change = MarkChange(add_tags=tuple(added), remove_tags=tuple(removed))
        await self._change(target, change, "tags " + (" ".join(sorted(after)) or "cleared"))

    async def _change(self, target: tuple[SessionSummary, str], change: MarkChange, what: str) -> None:
        from ..core.writing.marks_file import update_marks

        summary, session_id = target
        host = self.host
        try:
            path = marks_path()
            marks: Marks = await asyncio.to_thread(update_marks, path, session_id, change, summary.path)
        except (MarkError, SessionError, OSError) as e:
            host.set_status(f"not changed: {getattr(e, 'strerror', None) or e}", error=True)
            return
        host.sidebar.set_marks(marks)
        host.set_status(f"{one_line(summary.title, 120)}: {what}")
