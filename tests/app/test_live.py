"""The open session's file changes under the browser: every pane agrees afterwards.

Truncated, cut to nothing, replaced by another file, rewritten in place, deleted or renamed:
the tree, the context pane, the titles and status line and the sidebar all show the same state
(cleared, or read again and projected again), checked against a fresh reading of the file.
And the reading itself never holds up the event loop.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from pi_sessions.app.main_screen import MainScreen
from pi_sessions.core.live import watch
from pi_sessions.core.projection.context import project
from pi_sessions.core.reading import growth
from pi_sessions.core.session.outline import ViewFilter, outline_rows, row_filter
from pi_sessions.core.session.session import Session
from pi_sessions.widgets.context_blocks import build_blocks
from textual.pilot import Pilot

from tests.helpers.app import lines_of, loaded, make_app, settled, static_text, until, watching
from tests.helpers.checks import known
from tests.helpers.sessions import chain, header, jsonl, rewrite_keeping_size_and_mtime, user, write


def two_sessions(root: Path) -> tuple[Path, Path]:
    folder = root / "--home-u-proj--"
    other = write(folder / "2025-01-01T00-00-00-000Z_other.jsonl", header(id="other"), *chain(2))
    path = write(
        folder / "2025-03-01T10-00-00-000Z_open.jsonl",
        header(id="open", timestamp="2025-03-02T00:00:00.000Z"),
        *chain(12),
    )
    return path, other


def blocks_of(blocks: list[Any]) -> list[tuple[Any, ...]]:
    return [(b.kind, b.entry_id, b.message_index) for b in blocks]


def rows_of(rows: list[Any]) -> list[tuple[Any, ...]]:
    return [(r.record.id, r.depth, r.child_count, r.on_active_path) for r in rows]


def assert_panes_show(screen: MainScreen, path: Path) -> None:
    """The tree, the context, the titles and the sidebar all show `path` as it is on disk."""
    session = screen.session
    assert session is not None and session.path == str(path)
    fresh = Session.open(path)
    assert session.entry_ids() == fresh.entry_ids()
    view = row_filter(screen.branch_tree.view)
    view = view.with_always({fresh.default_leaf}) if view is not None and fresh.default_leaf else view
    assert rows_of(screen.branch_tree.rows) == rows_of(outline_rows(fresh, view=view))
    count = len(fresh.records)
    assert f"{count} {'entry' if count == 1 else 'entries'}" in static_text(screen, "#tree-title")
    shown = screen.context_view.projection
    assert shown is not None and shown.leaf_id in fresh.by_id
    assert screen.context_leaf == shown.leaf_id
    want = build_blocks(fresh, project(fresh, shown.leaf_id), screen.context_view.show_excluded)
    assert blocks_of(screen.context_view.body.blocks) == blocks_of(want)
    assert [r.id for r in shown.path] == [r.id for r in fresh.path_to(shown.leaf_id)]
    assert screen.sidebar.session_list.open_path == str(path)
    listed = {s.path: s for s in screen.sidebar.summaries}
    assert listed[str(path)].entry_count == count


async def open_first(pilot: Pilot[Any], path: Path) -> MainScreen:
    screen = await loaded(pilot)
    await watching(pilot)
    assert screen.session is not None and screen.session.path == str(path)
    return screen


async def test_cut_to_nothing_then_written_again(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path, _ = two_sessions(root)
    async with make_app(root, tmp_path / "cache").run_test(size=(160, 40)) as pilot:
        screen = await open_first(pilot, path)
        path.write_bytes(b"")
        await until(pilot, lambda: not screen.branch_tree.rows, "the tree emptied")
        assert screen.session is not None and screen.session.is_empty
        assert screen.context_view.projection is None and screen.context_leaf is None
        assert "empty" in " ".join(lines_of(screen.context_view.body))
        assert "(live)" not in static_text(screen, "#context-title")
        assert "0 entries" in static_text(screen, "#tree-title")
        assert "cut short on disk" in static_text(screen, "#status")
        # An empty file is not a session (yet): the sidebar does not list it.
        await until(pilot, lambda: str(path) not in {s.path for s in screen.sidebar.summaries}, "sidebar")
        # pi starts writing it again: everything follows.
        with open(path, "ab") as f:
            f.write(jsonl(header(id="again"), user("z0", None, "a fresh start", 1)))
        await until(pilot, lambda: [r.record.id for r in screen.branch_tree.rows] == ["z0"], "the new entry")
        await until(pilot, lambda: str(path) in {s.path for s in screen.sidebar.summaries}, "listed again")
        await settled(pilot)
        assert_panes_show(screen, path)
        assert any("a fresh start" in line for line in lines_of(screen.context_view.body))


async def test_cut_short_below_the_entry_shown(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path, _ = two_sessions(root)
    async with make_app(root, tmp_path / "cache").run_test(size=(160, 40)) as pilot:
        screen = await open_first(pilot, path)
        assert screen.context_leaf == "e11"
        path.write_bytes(jsonl(header(id="open", timestamp="2025-03-02T00:00:00.000Z"), *chain(5)))
        await until(pilot, lambda: len(screen.branch_tree.rows) == 5, "the tree cut short")
        await settled(pilot)
        assert_panes_show(screen, path)
        assert screen.context_leaf == "e4"  # e11 is gone: the newest entry
        assert "cut short on disk" in static_text(screen, "#status")


async def test_replaced_by_another_file(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path, _ = two_sessions(root)
    async with make_app(root, tmp_path / "cache").run_test(size=(160, 40)) as pilot:
        screen = await open_first(pilot, path)
        temp = path.with_suffix(".tmp")
        temp.write_bytes(
            jsonl(header(id="open"), user("x0", None, "all new", 1), user("x1", "x0", "more", 2))
        )
        os.replace(temp, path)  # an editor's atomic save: a new inode
        await until(pilot, lambda: "x1" in screen.branch_tree.index_by_id, "the new content")
        await settled(pilot)
        assert_panes_show(screen, path)
        assert screen.context_leaf == "x1"
        assert "rewritten on disk" in static_text(screen, "#status")


async def test_rewritten_in_place(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path, _ = two_sessions(root)
    async with make_app(root, tmp_path / "cache").run_test(size=(160, 40)) as pilot:
        screen = await open_first(pilot, path)
        await pilot.press("tab")
        screen.branch_tree.select("e3")
        await until(pilot, lambda: screen.context_leaf == "e3", "e3 shown")
        rows = chain(12)
        rows[0] = user("e0", None, "QUESTION ZERO, REWORDED", 0)
        with open(path, "r+b") as f:  # same inode, same length of file or not: other bytes
            f.write(jsonl(header(id="open", timestamp="2025-03-02T00:00:00.000Z"), *rows))
            f.truncate()
        await until(pilot, lambda: "rewritten on disk" in static_text(screen, "#status"), "the rewrite seen")
        await settled(pilot)
        assert_panes_show(screen, path)
        assert screen.context_leaf == "e3" and screen.branch_tree.current_id() == "e3"
        assert any("QUESTION ZERO, REWORDED" in line for line in lines_of(screen.context_view.body))


async def test_deleted(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path, other = two_sessions(root)
    async with make_app(root, tmp_path / "cache").run_test(size=(160, 40)) as pilot:
        screen = await open_first(pilot, path)
        path.unlink()
        await until(pilot, lambda: screen.session is None, "the session closed")
        assert not screen.branch_tree.rows and screen.context_view.projection is None
        assert "cannot be shown any more" in " ".join(lines_of(screen.context_view.body))
        assert static_text(screen, "#tree-title") == "Tree"
        assert "the open session is gone" in static_text(screen, "#status")
        assert [s.path for s in screen.sidebar.summaries] == [str(other)]
        assert screen.sidebar.session_list.open_path is None
        assert str(path) not in screen.watcher.tracked


async def test_renamed(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path, _ = two_sessions(root)
    async with make_app(root, tmp_path / "cache").run_test(size=(160, 40)) as pilot:
        screen = await open_first(pilot, path)
        before = (
            rows_of(screen.branch_tree.rows),
            screen.context_leaf,
            blocks_of(screen.context_view.body.blocks),
        )
        renamed = path.with_name("2025-03-01T10-00-00-000Z_renamed.jsonl")
        os.rename(path, renamed)
        await until(pilot, lambda: screen.sidebar.session_list.open_path == str(renamed), "the rename")
        await settled(pilot)
        assert_panes_show(screen, renamed)
        assert known(screen.sidebar.session_list.current()).path == str(renamed)
        assert "was renamed to" in static_text(screen, "#status")
        assert before == (
            rows_of(screen.branch_tree.rows),
            screen.context_leaf,
            blocks_of(screen.context_view.body.blocks),
        )


async def test_renamed_then_written_shows_what_is_written_at_the_new_path(tmp_path: Path) -> None:
    """After a rename, the bodies come from the new path: pi's next line there shows its text
    (read from the old path, the entry would show nothing or an error)."""
    root = tmp_path / "sessions"
    path, _ = two_sessions(root)
    async with make_app(root, tmp_path / "cache").run_test(size=(160, 80)) as pilot:
        screen = await open_first(pilot, path)
        renamed = path.with_name("2025-03-01T10-00-00-000Z_renamed.jsonl")
        os.rename(path, renamed)
        await until(pilot, lambda: screen.sidebar.session_list.open_path == str(renamed), "the rename")
        with open(renamed, "ab") as f:
            f.write(jsonl(user("e12", "e11", "written after the rename", 30)))
        await until(pilot, lambda: "13 entries" in static_text(screen, "#tree-title"), "the new line")
        await settled(pilot)
        assert_panes_show(screen, renamed)
        body = screen.context_view.body
        await until(pilot, lambda: "written after the rename" in "\n".join(lines_of(body)), "its text")


async def test_reading_a_change_never_blocks_the_keyboard(tmp_path: Path, monkeypatch: Any) -> None:
    """The file work of a batch runs in a worker thread: while it is stuck on a slow disk, keys
    still move the cursor; once it finishes, its result reaches the panes."""
    root = tmp_path / "sessions"
    path, _ = two_sessions(root)
    release = threading.Event()
    reading_threads: set[int] = set()
    real_read = growth.read_growth

    def slow_read(file: str, marks: Any) -> Any:
        if file == str(path):
            reading_threads.add(threading.get_ident())
            release.wait(30)
        return real_read(file, marks)

    async with make_app(root, tmp_path / "cache").run_test(size=(160, 40)) as pilot:
        screen = await open_first(pilot, path)
        monkeypatch.setattr(watch, "read_growth", slow_read)
        await pilot.press("tab")
        with open(path, "ab") as f:
            f.write(jsonl(user("n1", "e11", "appended while the disk is slow", 20)))
        await until(pilot, lambda: reading_threads, "the read to start")
        before = screen.branch_tree.current_id()
        await pilot.press("up")
        await until(pilot, lambda: screen.branch_tree.current_id() != before, "the key handled")
        assert threading.get_ident() not in reading_threads  # the loop's thread never reads
        assert "n1" not in screen.branch_tree.index_by_id
        release.set()
        await until(pilot, lambda: "n1" in screen.branch_tree.index_by_id, "the append shown")


async def test_our_own_label_reaches_every_pane_like_any_append(tmp_path: Path) -> None:
    """A label we write reaches the panes the way pi's appends do: the session takes it in
    from the watcher's reading (off the event loop), and every pane follows."""
    root = tmp_path / "sessions"
    path, _ = two_sessions(root)
    async with make_app(root, tmp_path / "cache").run_test(size=(160, 40)) as pilot:
        screen = await open_first(pilot, path)
        await pilot.press("tab")
        screen.branch_tree.view = ViewFilter.ALL
        screen.branch_tree.rebuild()
        screen.branch_tree.select("e4")
        await pilot.press("L", *"nice", "enter")
        await until(pilot, lambda: len(screen.branch_tree.rows) == 13, "the label's row")
        await settled(pilot)
        assert_panes_show(screen, path)
        assert screen.session is not None and screen.session.labels == {"e4": "nice"}
        assert screen.branch_tree.rows[-1].record.type == "label"


async def test_rewritten_to_the_same_size_with_its_mtime_put_back(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path, _ = two_sessions(root)
    async with make_app(root, tmp_path / "cache").run_test(size=(160, 40)) as pilot:
        screen = await open_first(pilot, path)
        rows = chain(12)
        rows[0] = user("e0", None, "Question 0", 0)  # (was "question 0": same size, other bytes)
        data = jsonl(header(id="open", timestamp="2025-03-02T00:00:00.000Z"), *rows)
        rewrite_keeping_size_and_mtime(path, data)
        await until(pilot, lambda: "rewritten on disk" in static_text(screen, "#status"), "the rewrite seen")
        await settled(pilot)
        assert_panes_show(screen, path)
        session = screen.session
        assert (
            session is not None
            and session.entry_dict(session.by_id["e0"])["message"]["content"] == "Question 0"
        )
        listed = {s.path: s for s in screen.sidebar.summaries}[str(path)]
        assert listed.first_message == "Question 0"  # the sidebar read it again too
