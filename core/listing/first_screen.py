"""The warm-start policy: what the browser's first frame lists and opens, and what comes after.

The first frame should wait for as little as possible. With a usable index cache the listing
is the cache's, taken without looking at the other files (`first_listing`: a stat each) when
the sessions shown first are as the cache says on disk; it is checked right after that frame
(`Then.CHECK`). Else a quick scan lists everything before the first frame when there is little
to read (`QUICK_SCAN_BYTES`), or a full scan in a thread lists it after (`Then.SCAN`). The
first session is opened by itself; once the cached listing is checked it is opened again if
another session became the newest and the user has not moved yet (`reopen_after_check`).

What the first listing makes lives as long as the app: it is frozen (`freeze_long_lived`), no
cyclic collection walks it again. The screen (app/main_screen.py) only applies the answers.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from ..common.gcpause import paused_gc
from .sidebar_rows import SessionRow, SidebarRow
from .store import Listing, SessionStore
from .summary import SessionSummary

QUICK_SCAN_BYTES = 4 * 1024 * 1024  # up to this much to read, the first listing is done inline
FIRST_ROWS = 60  # rows of the sidebar checked on disk before a first screen from the cache, at least
WATCH_AFTER_SECONDS = 0.5  # the watch starts this long after the first listing
FIRST_SESSION_WAIT = 0.3  # the first frame waits this long at most for the first session


class Then(StrEnum):
    """What follows the first listing."""

    WATCH = "watch"  # the listing was compared with the disk: the watch starts (a moment later)
    CHECK = "check"  # the cache's listing, shown unchecked: every file is compared after the frame
    SCAN = "scan"  # nothing listed yet: a full scan in a thread lists it


@dataclass(frozen=True, slots=True)
class FirstListing:
    """What the first frame lists (`listing` None: nothing, `then` is SCAN)."""

    then: Then
    listing: Listing | None = None
    rows: list[SidebarRow] | None = None  # the sidebar's rows of it, made already (from the cache)
    cache_problem: str | None = None


RowsFor = Callable[[Sequence[SessionSummary]], list[SidebarRow]]


def freeze_long_lived() -> None:
    """What is alive now lives as long as the app (a listing, the search index): collections
    stop walking it (with many sessions a full collection walking them pauses drawing)."""
    gc.freeze()


def first_listing(
    store: SessionStore,
    *,
    open_path: str | None,
    rows_for: RowsFor,
    shown: int,
    show: Callable[[FirstListing], None],
) -> FirstListing:
    """The listing the first frame shows, handed to `show` (unless it is SCAN) while the
    collector is paused, then frozen. `rows_for` makes the sidebar's rows of a listing,
    `shown` is how many the first frame may show (FIRST_ROWS at least are checked)."""
    with paused_gc():
        first = _from_cache(store, open_path, rows_for, max(shown, FIRST_ROWS))
        if first is None:
            report = store.scan(read_limit=QUICK_SCAN_BYTES)
            if report is None:
                return FirstListing(Then.SCAN)
            first = FirstListing(Then.WATCH, store.listing(), cache_problem=report.cache_problem)
        show(first)
        freeze_long_lived()
    return first


def _from_cache(
    store: SessionStore, open_path: str | None, rows_for: RowsFor, shown: int
) -> FirstListing | None:
    """The cache's listing, if no session was created, deleted or renamed since and the first
    `shown` rows are as the cache says on disk. Nothing is listed unless it is taken: the
    scan's listing puts the cursor on its own top row."""
    if open_path or not store.load_cached():
        return None  # (a session to open: its row may be anywhere in the list)
    listing = store.listing()
    if not listing.summaries:
        return None
    rows = rows_for(listing.summaries)
    if store.stale([row.summary.path for row in rows[:shown] if isinstance(row, SessionRow)]):
        return None  # (the scan reads what changed and lists it)
    return FirstListing(Then.CHECK, listing, rows)


class FirstScreen:
    """Which session the first screen opens by itself, and whether the user has moved since."""

    def __init__(self, open_path: str | None) -> None:
        self.open_path = os.path.abspath(open_path) if open_path else None  # asked for on the command line
        self.first_opened: str | None = None  # the session the first screen opened by itself
        self.user_acted = False  # a key pressed, a click or a scroll since the start

    def to_open(self, current: str | None) -> str | None:
        """With the sidebar's cursor on `current` (its first session): the session to open,
        unless it is open already (None)."""
        if current is None or current == self.first_opened:
            return None
        self.first_opened = current
        return current

    def reopen_after_check(self, current: str | None) -> bool:
        """The checked listing is shown with the cursor on `current`: the first screen opens the
        newest session again, as a full scan's first listing would have (e.g. an old session
        resumed since), if the user has not moved yet."""
        return not self.user_acted and current is not None and current == self.first_opened
