"""A warm start (the first screen from the index cache) lands where a full scan would: on the
newest session, whatever changed while the app was closed."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest
from pi_sessions.app import main_screen
from pi_sessions.app.labels_screen import LabelsScreen
from pi_sessions.core.listing import first_screen
from pi_sessions.core.listing import store as store_module
from pi_sessions.core.listing.store import SessionStore
from textual.pilot import Pilot

from tests.helpers.app import loaded, make_app, static_text, until
from tests.helpers.sessions import header, jsonl, ts, user, write

FOLDER = "--home-u-proj--"
LONG_AGO = 1_600_000_000  # (seconds) older than any cache a test writes


def _sessions(root: Path, count: int) -> list[Path]:
    """`count` sessions, s0 the oldest, each newer (in time and mtime) than the one before."""
    paths = []
    for i in range(count):
        path = write(
            root / FOLDER / f"s{i}.jsonl",
            header(id=f"s{i}", cwd="/home/u/proj", timestamp=ts(i)),
            user("a", None, f"session number {i}", i),
        )
        os.utime(path, (LONG_AGO + i, LONG_AGO + i))
        paths.append(path)
    return paths


async def _first_run(root: Path, cache: Path) -> None:
    """A run that lists everything and writes the index cache."""
    async with make_app(root, cache).run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
    assert any(cache.iterdir())


def _backdate_folders(root: Path) -> None:
    """The folders as if nothing was created in them since the cache was written: what a
    session only appended to (resumed) looks like."""
    for folder in (root, *(p for p in root.iterdir() if p.is_dir())):
        os.utime(folder, (LONG_AGO, LONG_AGO))


async def _oldest_resumed(root: Path, cache: Path) -> list[Path]:
    """100 sessions listed once; then the oldest, far below the first screen, grew (`pi
    --resume`): no folder changed, it is the newest now."""
    paths = _sessions(root, 100)
    await _first_run(root, cache)
    with open(paths[0], "ab") as f:
        f.write(jsonl(user("b", "a", "resumed", 10_000)))
    _backdate_folders(root)
    return paths


def _new_session(root: Path, n: int = 10_000) -> Path:
    return write(
        root / FOLDER / "new.jsonl",
        header(id="new", cwd="/home/u/proj", timestamp=ts(n)),
        user("a", None, "the newest", n),
    )


def _held_scans(monkeypatch: pytest.MonkeyPatch, *, quick_too: bool = False) -> threading.Event:
    """Every full scan (not the quick one before the first frame, unless `quick_too`) waits
    until the test sets the event this returns."""
    go = threading.Event()
    scan = SessionStore.scan

    def held_scan(self: SessionStore, *args: Any, **kwargs: Any) -> Any:
        if quick_too or kwargs.get("read_limit") is None:
            go.wait(30)  # (only a failing test waits this long)
        return scan(self, *args, **kwargs)

    monkeypatch.setattr(SessionStore, "scan", held_scan)
    return go


def _top(screen: Any) -> str:
    current = screen.sidebar.shown_summaries()
    return str(current[0].path) if current else ""


def _at(screen: Any) -> str | None:
    """The session under the sidebar's cursor and the open one, if they are the same."""
    current = screen.sidebar.session_list.current()
    opened = screen.session.path if screen.session is not None else None
    return opened if current is not None and current.path == opened else None


async def _lands_on(pilot: Pilot[Any], path: Path) -> Any:
    screen = await loaded(pilot)
    await until(pilot, lambda: _top(screen) == str(path) and _at(screen) == str(path), f"{path.name} open")
    return screen


async def test_a_session_created_since_the_last_run_is_the_one_opened(tmp_path: Path) -> None:
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    _sessions(root, 5)
    await _first_run(root, cache)
    new = _new_session(root)
    async with make_app(root, cache).run_test(size=(160, 48)) as pilot:
        screen = await _lands_on(pilot, new)
        assert len(screen.sidebar.summaries) == 6


async def test_a_new_session_and_a_deleted_one_the_newest_is_opened(tmp_path: Path) -> None:
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    paths = _sessions(root, 5)
    await _first_run(root, cache)
    new = _new_session(root)
    paths[0].unlink()
    async with make_app(root, cache).run_test(size=(160, 48)) as pilot:
        screen = await _lands_on(pilot, new)
        assert str(paths[0]) not in {s.path for s in screen.sidebar.summaries}
        assert len(screen.sidebar.summaries) == 5


async def test_an_old_session_resumed_since_is_opened_once_the_listing_is_checked(tmp_path: Path) -> None:
    """A session far below the first screen that grew (`pi --resume`) changes no folder: the
    first screen comes from the cache; once every file is checked, it is the newest, and it
    is opened since the user has not moved yet."""
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    paths = await _oldest_resumed(root, cache)
    async with make_app(root, cache).run_test(size=(160, 48)) as pilot:
        screen = await _lands_on(pilot, paths[0])
        assert screen.sidebar.shown_summaries()[0].message_count == 2


