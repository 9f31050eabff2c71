"""Following the sessions folder live: file system changes turned into session events.

One `watchfiles.awatch` over the whole folder (recursive) reports changed paths; each batch is
coalesced per file and goes one way (`process`): in a worker thread, every changed file is
looked at once (`core/reading/growth.py`): the store's summary and an open session that follow it
share that one read of the new bytes, which the session decodes there too; back on the event
loop, the open sessions take in what was read for them (cheap: no file work). The result is a
`StoreBatch`: one `StoreEvent` per file that appeared, grew, was replaced (truncated,
rewritten, new inode: read again), vanished, or was renamed, and the listing after them.

When the OS watcher cannot start (no inotify watches left, an unsupported filesystem) the
watcher falls back to polling and says so in `notice`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum

from ..common.locations import iter_session_files
from ..common.problems import SessionError
from ..listing.index_cache import IndexEntry
from ..listing.store import FileChange, Listing, SessionStore
from ..listing.summary import SessionSummary
from ..reading.growth import Growth, read_growth
from ..session.session import Session, SessionDelta, SessionUpdate

# watchfiles yields a batch once no change came for STEP_MS (the least a write waits to be
# seen), or DEBOUNCE_MS after its first change while changes keep coming.
DEBOUNCE_MS = 50
STEP_MS = 5
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
    append: SessionDelta | None = None  # what the refresh of a tracked session changed
    error: str | None = None  # a tracked session that can no longer be read
    update: SessionUpdate | None = None  # read for `session`, not taken in yet (see `settle`)


@dataclass(slots=True)
class StoreBatch:
    """One batch of file changes: an event per file that changed, and the listing after them
    (made where the files were read, so the event loop never waits for the store)."""

    events: list[StoreEvent] = field(default_factory=list)
    listing: Listing = field(default_factory=Listing)
    # Updates of tracked sessions whose file changed nothing worth an event (half a line).
    quiet: list[tuple[Session, SessionUpdate]] = field(default_factory=list)

    def __iter__(self) -> Iterator[StoreEvent]:
        return iter(self.events)

    def __len__(self) -> int:
        return len(self.events)


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
    _serial: asyncio.Lock = field(default_factory=asyncio.Lock)  # one batch at a time

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

    async def process(self, paths: Iterable[str]) -> StoreBatch:
        """The one way a batch of changed paths goes (the watch loop's and our own writes'):
        the files are read in a worker thread, the tracked sessions take in what was read for
        them here, on the event loop. One batch at a time."""
        async with self._serial:
            batch = await asyncio.to_thread(self.read, list(paths), dict(self.tracked))
            return self.settle(batch)

    def apply(self, paths: Iterable[str]) -> StoreBatch:
        """`process` in the caller's thread (scripts and tests without an event loop)."""
        return self.settle(self.read(list(paths), dict(self.tracked)))

    def read(self, paths: Iterable[str], tracked: dict[str, Session]) -> StoreBatch:
        """The file work of a batch (meant for a worker thread): each changed file looked at
        once, the store updated, updates for `tracked` sessions read but not applied. One
        event per file that changed; a vanish and an appearance of the same session file
        (same inode, same session id) are paired as a rename."""
        store = self.store
        with store.lock:
            unique = sorted(_session_paths(paths))
            before = {p: _identity(e) for p in unique if (e := store.entries.get(p)) is not None}
            changes: dict[str, FileChange] = {}
            looks: dict[str, Growth] = {}
            updates: dict[str, tuple[SessionUpdate | None, str | None]] = {}
            for path in unique:
                session = tracked.get(path)
                marks = [store.mark_for(path)]
                if session is not None and session.read_mark is not None:
                    marks.append(session.read_mark)
                try:
                    look = read_growth(path, marks)
                except OSError as e:
                    change = store.lost(path, e)
                else:
                    looks[path] = look
                    change = store.take(path, look)
                    if session is not None:
                        updates[path] = _prepare(session, look)
                        update, error = updates[path]
                        news = _has_news(update) or session.has_unseen_changes
                        if change is FileChange.UNCHANGED and (error or news):
                            change = FileChange.GREW  # the session was behind the store
                if change is not FileChange.UNCHANGED:
                    changes[path] = change
            batch = StoreBatch()
            for path, (update, _) in updates.items():
                if path not in changes and update is not None:
                    batch.quiet.append((tracked[path], update))
            vanished = {p: before.get(p) for p, c in changes.items() if c is FileChange.VANISHED}
            for path, change in changes.items():
                if change is FileChange.VANISHED:
                    continue
                event = StoreEvent(_KINDS[change], path, summary=store.summary(path))
                if change is FileChange.APPEARED:
                    # A rename: the same inode, holding the same session, under a new name. (An
                    # inode alone is not enough: filesystems reuse a deleted file's inode.)
                    entry = store.entries.get(path)
                    identity = _identity(entry) if entry is not None else None
                    old = next(
                        (p for p, i in vanished.items() if identity is not None and i == identity), None
                    )
                    if old is not None:
                        del vanished[old]
                        event.kind, event.old_path = EventKind.RENAMED, old
                        if old in tracked:
                            updates[path] = _prepare(tracked[old], looks[path], renamed=True)
                            tracked[path] = tracked[old]
                if path in updates:
                    event.session = tracked[path]
                    event.update, event.error = updates[path]
                batch.events.append(event)
            for path in vanished:
                event = StoreEvent(EventKind.VANISHED, path)
                if path in tracked:
                    event.session = tracked[path]
                    event.error = "the file is gone"
                batch.events.append(event)
            batch.listing = store.listing()
        return batch

    def settle(self, batch: StoreBatch) -> StoreBatch:
        """Back on the event loop: renamed sessions follow their file, and every tracked
        session takes in what was read for it (`event.append` says what that changed)."""
        for session, quiet in batch.quiet:
            with contextlib.suppress(SessionError, OSError):
                session.apply(quiet)
        batch.quiet = []
        for event in batch.events:
            if event.kind is EventKind.RENAMED and event.old_path is not None:
                self._retrack(event.old_path, event.path)
            update, event.update = event.update, None
            if update is not None and event.session is not None and event.error is None:
                try:
                    event.append = event.session.apply(update)
                except (SessionError, OSError) as e:
                    event.error = str(e)
        return batch

    def _retrack(self, old: str, new: str) -> None:
        session = self.tracked.pop(old, None)
        if session is not None:
            session.path = new
            session.source.path = new  # type: ignore[attr-defined]
            self.tracked[new] = session

    async def events(self) -> AsyncIterator[StoreBatch]:
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
                    batch = await self.process(paths)
                    if self.on_batch is not None:
                        self.on_batch(paths)
                    if batch.events:
                        yield batch
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
                yield await asyncio.to_thread(self._changed_on_disk, dict(self.tracked))

    async def _polled(self) -> AsyncIterator[set[str]]:
        """Our own polling: stat every session file and compare size, mtime (ns) and inode
        with the index. (watchfiles' poller compares whole-second mtimes and misses a second
        append within the same second.)"""
        stop = self._stop
        if stop is None:
            return  # not started by `events()`: nothing to stop it
        while not stop.is_set():
            started = time.perf_counter()
            changed = await asyncio.to_thread(self._changed_on_disk, dict(self.tracked))
            if changed:
                yield changed
            spent = time.perf_counter() - started
            delay = max(POLL_DELAY_MS / 1000, spent * 20)  # at most ~5% of a core on huge folders
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=delay)

    def _changed_on_disk(self, tracked: dict[str, Session]) -> set[str]:
        """Every session file that differs from what the store (or a tracked session) read:
        a stat per file (meant for a worker thread)."""
        with self.store.lock:
            entries = dict(self.store.entries)
        seen: set[str] = set()
        changed: set[str] = set()
        for path in iter_session_files(self.store.root):
            seen.add(path)
            entry = entries.get(path)
            try:
                st = os.stat(path)
            except OSError:
                continue
            session = tracked.get(path)
            if (
                entry is None
                or not entry.matches(st)
                or (session is not None and session.end_offset + session.pending_bytes < st.st_size)
            ):
                changed.add(path)
        changed.update(p for p in entries if p not in seen)
        return changed


_KINDS = {
    FileChange.APPEARED: EventKind.APPEARED,
    FileChange.GREW: EventKind.GREW,
    FileChange.REPLACED: EventKind.REPLACED,
}


def _prepare(
    session: Session, look: Growth, *, renamed: bool = False
) -> tuple[SessionUpdate | None, str | None]:
    try:
        return session.prepare(look, renamed=renamed), None
    except (SessionError, OSError) as e:
        return None, str(e)


def _has_news(update: SessionUpdate | None) -> bool:
    return update is not None and (update.fresh is not None or bool(update.lines and update.lines.lines))


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
