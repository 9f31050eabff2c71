"""Live: real files in a temporary folder, the real watchfiles watcher, every event kind."""

from __future__ import annotations

import asyncio
import builtins
import io
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pi_sessions.core.listing.store import SessionStore
from pi_sessions.core.live.watch import EventKind, SessionWatcher, StoreEvent
from pi_sessions.core.session.session import Session

from tests.helpers.checks import known
from tests.helpers.sessions import (
    assistant,
    chain,
    header,
    jsonl,
    rewrite_keeping_size_and_mtime,
    user,
    write,
)

pytestmark = pytest.mark.unit  # async for the watcher, but no app

TIMEOUT = 20.0  # generous: only a hang fails this, never a slow machine


class Harness:
    def __init__(self, watcher: SessionWatcher) -> None:
        self.watcher = watcher
        self.events: asyncio.Queue[StoreEvent] = asyncio.Queue()
        self.batches: asyncio.Queue[set[str]] = asyncio.Queue()
        watcher.on_batch = self.batches.put_nowait
        self.ready = asyncio.Event()

    async def run(self) -> None:
        async for batch in self.watcher.events():
            for event in batch:
                self.events.put_nowait(event)

    async def next_event(self) -> StoreEvent:
        return await asyncio.wait_for(self.events.get(), TIMEOUT)

    async def until(self, kind: EventKind, path: Path | str) -> StoreEvent:
        while True:
            event = await self.next_event()
            if event.kind is kind and event.path == str(path):
                return event

    def forget_batches(self) -> None:
        while not self.batches.empty():
            self.batches.get_nowait()

    async def seen(self, path: Path) -> None:
        while str(path) not in await asyncio.wait_for(self.batches.get(), TIMEOUT):
            pass


@pytest.fixture(params=["notify", "poll"])
async def live(
    tmp_path: Path, request: pytest.FixtureRequest
) -> AsyncIterator[tuple[Harness, Path, SessionStore]]:
    root = tmp_path / "sessions"
    (root / "--home-u-p--").mkdir(parents=True)
    store = SessionStore(root, use_cache=False)
    store.scan()
    harness = Harness(SessionWatcher(store, poll=request.param == "poll"))
    task = asyncio.create_task(harness.run())
    await _until_watching(harness, root)
    yield harness, root / "--home-u-p--", store
    harness.watcher.stop()
    task.cancel()
    with __import__("contextlib").suppress(asyncio.CancelledError):
        await task


async def _until_watching(harness: Harness, root: Path) -> None:
    """The OS watcher starts in the background: touch a probe until a batch reports it."""
    probe = root / "probe.jsonl"
    for attempt in range(200):
        probe.write_bytes(b"x" * attempt)
        try:
            await asyncio.wait_for(harness.batches.get(), 0.1)
            break
        except TimeoutError:
            continue
    probe.unlink()
    await harness.until(EventKind.VANISHED, probe)
    harness.forget_batches()


async def test_appeared_grew_and_tracked_session_follows(live: tuple[Harness, Path, SessionStore]) -> None:
    harness, folder, _ = live
    path = folder / "s.jsonl"
    write(path, header(), user("a", None, "hello"))
    event = await harness.until(EventKind.APPEARED, path)
    assert event.summary is not None and event.summary.first_message == "hello"
    session = Session.open(path)
    harness.watcher.track(session)
    with open(path, "ab") as f:
        f.write(jsonl(assistant("b", "a", "hi there", 1)))
    event = await harness.until(EventKind.GREW, path)
    assert event.append is not None and [r.id for r in event.append.new_records] == ["b"]
    assert session.default_leaf == "b" and known(event.summary).message_count == 2


async def test_half_a_line_stays_pending_until_its_newline(live: tuple[Harness, Path, SessionStore]) -> None:
    harness, folder, store = live
    path = write(folder / "s.jsonl", header(), user("a", None, "hello"))
    await harness.until(EventKind.APPEARED, path)
    session = Session.open(path)
    harness.watcher.track(session)
    line = jsonl(assistant("b", "a", "a long answer", 1))
    harness.forget_batches()
    with open(path, "ab") as f:
        f.write(line[:25])
        f.flush()
    await harness.seen(path)
    assert session.entry_ids() == ["a"] and session.pending_bytes == 25
    assert known(store.summary(str(path))).message_count == 1
    with open(path, "ab") as f:
        f.write(line[25:])
    event = await harness.until(EventKind.GREW, path)
    assert [r.id for r in known(event.append).new_records] == ["b"]
    assert session.entry_ids() == ["a", "b"]


