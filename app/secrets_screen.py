"""The secrets view (`K`): every secret the audit finds in the open session (core/audit), with its
kind, a preview (never the value), its fate at the default leaf and what brought it in; `a`
switches to every listed session (read through the audit's cache). Enter answers the finding
chosen (the main screen lands on its entry), escape None.

The audit runs in a worker thread; the first frame never waits for it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.worker import Worker, WorkerState, get_current_worker

from ..core.audit.scan import Finding
from ..core.common.problems import SessionError
from ..core.common.text import counted
from ..widgets.glyphs import glyphs_of
from ..widgets.keys import bindings
from ..widgets.plain import FitStatic
from ..widgets.rowlist import RowList
from ..widgets.secret_list import SecretList
from .keymap import hint
from .screens import live_keys


class SecretsScreen(Screen[Finding | None]):
    DEFAULT_CSS = """
    SecretsScreen { layout: vertical; }
    #secrets-list { height: 1fr; background: $background; }
    SecretList > .secretlist--kind { color: $accent; }
    SecretList > .secretlist--dim { color: $text-muted; }
    SecretList > .secretlist--live { color: $warning; }
    #secrets-hint { height: 1; background: $panel; color: $text-muted; padding: 0 1; }
    """
    BINDINGS = bindings("secrets")

    def __init__(
        self,
        session_path: str | None,
        session_title: str,
        all_paths: Callable[[], Sequence[str]],
        cache_dir: Path | None = None,
        titles: Callable[[], Mapping[str, str]] | None = None,
    ) -> None:
        super().__init__()
        self.session_path = session_path  # None: no session open, every session is shown
        self.session_title = session_title
        self.all_paths = all_paths  # the listed sessions' files (asked when `a` is pressed)
        self.cache_dir = cache_dir  # the audit cache's folder (None: the default cache folder)
        self.titles = titles
        self.every = session_path is None
        self.rows: list[Finding] | None = None  # None while read
        self.progress: tuple[int, int] | None = None

    def compose(self) -> ComposeResult:
        yield FitStatic(self._title(), id="secrets-title", classes="pane-title")
        yield SecretList(id="secrets-list")
        keys = live_keys(self)  # type: ignore[arg-type]
        yield FitStatic(
            hint(
                keys,
                [
                    ("list.open", "go to the entry"),
                    ("secrets.scope", "this session / every session"),
                    ("secrets.close", "back"),
                ],
            ),
            id="secrets-hint",
        )

    @property
    def secret_list(self) -> SecretList:
        return self.query_one(SecretList)

    def on_mount(self) -> None:
        self.secret_list.focus()
        self._start()

    def _start(self) -> None:
        self.rows, self.progress = None, None
        self.secret_list.show_session = self.every
        self.secret_list.show_note(f"reading{glyphs_of(self).ellipsis}")
        self._update_title()
        paths = list(self.all_paths()) if self.every else [self.session_path or ""]
        self._read(paths, self.every)

    # ------------------------------------------------------------------ reading
    @work(thread=True, exclusive=True, group="secrets", exit_on_error=False)
    def _read(self, paths: list[str], every: bool) -> None:
        from ..core.audit.scan import audit_file
        from .config import load_secrets_allow

        worker = get_current_worker()
        allow = load_secrets_allow()
        rows: list[Finding] = []
        if not every:
            rows = audit_file(paths[0], allow).findings
        else:
            from ..core.audit.cache import CACHE_NAME, audit_with_cache
            from ..core.listing.index_cache import default_cache_dir

            cache = (self.cache_dir or default_cache_dir()) / CACHE_NAME
            for done, findings in enumerate(audit_with_cache(paths, allow, cache), 1):
                if worker.is_cancelled:
                    return
                rows += findings
                if done % 50 == 0:
                    self.app.call_from_thread(self._progressed, done, len(paths))
        if not worker.is_cancelled:
            self.app.call_from_thread(self._take, rows, every)

    def _progressed(self, done: int, total: int) -> None:
        self.progress = (done, total)
        self._update_title()

    def _take(self, rows: list[Finding], every: bool) -> None:
        if every != self.every:
            return  # (the scope changed meanwhile: its own read follows)
        self.rows, self.progress = rows, None
        if every and self.titles is not None:
            self.secret_list.titles = self.titles()
        where = "these sessions" if every else "this session"
        self.secret_list.set_rows(rows, f"No secret found in {where}.")
        self._update_title()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            error = event.worker.error
            known = isinstance(error, (SessionError, OSError))
            why = str(error) if known else f"{type(error).__name__}: {error}"
            self.secret_list.show_note(f"the audit failed: {why}")

    def _title(self) -> str:
        g = glyphs_of(self)
        dot = f" {g.dot} "
        title = "Secrets in every listed session" if self.every else f"Secrets in {self.session_title}"
        if self.rows is not None:
            title += f"{dot}{counted(len(self.rows), 'finding')}"
            kinds = sorted({row.kind for row in self.rows})
            if kinds:
                title += f"{dot}{', '.join(kinds)}"
        elif self.progress is not None:
            done, total = self.progress
            title += f"{dot}reading{g.ellipsis} {done:,}/{total:,} sessions"
        else:
            title += f"{dot}reading{g.ellipsis}"
        return title

    def _update_title(self) -> None:
        self.query_one("#secrets-title", FitStatic).update(self._title())

    # ------------------------------------------------------------------ keys
    @on(RowList.Activated)
    def _activated(self, event: RowList.Activated) -> None:
        event.stop()
        row = self.secret_list.current()
        if row is not None:
            self.workers.cancel_group(self, "secrets")
            self.dismiss(row)

    def action_scope(self) -> None:
        if self.session_path is None:
            return  # (no session open: every session is all there is)
        self.workers.cancel_group(self, "secrets")
        self.every = not self.every
        self._start()

    def action_close(self) -> None:
        self.workers.cancel_group(self, "secrets")
        self.dismiss(None)
