"""The tree's cache-break markers: which replies of the shown session lost the prompt cache
(core/projection/cache_breaks.py's `tree_cache_breaks`, which reads every reply's usage once),
built as the tree is drawn for a small session and in a worker thread for a big one, then kept
up to date as a live session grows. The tree only asks `get`."""

from __future__ import annotations

from textual.widget import Widget
from textual.worker import get_current_worker

from ..core.common.problems import SessionError
from ..core.projection.cache_breaks import CacheBreak, TreeCacheBreaks, tree_cache_breaks
from ..core.session.session import Session

SYNC_BREAKS = 5000  # entries: up to this many, the breaks are found as the tree is drawn


class TreeBreakMarks:
    def __init__(self, owner: Widget) -> None:
        self.owner = owner
        self.breaks: TreeCacheBreaks | None = None
        self.session: Session | None = None  # the session `breaks` is of
        self.pending = False  # being found in a worker thread

    def clear(self) -> None:
        self.breaks = self.session = None

    def get(self, session: Session | None, entry_id: str) -> CacheBreak | None:
        """The break at `entry_id` (None: none, or not known yet)."""
        if session is None:
            return None
        breaks = self.breaks
        if self.session is session:
            if breaks is None:
                return None  # could not be read: not again for this session
            if (breaks.generation, breaks.tree_version) == (session.generation, session.tree_version):
                self.breaks = breaks = breaks.current(session)  # entries appended since: added
                return breaks.get(entry_id)
        if len(session.records) <= SYNC_BREAKS:
            self.breaks, self.session = self._find(session), session
            return self.breaks.get(entry_id) if self.breaks is not None else None
        if not self.pending:
            self.pending = True
            self.owner.run_worker(
                lambda: self._build(session),
                thread=True,
                group="cache-breaks",
                exclusive=True,
                exit_on_error=False,
            )
        return None

    @staticmethod
    def _find(session: Session) -> TreeCacheBreaks | None:
        try:
            return tree_cache_breaks(session)
        except (SessionError, OSError, RuntimeError, KeyError, ValueError):
            return None  # unreadable now, or the loop changed the session meanwhile: next time

    def _build(self, session: Session) -> None:
        found = self._find(session)
        if not get_current_worker().is_cancelled:
            self.owner.app.call_from_thread(self._built, session, found)

    def _built(self, session: Session, found: TreeCacheBreaks | None) -> None:
        self.pending = False
        self.breaks, self.session = found, session
        self.owner.refresh()