async def test_truncation_replacement_by_rename_deletion_and_rename(
    live: tuple[Harness, Path, SessionStore],
) -> None:
    harness, folder, store = live
    path = write(folder / "s.jsonl", header(), user("a", None, "one"), assistant("b", "a", "two", 1))
    await harness.until(EventKind.APPEARED, path)
    session = Session.open(path)
    harness.watcher.track(session)

    path.write_bytes(jsonl(header(), user("a", None, "one")))  # truncated in place
    event = await harness.until(EventKind.REPLACED, path)
    assert event.append is not None and event.append.reloaded and session.entry_ids() == ["a"]

    temp = folder / "s.jsonl.tmp"
    temp.write_bytes(jsonl(header(id="other"), user("x", None, "replaced")))
    os.replace(temp, path)  # an editor's atomic save: new inode
    event = await harness.until(EventKind.REPLACED, path)
    assert known(event.summary).id == "other" and session.entry_ids() == ["x"]

    renamed = folder / "renamed.jsonl"
    os.rename(path, renamed)
    event = await harness.until(EventKind.RENAMED, renamed)
    assert event.old_path == str(path) and session.path == str(renamed)

    os.unlink(renamed)
    event = await harness.until(EventKind.VANISHED, renamed)
    assert event.summary is None and str(renamed) not in store.entries


async def test_a_same_size_rewrite_with_its_mtime_put_back_is_seen(
    live: tuple[Harness, Path, SessionStore],
) -> None:
    harness, folder, store = live
    path = write(folder / "s.jsonl", header(), user("a", None, "one"), assistant("b", "a", "two", 1))
    await harness.until(EventKind.APPEARED, path)
    session = Session.open(path)
    harness.watcher.track(session)
    rewrite_keeping_size_and_mtime(path, path.read_bytes().replace(b'"one"', b'"ONE"'))
    event = await harness.until(EventKind.REPLACED, path)
    assert event.append is not None and event.append.reloaded
    assert known(event.summary).first_message == known(store.summary(str(path))).first_message == "ONE"
    assert session.entry_dict(session.by_id["a"])["message"]["content"] == "ONE"


async def test_fifty_new_files_at_once(live: tuple[Harness, Path, SessionStore]) -> None:
    harness, folder, store = live
    paths = [
        write(folder / f"f{i:02d}.jsonl", header(id=f"id{i}"), user("a", None, f"q{i}")) for i in range(50)
    ]
    seen: set[str] = set()
    while len(seen) < 50:
        event = await harness.next_event()
        if event.kind is EventKind.APPEARED:
            seen.add(event.path)
    assert seen == {str(p) for p in paths}
    assert len(store.listing().summaries) == 50


async def test_new_cwd_folder_is_watched(live: tuple[Harness, Path, SessionStore]) -> None:
    harness, folder, _store = live
    other = folder.parent / "--srv-new--"
    other.mkdir()  # and the file right after: faster than the OS adds a watch on the folder
    path = write(other / "s.jsonl", header(id="n"), user("a", None, "in a new folder"))
    event = await harness.until(EventKind.APPEARED, path)
    assert known(event.summary).cwd == "/home/u/proj"


async def test_falls_back_to_polling_when_notifications_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import watchfiles

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError(28, "inotify watch limit reached")

    monkeypatch.setattr(watchfiles, "awatch", broken)
    root = tmp_path / "sessions"
    root.mkdir()
    store = SessionStore(root, use_cache=False)
    store.scan()
    harness = Harness(SessionWatcher(store))
    task = asyncio.create_task(harness.run())
    path = write(root / "s.jsonl", header(), user("a", None, "polled"))
    event = await harness.until(EventKind.APPEARED, path)
    assert known(event.summary).first_message == "polled"
    assert harness.watcher.poll and "polling" in (harness.watcher.notice or "")
    harness.watcher.stop()
    await asyncio.wait_for(task, TIMEOUT)


