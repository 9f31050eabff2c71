"""The warm-start policy, without a screen: what the first frame lists, what follows it, and
which session the first screen opens by itself."""

from __future__ import annotations

import gc
import os
from collections.abc import Sequence
from pathlib import Path

import pytest
from pi_sessions.core.listing import first_screen
from pi_sessions.core.listing.first_screen import FirstListing, FirstScreen, Then, first_listing
from pi_sessions.core.listing.sidebar_rows import SessionRow, SidebarRow
from pi_sessions.core.listing.store import SessionStore
from pi_sessions.core.listing.summary import SessionSummary

from tests.helpers.sessions import assistant, header, jsonl, ts, user, write

FOLDER = "--home-u-proj--"
LONG_AGO = 1_600_000_000


def _sessions(root: Path, count: int) -> list[Path]:
    """`count` sessions, each newer than the one before; folders as if made long ago."""
    paths = []
    for i in range(count):
        path = write(
            root / FOLDER / f"s{i}.jsonl",
            header(id=f"s{i}", cwd="/home/u/proj", timestamp=ts(i)),
            user("a", None, f"session number {i}", i),
        )
        os.utime(path, (LONG_AGO + i, LONG_AGO + i))
        paths.append(path)
    for folder in (root, root / FOLDER):
        os.utime(folder, (LONG_AGO, LONG_AGO))
    return paths


def _rows(summaries: Sequence[SessionSummary]) -> list[SidebarRow]:
    return [SessionRow(s, 0) for s in summaries]


class Shown:
    """What `show` was handed, and whether the collector ran meanwhile."""

    def __init__(self) -> None:
        self.firsts: list[FirstListing] = []
        self.gc_enabled: list[bool] = []

    def __call__(self, first: FirstListing) -> None:
        self.firsts.append(first)
        self.gc_enabled.append(gc.isenabled())


def _first(root: Path, cache: Path, open_path: str | None = None) -> tuple[FirstListing, Shown]:
    shown = Shown()
    store = SessionStore(root, cache_dir=cache, keep_text=True)
    return first_listing(store, open_path=open_path, rows_for=_rows, shown=10, show=shown), shown


@pytest.fixture(autouse=True)
def _no_freeze(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The freeze recorded, not done (it would hold the test process's objects for good)."""
    frozen: list[str] = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append("frozen"))
    return frozen


def test_without_a_cache_a_quick_scan_lists_everything_and_the_watch_follows(
    tmp_path: Path, _no_freeze: list[str]
) -> None:
    paths = _sessions(tmp_path / "sessions", 3)
    first, shown = _first(tmp_path / "sessions", tmp_path / "cache")
    assert first.then is Then.WATCH and first.rows is None
    assert shown.firsts == [first] and shown.gc_enabled == [False]  # (no collection while it is made)
    assert first.listing is not None
    assert [s.path for s in first.listing.summaries] == [str(p) for p in reversed(paths)]
    assert _no_freeze == ["frozen"]  # what it made lives as long as the app


def test_a_usable_cache_is_shown_unchecked_and_checked_after_the_first_frame(
    tmp_path: Path, _no_freeze: list[str]
) -> None:
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    paths = _sessions(root, 3)
    SessionStore(root, cache_dir=cache, keep_text=True).scan()
    first, shown = _first(root, cache)
    assert first.then is Then.CHECK and shown.firsts == [first]
    assert first.rows is not None and [r.summary.path for r in first.rows if isinstance(r, SessionRow)] == [
        str(p) for p in reversed(paths)
    ]
    assert _no_freeze == ["frozen"]


def test_a_session_shown_first_that_changed_since_the_cache_is_read_first(tmp_path: Path) -> None:
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    paths = _sessions(root, 3)
    SessionStore(root, cache_dir=cache, keep_text=True).scan()
    with open(paths[-1], "ab") as f:
        f.write(jsonl(assistant("b", "a", "a reply", 50)))
    first, _ = _first(root, cache)
    assert first.then is Then.WATCH and first.listing is not None
    assert first.listing.summaries[0].message_count == 2  # the disk's, not the cache's


def test_a_session_to_open_is_never_listed_from_the_cache(tmp_path: Path) -> None:
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    paths = _sessions(root, 3)
    SessionStore(root, cache_dir=cache, keep_text=True).scan()
    first, _ = _first(root, cache, open_path=str(paths[0]))
    assert first.then is Then.WATCH  # (its row may be anywhere: the listing is checked first)


def test_much_to_read_lists_nothing_before_the_first_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _no_freeze: list[str]
) -> None:
    monkeypatch.setattr(first_screen, "QUICK_SCAN_BYTES", 0)
    _sessions(tmp_path / "sessions", 3)
    first, shown = _first(tmp_path / "sessions", tmp_path / "cache")
    assert first.then is Then.SCAN and first.listing is None
    assert shown.firsts == [] and _no_freeze == []


def test_the_first_screen_opens_its_first_session_once() -> None:
    start = FirstScreen(None)
    assert start.open_path is None
    assert start.to_open("/s/new.jsonl") == "/s/new.jsonl"
    assert start.to_open("/s/new.jsonl") is None  # open already
    assert start.to_open(None) is None


def test_after_the_check_the_newest_is_opened_again_only_if_the_user_has_not_moved() -> None:
    start = FirstScreen(None)
    start.to_open("/s/old-newest.jsonl")
    assert start.reopen_after_check("/s/old-newest.jsonl")  # (the cursor went to the new top row)
    assert not start.reopen_after_check("/s/other.jsonl")  # the user's cursor is elsewhere
    start.user_acted = True
    assert not start.reopen_after_check("/s/old-newest.jsonl")


def test_a_session_asked_for_is_opened_by_its_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert FirstScreen("s.jsonl").open_path == str(tmp_path / "s.jsonl")
