"""Following the sessions folder live: file system changes turned into session events.

One `watchfiles.awatch` over the whole folder (recursive) reports changed paths; each batch is
coalesced per file and handed to the store, which reads only the bytes appended since its last
look. The result is a list of `StoreEvent`s: a session appeared, grew, was replaced (truncated,
rewritten, new inode: read again), vanished, or was renamed. Sessions opened with `track()`
are refreshed in the same pass, so their tree and totals follow without re-reading the file.

When the OS watcher cannot start (no inotify watches left, an unsupported filesystem) the
watcher falls back to polling and says so in `notice`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from .listing import SessionSummary
from .locations import iter_session_files
from .problems import SessionError
from .session import AppendResult, Session
from .store import FileChange, IndexEntry, SessionStore

DEBOUNCE_MS = 50
STEP_MS = 25
POLL_DELAY_MS = 250


class EventKind(StrEnum):
    APPEARED = "appeared"
    GREW = "grew"
    REPLACED = "replaced"
    VANISHED = "vanished"
    RENAMED = "renamed"


@dataclass(slots=True)
class StoreEvent:
    kind: EventKind
    path: str
    old_path: str | None = None  # for RENAMED
    summary: SessionSummary | None = None  # None once vanished (or not a session)
    session: Session | None = None  # a tracked session that was refreshed
    append: AppendResult | None = None  # what the refresh of a tracked session changed
    error: str | None = None  # a tracked session that can no longer be read


def is_session_file(path: str) -> bool:
    return path.endswith(".jsonl")


@dataclass
class SessionWatcher:
    """Turns file system notifications under `store.root` into `StoreEvent` batches."""

    store: SessionStore
    poll: bool = False
    debounce_ms: int = DEBOUNCE_MS
    step_ms: int = STEP_MS
    notice: str | None = None
    tracked: dict[str, Session] = field(default_factory=dict)
    # Called with every coalesced batch of paths, events or not (tests wait on it).
    on_batch: Callable[[set[str]], None] | None = None
    _stop: asyncio.Event | None = None

    def track(self, session: Session) -> None:
        if session.path:
            self.tracked[os.path.abspath(session.path)] = session

    def untrack(self, session: Session) -> None:
        if session.path:
            self.tracked.pop(os.path.abspath(session.path), None)

    @property
    def running(self) -> bool:
        """`events()` has started and has not been stopped."""
        return self._stop is not None and not self._stop.is_set()

    def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    def apply(self, paths: Iterable[str]) -> list[StoreEvent]:
        """Bring the store (and tracked sessions) up to date for these paths; one event per
        file that changed, a vanish and an appearance of the same inode paired as a rename."""
        unique = sorted(_session_paths(paths))
        before = {p: _identity(e) for p in unique if (e := self.store.entries.get(p)) is not None}
        changes: dict[str, FileChange] = {}
        refreshed: dict[str, tuple[AppendResult | None, str | None]] = {}
        for path in unique:
            change = self.store.update(path)
            if path in self.tracked and change is not FileChange.VANISHED:
                # An open session reads the new bytes itself (a partial line stays pending).
                refreshed[path] = self._refresh(self.tracked[path])
                append, error = refreshed[path]
                if change is FileChange.UNCHANGED and (error or (append is not None and append.changed)):
                    change = FileChange.GREW
            if change is not FileChange.UNCHANGED:
                changes[path] = change
        events: list[StoreEvent] = []
        vanished = {p: before.get(p) for p, c in changes.items() if c is FileChange.VANISHED}
        for path, change in changes.items():
            if change is FileChange.VANISHED:
                continue
            if change is FileChange.APPEARED:
                # A rename: the same inode, holding the same session, under a new name. (An
                # inode alone is not enough: filesystems reuse a deleted file's inode.)
                entry = self.store.entries.get(path)
                identity = _identity(entry) if entry is not None else None
                old = next(
                    (p for p, ident in vanished.items() if identity is not None and ident == identity), None
                )
                if old is not None:
                    del vanished[old]
                    self._retrack(old, path)
                    event = StoreEvent(
                        EventKind.RENAMED, path, old_path=old, summary=self.store.summary(path)
                    )
                    session = self.tracked.get(path)
                    if session is not None:
                        event.session = session
                        event.append, event.error = self._refresh(session)
                    events.append(event)
                    continue
            kind = {
                FileChange.APPEARED: EventKind.APPEARED,
                FileChange.GREW: EventKind.GREW,
                FileChange.REPLACED: EventKind.REPLACED,
            }[change]
            event = StoreEvent(kind, path, summary=self.store.summary(path))
            if path in refreshed:
                event.session = self.tracked.get(path)
                event.append, event.error = refreshed[path]
            events.append(event)
        for path in vanished:
            event = StoreEvent(EventKind.VANISHED, path)
            session = self.tracked.get(path)
            if session is not None:
                event.session = session
                event.error = "the file is gone"
            events.append(event)
        return events

    def _retrack(self, old: str, new: str) -> None:
        session = self.tracked.pop(old, None)
        if session is not None:
            session.path = new
            session.source.path = new  # type: ignore[attr-defined]
            self.tracked[new] = session

    @staticmethod
    def _refresh(session: Session) -> tuple[AppendResult | None, str | None]:
        try:
            return session.refresh(), None
        except (SessionError, OSError) as e:
            return None, str(e)

    async def events(self) -> AsyncIterator[list[StoreEvent]]:
        """Batches of events, forever (until `stop()`)."""
        self._stop = asyncio.Event()
        root = self.store.root
        while not self._stop.is_set():
            if not os.path.isdir(root):
                # Nothing to watch yet: wait for pi to create the folder.
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stop.wait(), timeout=1.0)
                continue
            source = self._polled() if self.poll else self._notified()
            try:
                async for paths in source:
                    events = self.apply(paths)
                    if self.on_batch is not None:
                        self.on_batch(paths)
                    if events:
                        yield events
            except (OSError, RuntimeError, ExceptionGroup) as e:
                # (watchfiles raises from a task group: a file name that is not UTF-8, say)
                if self.poll:
                    raise
                self.poll = True
                cause = e.exceptions[0] if isinstance(e, ExceptionGroup) and e.exceptions else e
                reason = f"file notifications unavailable ({cause})"
                self.notice = f"{reason}; polling files every {POLL_DELAY_MS} ms instead"
                continue
            if not os.path.isdir(root):
                continue  # the folder went away: wait for it again
            break

    async def _notified(self) -> AsyncIterator[set[str]]:
        import watchfiles

        caught_up = False
        async for changes in watchfiles.awatch(
            self.store.root,
            watch_filter=_jsonl_filter,
            debounce=self.debounce_ms,
            step=self.step_ms,
            stop_event=self._stop,
            recursive=True,
            rust_timeout=1000,
            yield_on_timeout=True,
        ):
            if changes:
                yield {path for _, path in changes}
            elif not caught_up:
                # The first quiet second proves the OS watch is in place: whatever changed
                # between the listing and now is found by comparing every file once.
                caught_up = True
                yield self._changed_on_disk()

    async def _polled(self) -> AsyncIterator[set[str]]:
        """Our own polling: stat every session file and compare size, mtime (ns) and inode
        with the index. (watchfiles' poller compares whole-second mtimes and misses a second
        append within the same second.)"""
        assert self._stop is not None
        while not self._stop.is_set():
            started = time.perf_counter()
            changed = self._changed_on_disk()
            if changed:
                yield changed
            spent = time.perf_counter() - started
            delay = max(POLL_DELAY_MS / 1000, spent * 20)  # at most ~5% of a core on huge folders
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), timeout=delay)

    def _changed_on_disk(self) -> set[str]:
        entries = self.store.entries
        seen: set[str] = set()
        changed: set[str] = set()
        for path in iter_session_files(self.store.root):
            seen.add(path)
            entry = entries.get(path)
            try:
                st = os.stat(path)
            except OSError:
                continue
            if (
                entry is None
                or not entry.matches(st)
                or (
                    path in self.tracked
                    and self.tracked[path].end_offset + self.tracked[path].pending_bytes < st.st_size
                )
            ):
                changed.add(path)
        changed.update(p for p in entries if p not in seen)
        return changed


def _identity(entry: IndexEntry) -> tuple[int, object]:
    header = entry.builder.header if entry.builder is not None else None
    return entry.inode, header.get("id") if header else None


def _jsonl_filter(change: object, path: str) -> bool:
    # Folders too: a file written right after its folder was created can beat the OS watch
    # on that new folder, so a new folder is listed when its own event comes in.
    return is_session_file(path) or os.path.isdir(path)


def _session_paths(paths: Iterable[str]) -> set[str]:
    found: set[str] = set()
    for path in paths:
        if is_session_file(path):
            found.add(os.path.abspath(path))
        elif os.path.isdir(path):
            try:
                found.update(e.path for e in os.scandir(path) if is_session_file(e.name) and e.is_file())
            except OSError:
                continue
    return found