async def test_an_index_the_check_cannot_save_is_said_in_the_status_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check after the first screen saves what changed, as a scan would: when it cannot
    (a full disk, a read-only cache folder), the status line says so."""
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    await _oldest_resumed(root, cache)
    monkeypatch.setattr(store_module, "save_index", lambda *args: "cannot write the cache in here: disk full")
    async with make_app(root, cache).run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        await until(pilot, lambda: "disk full" in static_text(screen, "#status"), "the problem said")


@pytest.mark.parametrize("how", ["keys", "click"])
async def test_once_the_user_moved_the_checked_listing_leaves_the_cursor_where_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    paths = await _oldest_resumed(root, cache)
    check = _held_scans(monkeypatch)
    async with make_app(root, cache).run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        assert _at(screen) == str(paths[99])  # the cache's newest: the check has not run
        if how == "keys":
            await pilot.press("down", "up")  # (and back: the user chose it now)
        else:  # a click on the row under the cursor
            session_list = screen.sidebar.session_list
            assert await pilot.click(session_list, offset=(5, session_list.cursor))
        await until(pilot, lambda: _at(screen) == str(paths[99]), "the user's moves")
        check.set()
        await until(pilot, lambda: _top(screen) == str(paths[0]), "the resumed session on top")
        await pilot.pause()
        assert _at(screen) == str(paths[99])


async def test_while_a_long_scan_reads_no_session_of_the_cache_is_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache's rows are not listed when they are known to be stale (a file deleted): the
    listing waits for the scan, as a start without a cache does."""
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    paths = _sessions(root, 5)
    await _first_run(root, cache)
    new = _new_session(root)
    paths[4].unlink()
    monkeypatch.setattr(first_screen, "QUICK_SCAN_BYTES", 0)  # (whatever is to read: in the background)
    reading = _held_scans(monkeypatch)
    async with make_app(root, cache).run_test(size=(160, 48)) as pilot:
        screen = main_screen_of(pilot)
        await until(pilot, lambda: screen.is_attached, "the main screen")
        await pilot.pause()
        assert screen.sidebar.summaries == [] and screen.session is None
        await pilot.click("#session-list", offset=(5, 1))  # (nothing there to open)
        await pilot.pause()
        assert screen.session is None
        reading.set()
        await _lands_on(pilot, new)


def main_screen_of(pilot: Pilot[Any]) -> Any:
    screens = [s for s in pilot.app.screen_stack if isinstance(s, main_screen.MainScreen)]
    assert screens
    return screens[0]


async def test_a_row_of_the_cache_whose_file_is_gone_says_so_when_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file deleted while the first screen shows the cache's rows, before the check of
    every file saw it, is reported when opened, not a crash."""
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    paths = _sessions(root, 100)
    await _first_run(root, cache)
    _backdate_folders(root)
    check = _held_scans(monkeypatch)
    async with make_app(root, cache).run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        paths[98].unlink()
        await pilot.press("down")
        await until(pilot, lambda: screen.session is None, "the open session closed")
        assert f"cannot open {paths[98]}" in static_text(screen, "#status")
        check.set()
        await until(pilot, lambda: len(screen.sidebar.summaries) == 99, "the check")


async def test_a_session_whose_partial_last_line_is_in_the_cache_takes_the_fast_path_again(
    tmp_path: Path,
) -> None:
    """A file that changed with nothing to list (a line not finished yet) is recorded as it is
    now: the next start trusts the cache instead of scanning at every start."""
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    paths = _sessions(root, 3)
    SessionStore(root, cache_dir=cache).scan()
    with open(paths[2], "ab") as f:
        f.write(b'{"type": "message", "id": "b"')  # (pi is still writing it)
    _backdate_folders(root)
    store = SessionStore(root, cache_dir=cache)
    assert store.load_cached() and store.stale([str(paths[2])])
    report = store.scan()
    assert report is not None and report.unchanged == 3 and report.restamped == 1
    again = SessionStore(root, cache_dir=cache)
    assert again.load_cached() and not again.stale([str(p) for p in paths])


async def test_a_screen_opened_before_the_first_frame_does_not_hold_back_the_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check of the cached listing (and the watch after it) waits for the main screen's
    first frame; covered by a full screen (the labels, asked for before that frame), the main
    screen draws none until it is back: the check starts anyway."""
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    paths = await _oldest_resumed(root, cache)
    mount = main_screen.MainScreen.on_mount

    def on_mount(self: main_screen.MainScreen) -> None:
        mount(self)
        self.action_flow("labels")  # (as if its key was typed before the first frame)

    monkeypatch.setattr(main_screen.MainScreen, "on_mount", on_mount)
    async with make_app(root, cache).run_test(size=(160, 48)) as pilot:
        await until(pilot, lambda: isinstance(pilot.app.screen, LabelsScreen), "the labels")
        screen = main_screen_of(pilot)
        await until(pilot, lambda: _top(screen) == str(paths[0]), "the checked listing")
        await until(pilot, lambda: screen.watcher.running, "the watcher")
        assert isinstance(pilot.app.screen, LabelsScreen)
