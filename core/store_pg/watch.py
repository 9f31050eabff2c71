"""`push --watch`: after the first push, each file pi appends to or writes is pushed again as it changes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..listing.store import SessionStore
from ..live.watch import EventKind, SessionWatcher
from .push import PushReport, push
from .pushplan import Redact, RedactFor

if TYPE_CHECKING:
    from .connect import Connection

_PUSHED = (EventKind.APPEARED, EventKind.GREW, EventKind.REPLACED, EventKind.RENAMED)


async def push_forever(
    connection: Connection,
    root: str,
    host: str,
    on_report: Callable[[PushReport, bool], None],
    redact: Redact | None = None,
    watcher: SessionWatcher | None = None,
    redact_for: RedactFor | None = None,
) -> None:
    """Push every file, then the files the watcher (core/live/watch.py: OS notifications, else
    polling) reports as appeared, grown, replaced or renamed, a batch at a time, until it is
    stopped; `on_report(report, first)` after each push. The watcher's store is read before
    the first push: a change after that read is an event, one before it is in the first
    push. A line pi has not finished makes no event: it goes once its newline is written."""
    if watcher is None:
        store = SessionStore(root)
        await asyncio.to_thread(store.scan)
        watcher = SessionWatcher(store)
    on_report(await asyncio.to_thread(push, connection, root, host, redact, redact_for=redact_for), True)
    async for batch in watcher.events():
        paths = sorted({event.path for event in batch if event.kind in _PUSHED})
        if paths:
            report = await asyncio.to_thread(
                push, connection, root, host, redact, paths, redact_for=redact_for
            )
            on_report(report, False)
