"""After our own writes (label, rename, delete, fork, clone) every pane and count is current at
once: the moment the status line says the action is done, the tree, its title, the context, the
sidebar's rows, title and group counts all show the files as they are on disk, and our own
write does not make a session look like another pi is writing it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from pi_sessions.app.main_screen import MainScreen
from pi_sessions.app.screens import ConfirmScreen, ForkScreen, PromptScreen
from pi_sessions.core.listing.sidebar_rows import GroupRow, SessionRow
from pi_sessions.core.live.activity import LIVE_SECONDS
from pi_sessions.core.projection.context import project
from pi_sessions.core.session.outline import outline_rows, row_filter
from pi_sessions.core.session.session import Session
from pi_sessions.core.writing.append import FileChangedError, plan_label, write_append
from pi_sessions.widgets import sidebar
from pi_sessions.widgets.context_blocks import build_blocks
from textual.pilot import Pilot

from tests.helpers.app import lines_of, loaded, make_app, static_text, until, watching
from tests.helpers.checks import known
from tests.helpers.sessions import assistant, header, jsonl, user, write

FOLDER = "--home-u-proj--"


def two_sessions(root: Path) -> tuple[Path, Path]:
    """The newer one (opened first) and an older one, in one folder."""
    folder = root / FOLDER
    newer = write(
        folder / "2025-03-02T10-00-00-000Z_newer.jsonl",
        header(id="newer", timestamp="2025-03-02T10:00:00.000Z"),
        user("u1", None, "first question", 1),
        assistant("a1", "u1", "first answer", 2),
        user("u2", "a1", "second question", 3),
        assistant("a2", "u2", "second answer", 4),
    )
    older = write(
        folder / "2025-03-01T10-00-00-000Z_older.jsonl",
        header(id="older"),
        user("o1", None, "an older question", 1),
        assistant("o2", "o1", "an older answer", 2),
    )
    os.utime(older, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    os.utime(newer, ns=(2_000_000_000_000_000_000, 2_000_000_000_000_000_000))
    return newer, older


def status(screen: MainScreen) -> str:
    return static_text(screen, "#status")


def assert_current(screen: MainScreen, root: Path, *, only_we_wrote: bool = True) -> None:
    """Every pane and count agrees with the files on disk, right now."""
    on_disk = sorted(str(p) for p in root.rglob("*.jsonl"))
    assert sorted(s.path for s in screen.sidebar.summaries) == on_disk
    rows = screen.sidebar.session_list.rows
    listed = [r for r in rows if isinstance(r, SessionRow)]
    assert sorted(r.summary.path for r in listed) == on_disk
    assert sum(r.count for r in rows if isinstance(r, GroupRow)) == len(listed)
    assert static_text(screen, "#sidebar-title").startswith(f"Sessions {len(on_disk)} ")
    session = screen.session
    if session is None:
        assert not screen.branch_tree.rows and screen.context_view.projection is None
        assert static_text(screen, "#tree-title") == "Tree"
        return
    fresh = Session.open(session.path or "")
    assert session.entry_ids() == fresh.entry_ids() and session.labels == fresh.labels
    assert session.name == fresh.name
    view = row_filter(screen.branch_tree.view)
    if view is not None and fresh.default_leaf:
        view = view.with_always({fresh.default_leaf})
    assert [r.record.id for r in screen.branch_tree.rows] == [
        r.record.id for r in outline_rows(fresh, view=view)
    ]
    count = len(fresh.records)
    title = static_text(screen, "#tree-title")
    assert f"{count} {'entry' if count == 1 else 'entries'}" in title
    if fresh.name:
        assert fresh.name in title
    shown = screen.context_view.projection
    assert shown is not None and screen.context_leaf == shown.leaf_id and shown.leaf_id in fresh.by_id
    want = build_blocks(fresh, project(fresh, shown.leaf_id), screen.context_view.show_excluded)
    assert [(b.kind, b.entry_id) for b in screen.context_view.body.blocks] == [
        (b.kind, b.entry_id) for b in want
    ]
    summary = next(s for s in screen.sidebar.summaries if s.path == session.path)
    assert summary.entry_count == count and summary.name == fresh.name
    assert screen.sidebar.session_list.open_path == session.path
    if not only_we_wrote:
        return
    # What we wrote ourselves is not another writer at work.
    assert not screen.is_live(session.path or "")
    assert not any(screen.glyphs.live in line for line in lines_of(screen.sidebar.session_list))


async def ready(pilot: Pilot[Any]) -> MainScreen:
    screen = await loaded(pilot)
    await watching(pilot)
    return screen


async def test_a_label_shows_in_its_row_at_once(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    newer, _ = two_sessions(root)
    async with make_app(root, tmp_path / "cache").run_test(size=(160, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("tab")
        screen.branch_tree.select("u2")
        await pilot.press("L")
        await until(pilot, lambda: isinstance(pilot.app.screen, PromptScreen), "the label prompt")
        await pilot.press(*"nice", "enter")
        await until(pilot, lambda: status(screen).startswith("labelled:"), "the label written")
        assert Session.open(newer).labels == {"u2": "nice"}
        row = next(line for line in lines_of(screen.branch_tree) if "second question" in line)
        assert f"{screen.glyphs.label}nice" in row  # drawn without moving the cursor
        assert screen.branch_tree.current_id() == "u2"  # and the cursor stayed
        assert_current(screen, root)


async def test_a_rename_shows_in_the_title_and_the_sidebar_at_once(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    newer, _ = two_sessions(root)
    async with make_app(root, tmp_path / "cache").run_test(size=(160, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("M")
        await until(pilot, lambda: isinstance(pilot.app.screen, PromptScreen), "the name prompt")
        await pilot.press(*"Scheduler work", "enter")
        await until(pilot, lambda: status(screen).startswith("named:"), "the name written")
        assert Session.open(newer).name == "Scheduler work"
        assert any("Scheduler work" in line for line in lines_of(screen.sidebar.session_list))
        assert_current(screen, root)


async def test_deleting_the_open_session_opens_the_next_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no `trash` command: the freedesktop trash
    root = tmp_path / "sessions"
    newer, older = two_sessions(root)
    async with make_app(root, tmp_path / "cache").run_test(size=(160, 40)) as pilot:
        screen = await ready(pilot)
        assert screen.session is not None and screen.session.path == str(newer)
        await pilot.press("D")
        await until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), "the question")
        await pilot.press("y")
        await until(pilot, lambda: status(screen).startswith("moved "), "the file trashed")
        await until(pilot, lambda: screen.session is not None, "the next session opened")
        await until(pilot, lambda: screen.context_view.projection is not None, "its context")
        assert not newer.exists() and screen.session.path == str(older)
        assert known(screen.sidebar.session_list.current()).path == str(older)
        assert [r.record.id for r in screen.branch_tree.rows] == ["o1", "o2"]
        assert_current(screen, root)
        # The last one: every pane says there is nothing.
        await pilot.press("D")
        await until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), "the question")
        await pilot.press("y")
        await until(pilot, lambda: status(screen).startswith("moved "), "the last file trashed")
        assert screen.session is None
        assert_current(screen, root)


async def test_a_fork_is_listed_selected_and_open_at_once(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    newer, _ = two_sessions(root)
    async with make_app(root, tmp_path / "cache").run_test(size=(160, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("tab")
        screen.branch_tree.select("a1")
        await pilot.press("f")
        await until(pilot, lambda: isinstance(pilot.app.screen, ForkScreen), "the preview")
        await pilot.press("enter")
        await until(pilot, lambda: status(screen).startswith("forked:"), "the fork written")
        forked = status(screen).removeprefix("forked: ")
        assert screen.session is not None and screen.session.path == forked
        assert known(screen.sidebar.session_list.current()).path == forked
        assert [r.record.id for r in screen.branch_tree.rows] == ["u1", "a1"]
        rows = [r for r in screen.sidebar.session_list.rows if isinstance(r, SessionRow)]
        assert [(r.summary.path, r.depth) for r in rows[:2]] == [
            (str(newer), 0),
            (forked, 1),
        ]  # under its parent
        assert_current(screen, root)


async def test_a_clone_is_listed_selected_and_open_at_once(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    two_sessions(root)
    async with make_app(root, tmp_path / "cache").run_test(size=(160, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("C")
        await until(pilot, lambda: isinstance(pilot.app.screen, ForkScreen), "the preview")
        await pilot.press("enter")
        await until(pilot, lambda: status(screen).startswith("forked:"), "the clone written")
        assert screen.session is not None and screen.session.path == status(screen).removeprefix("forked: ")
        assert [r.record.id for r in screen.branch_tree.rows] == ["u1", "a1", "u2", "a2"]
        assert_current(screen, root)


async def test_a_label_written_while_pi_appends_goes_below_pis_line(tmp_path: Path) -> None:
    """pi appended between our reading and our writing: the label is planned again on what pi
    wrote (or the watcher had it already); either way its parent is pi's new line."""
    root = tmp_path / "sessions"
    newer, _ = two_sessions(root)
    async with make_app(root, tmp_path / "cache").run_test(size=(160, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("tab")
        await pilot.press("L")
        await until(pilot, lambda: isinstance(pilot.app.screen, PromptScreen), "the label prompt")
        await pilot.press(*"late")
        with open(newer, "ab") as f:
            f.write(jsonl(user("u3", "a2", "pi wrote this meanwhile", 5)))
        await pilot.press("enter")
        await until(pilot, lambda: status(screen).startswith("labelled:"), "the label written")
        lines = newer.read_text().splitlines()
        assert '"u3"' in lines[-2] and '"parentId":"u3"' in lines[-1].replace(" ", "")
        assert_current(screen, root, only_we_wrote=False)
        assert screen.is_live(str(newer))  # pi did write it


def test_a_line_planned_before_pi_appended_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", header(), user("u1", None, "q", 1))
    session = Session.open(path)
    plan = plan_label(session, "u1", "mine")
    with open(path, "ab") as f:
        f.write(jsonl(user("u2", "u1", "pi's", 2)))
    before = path.read_bytes()
    with pytest.raises(FileChangedError):
        write_append(plan)
    assert path.read_bytes() == before
    session.refresh()
    write_append(plan_label(session, "u1", "mine"))
    assert Session.open(path).labels == {"u1": "mine"} and os.path.getsize(path) > len(before)


async def test_the_live_marker_goes_when_the_file_has_been_still_for_twenty_seconds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session another pi grew is marked live in the sidebar for LIVE_SECONDS (the
    sidebar's clock pinned): marked just before, unmarked at exactly that age."""
    root = tmp_path / "sessions"
    _, older = two_sessions(root)
    now = [1_000_000.0]
    monkeypatch.setattr(sidebar, "clock", lambda: now[0])
    async with make_app(root, tmp_path / "cache").run_test(size=(160, 40)) as pilot:
        screen = await ready(pilot)
        session_list = screen.sidebar.session_list
        live = session_list.glyphs.live

        def older_row() -> str:
            (row,) = [line for line in lines_of(session_list) if "an older question" in line]
            return row

        assert live not in older_row()
        screen.activity.grew(str(older), now[0])  # as the watcher notes growth by another writer
        for age, marked in ((LIVE_SECONDS - 0.5, True), (LIVE_SECONDS, False)):
            now[0] = 1_000_000.0 + age
            screen.sidebar._tick()  # what the sidebar's timer does every few seconds
            await pilot.pause()
            assert (live in older_row()) is marked, (age, older_row())