async def test_a_sessions_folder_that_appears_later_is_picked_up(tmp_path: Path) -> None:
    root = tmp_path / "not-yet"
    store = SessionStore(root, use_cache=False)
    store.scan()
    harness = Harness(SessionWatcher(store))
    task = asyncio.create_task(harness.run())
    path = write(
        root / "--home-u-p--" / "first.jsonl", header(id="first"), user("a", None, "the very first session")
    )
    event = await harness.until(EventKind.APPEARED, path)
    assert known(event.summary).first_message == "the very first session"
    harness.watcher.stop()
    await asyncio.wait_for(task, TIMEOUT)


class ReadCounter:
    """Counts, per byte offset, how often the bytes of one file are read: by `os.read`,
    `os.pread` or a file object from `open` (whatever the reading code uses)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
        self.inode = path.stat().st_ino
        self.path = str(path)
        self.counts: dict[int, int] = {}
        real_pread, real_read, real_open = os.pread, os.read, builtins.open
        counter = self

        def pread(fd: int, length: int, offset: int) -> bytes:
            data = real_pread(fd, length, offset)
            if os.fstat(fd).st_ino == self.inode:
                self.add(offset, len(data))
            return data

        def read(fd: int, length: int) -> bytes:
            at = os.lseek(fd, 0, os.SEEK_CUR) if os.fstat(fd).st_ino == self.inode else None
            data = real_read(fd, length)
            if at is not None:
                self.add(at, len(data))
            return data

        class CountingFile(io.FileIO):
            def readinto(self, buffer: Any) -> int | None:
                at = self.tell()
                n = super().readinto(buffer)
                counter.add(at, n or 0)
                return n

            def readall(self) -> bytes:
                at = self.tell()
                data = super().readall()
                counter.add(at, len(data))
                return data

            def read(self, size: int | None = -1) -> bytes:
                at = self.tell()
                data = super().read(size)
                counter.add(at, len(data or b""))
                return data or b""

        def open_(file: Any, mode: str = "r", buffering: int = -1, *args: Any, **kwargs: Any) -> Any:
            if (
                isinstance(file, str | os.PathLike)
                and os.path.abspath(file) == self.path
                and mode in ("rb", "br")
            ):
                raw = CountingFile(file, "rb")
                return raw if buffering == 0 else io.BufferedReader(raw)
            return real_open(file, mode, buffering, *args, **kwargs)

        monkeypatch.setattr(os, "pread", pread)
        monkeypatch.setattr(os, "read", read)
        monkeypatch.setattr(builtins, "open", open_)

    def add(self, offset: int, length: int) -> None:
        for at in range(offset, offset + length):
            self.counts[at] = self.counts.get(at, 0) + 1

    def times_read(self, start: int, end: int) -> set[int]:
        return {self.counts.get(at, 0) for at in range(start, end)}


async def test_a_live_append_reads_each_new_byte_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store's summary and the open session follow the same file: one read of the new
    bytes serves both (and neither reads them back to remember where it stopped)."""
    root = tmp_path / "sessions"
    path = write(root / "--home-u-p--" / "s.jsonl", header(), *chain(40))
    store = SessionStore(root, use_cache=False, keep_text=True)
    store.scan()
    watcher = SessionWatcher(store)
    session = Session.open(path)
    watcher.track(session)
    old_size = path.stat().st_size
    counter = ReadCounter(monkeypatch, path)
    appended = jsonl(user("n1", "e39", "a new question", 50), assistant("n2", "n1", "a new answer", 51))
    with open(path, "ab") as f:
        f.write(appended)
    counter.counts.clear()
    [event] = await watcher.process([str(path)])
    assert event.kind is EventKind.GREW and event.session is session
    assert event.append is not None and [r.id for r in event.append.new_records] == ["n1", "n2"]
    assert session.default_leaf == "n2" and known(store.summary(str(path))).message_count == 42
    assert "a new answer" in store.texts(str(path))
    assert counter.times_read(old_size, old_size + len(appended)) == {1}
    # A batch that finds nothing new reads none of the new bytes again.
    counter.counts.clear()
    assert list(await watcher.process([str(path)])) == []
    assert counter.times_read(old_size, old_size + len(appended)) == {0}
