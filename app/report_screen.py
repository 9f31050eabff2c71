"""A report over one session at the selected entry (the compaction audit, the size doctor): read
in a worker thread while the dialog says so, then shown line by line, scrollable.

A subclass says what its title and keys are and builds its lines from core's figures
(`build`, run in the thread). The thread only reads; if the session changed meanwhile (a live
append, a reload), the report is read again, so what is shown matches one state of the file.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.worker import Worker, get_current_worker

from ..core.common.glyphs import Glyphs
from ..core.common.problems import SessionError
from ..core.session.session import Session
from ..widgets.glyphs import glyphs_of
from ..widgets.plain import PlainStatic
from ..widgets.worker_failures import tell_failure
from .keymap import hint
from .screens import live_keys

READ_TRIES = 3  # a session that keeps changing is shown as the last try read it


class ReportLine(NamedTuple):
    text: str
    kind: str = ""  # "", "lead", "heading", "dim", "warning", "hint": a CSS class of the line


class ReportScreen(ModalScreen[str | None]):
    DEFAULT_CSS = """
    ReportScreen #report-box { height: auto; max-height: 90%; }
    ReportScreen #report-lines { height: auto; max-height: 65vh; }
    ReportScreen .lead { text-style: bold; color: $secondary; }
    ReportScreen .heading { text-style: bold; color: $secondary; padding-top: 1; }
    ReportScreen .warning { color: $warning; }
    ReportScreen .dim { color: $text-muted; }
    ReportScreen .hint { color: $accent; }
    """
    KEYS: tuple[tuple[str, str], ...] = ()  # (binding id, what it does) for the hint line

    def __init__(self, title: str, session: Session, leaf: str) -> None:
        super().__init__()
        self.title_text = title
        self.session = session
        self.leaf = leaf
        self.lines: list[ReportLine] = []
        self.ready = False  # the lines are shown

    def compose(self) -> ComposeResult:
        with Vertical(id="report-box", classes="dialog"):
            yield PlainStatic(self.title_text, classes="dialog-title")
            with VerticalScroll(id="report-lines"):
                yield PlainStatic(f"reading{glyphs_of(self).ellipsis}", classes="dim")
            yield PlainStatic(hint(live_keys(self), list(self.KEYS)), classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one("#report-lines", VerticalScroll).focus()
        self._read(glyphs_of(self))

    def build(self, glyphs: Glyphs) -> list[ReportLine]:
        """The report's lines (in a worker thread: read the session, never change it)."""
        raise NotImplementedError

    def _version(self) -> tuple[int, int, int]:
        session = self.session
        return session.generation, session.tree_version, len(session.records)

    @work(thread=True, exclusive=True, group="report", exit_on_error=False)
    def _read(self, glyphs: Glyphs) -> None:
        lines: list[ReportLine] = []
        for _ in range(READ_TRIES):
            version = self._version()
            try:
                lines = self.build(glyphs)
            except (SessionError, OSError, ValueError, KeyError, RuntimeError) as e:
                lines = [ReportLine(f"Cannot read this session: {e}", "warning")]
            if version == self._version():
                break
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self.show_lines, lines)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if tell_failure(self, event, "Reading the report") and self.is_attached:
            self.show_lines([ReportLine(f"Cannot read this session: {event.worker.error}", "warning")])

    def show_lines(self, lines: list[ReportLine]) -> None:
        self.lines = lines
        box = self.query_one("#report-lines", VerticalScroll)
        box.remove_children()
        box.mount_all([PlainStatic(line.text, classes=line.kind or None) for line in lines])
        box.scroll_home(animate=False)
        self.ready = True

    def text(self) -> str:
        return "\n".join(line.text for line in self.lines)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_choose(self, choice: Any) -> None:
        self.dismiss(str(choice))
