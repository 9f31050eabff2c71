"""A file's history and the recent edits feed in the browser: on hand-made sessions whose touches
are known, the rows (with their fates) are the index's answer (`history --json`, `edits --json`),
newest first, and enter opens the row's session at its entry; hostile text stays inert."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

from pi_sessions.app.edits_screen import EditsScreen
from pi_sessions.app.files_screen import FilesScreen
from pi_sessions.app.history_screen import HistoryScreen, TouchesScreen
from pi_sessions.app.main_screen import MainScreen
from pi_sessions.app.screens import PromptScreen
from pi_sessions.core.index.db import index_file_path
from pi_sessions.core.index.queries import changed_files, file_history
from pi_sessions.core.index.refresh import updated_index
from pi_sessions.core.projection.file_knowledge import normalise_path
from pi_sessions.widgets.keys import SPEC_BY_ID
from pi_sessions.widgets.plain import PlainInput
from textual.pilot import Pilot

from tests.helpers.app import Scanner, loaded, make_app, static_text, until
from tests.helpers.cli import cli
from tests.helpers.evil import ESC_SHOWN, evil
from tests.helpers.sessions import assistant, header, user, write
from tests.helpers.tools import call, compaction, tool_result, tool_use

CWD = "/home/u/proj"
A_PY = f"{CWD}/src/a.py"


def _first() -> list[dict[str, Any]]:
    """Read and edit src/a.py (then compacted away), write out.txt (kept), and a branch
    abandoned at e2 that removed old.txt (as tests/unit/index/test_index.py)."""
    return [
        user("e0", None, "fix it", 0),
        tool_use("e1", "e0", 1, call("read", "c1", path="src/a.py")),
        tool_result("e2", "e1", 2, "c1", "read", "x = 1"),
        tool_use(
            "e3", "e2", 3, call("edit", "c2", path="src/a.py", edits=[{"oldText": "1", "newText": "2"}])
        ),
        tool_result("e4", "e3", 4, "c2", "edit", "ok"),
        tool_use("e7", "e4", 7, call("write", "c4", path=f"{CWD}/out.txt", content="y")),
        tool_result("e8", "e7", 8, "c4", "write", "ok"),
        tool_use("b1", "e2", 20, call("bash", "c5", command="rm old.txt")),
        tool_result("b2", "b1", 21, "c5", "bash", ""),
        assistant("b3", "b2", "gone", 22),
        compaction("k", "e8", 30, first_kept="e7"),
        user("u", "k", "go on", 31),  # the default leaf
    ]


def _second() -> list[dict[str, Any]]:
    """Later: read src/a.py (in context at the default leaf), an edit of it on a branch left."""
    return [
        user("o0", None, "again", 40),
        tool_use("o1", "o0", 41, call("read", "d1", path="src/a.py")),
        tool_result("o2", "o1", 42, "d1", "read", "x = 2"),
        tool_use(
            "o3", "o2", 43, call("edit", "d2", path="src/a.py", edits=[{"oldText": "2", "newText": "3"}])
        ),
        tool_result("o4", "o3", 44, "d2", "edit", "ok"),
        user("o5", "o2", "no, leave it", 45),  # the default leaf: the edit is on a branch
    ]


def _folder(tmp_path: Path) -> tuple[Path, Path, Path]:
    root = tmp_path / "sessions"
    first = write(root / "--home-u-proj--" / "s.jsonl", header(), *_first())
    second = write(
        root / "--home-u-proj--" / "t.jsonl",
        header(id="0195aaaa-0000-7000-8000-000000000002", timestamp="2025-03-01T10:00:40.000Z"),
        *_second(),
    )
    return root, first, second


def _facts(rows: Any) -> list[tuple[str, str, str, bool, bool]]:
    return [(Path(r.session_path).name, r.entry_id, r.action, r.on_active_path, r.in_context) for r in rows]


def _cli_rows(*args: str) -> list[tuple[str, str, str, str, bool, bool]]:
    """What `pi-sessions ARGS --json` prints (an index in memory: the browser's is left alone)."""
    out = cli(*args, "--json", "--no-cache")
    assert out.code == 0, out.stderr
    objs = [json.loads(line) for line in out.stdout.splitlines()]
    keys = ("session_path", "entry_id", "path", "timestamp", "on_active_path", "in_context")
    return [tuple(obj[k] for k in keys) for obj in objs]


def _screen_rows(screen: TouchesScreen) -> list[tuple[str, str, str, str | None, bool, bool]]:
    return [
        (r.session_path, r.entry_id, r.path, r.timestamp, r.on_active_path, r.in_context)
        for r in screen.touch_list.rows
    ]


async def _touches(pilot: Pilot[Any], kind: type[TouchesScreen]) -> TouchesScreen:
    await until(pilot, lambda: isinstance(pilot.app.screen, kind), kind.__name__)
    screen = pilot.app.screen
    assert isinstance(screen, TouchesScreen)
    await until(pilot, lambda: screen.rows is not None, "the index read")
    await pilot.pause()
    return screen


async def _ask_history(pilot: Pilot[Any], value: str | None) -> PromptScreen:
    await pilot.press("H")
    await until(pilot, lambda: isinstance(pilot.app.screen, PromptScreen), "the prompt")
    prompt = pilot.app.screen
    assert isinstance(prompt, PromptScreen)
    if value is not None:
        prompt.query_one(PlainInput).value = value
    return prompt


async def _landed(pilot: Pilot[Any], main: MainScreen, session: Path, entry: str) -> None:
    await until(
        pilot,
        lambda: (
            pilot.app.screen is main
            and main.session is not None
            and main.session.path == str(session)
            and main.branch_tree.current_id() == entry
        ),
        f"{session.name} at {entry}",
    )


async def test_a_files_history_lists_every_touch_with_its_fate_and_enter_lands_on_it(tmp_path: Path) -> None:
    root, first, second = _folder(tmp_path)
    expected = [
        ("t.jsonl", "o3", "changed", False, False),  # on the branch left at o2
        ("t.jsonl", "o2", "read", True, True),  # the last read, still in context
        ("s.jsonl", "e3", "changed", True, False),  # compacted away
        ("s.jsonl", "e2", "read", True, False),
    ]
    db, _ = updated_index(str(root), use_file=False)
    assert _facts(file_history(db.conn, A_PY)) == expected
    db.close()
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        main = await loaded(pilot)
        await _ask_history(pilot, "src/a.py")  # relative: in the open session's folder
        await pilot.press("enter")
        history = await _touches(pilot, HistoryScreen)
        assert isinstance(history, HistoryScreen) and history.path == A_PY
        assert _facts(history.touch_list.rows) == expected
        assert _screen_rows(history) == _cli_rows("history", A_PY, "--session-dir", str(root))
        title = static_text(history, ".touches-title")
        assert title.startswith(f"History of {A_PY}") and "4 entries" in title
        shown = [history.touch_list.render_line(y).text for y in range(4)]
        assert "abandoned branch" in shown[0] and "changed (edit)" in shown[0]
        assert "active path, in context" in shown[1] and "active path, out of context" in shown[2]
        assert shown[0].rstrip().endswith("o3      again")  # the session by its first message
        assert shown[2].rstrip().endswith("e3      fix it")
        await pilot.press("down", "down", "enter")  # e3: in the other session
        await _landed(pilot, main, first, "e3")
        assert main.branch_tree.matches == ["e2", "e3"]  # n / N walk the file's touches there
        status = static_text(main, "#status")
        assert status.startswith("changed src/a.py of e3, active path") and "hit 2 of 2" in status
        await pilot.press("N")
        await until(pilot, lambda: main.branch_tree.current_id() == "e2", "the earlier touch")
        await _ask_history(pilot, A_PY)
        await pilot.press("enter")
        await _touches(pilot, HistoryScreen)
        await pilot.press("enter")  # o3: the abandoned branch's edit
        await _landed(pilot, main, second, "o3")
        await _ask_history(pilot, None)
        await pilot.press("escape")  # no history asked: back where it was
        await until(pilot, lambda: pilot.app.screen is main, "the main screen")
        await _ask_history(pilot, f"{CWD}/never-touched")
        await pilot.press("enter")
        empty = await _touches(pilot, HistoryScreen)
        assert empty.rows == [] and empty.touch_list.placeholder == [
            f"No session read, changed or named {CWD}/never-touched."
        ]
        await pilot.press("escape")
        await until(pilot, lambda: pilot.app.screen is main, "the main screen")


async def test_the_files_view_opens_the_files_history_and_a_row_lands_in_another_session(
    tmp_path: Path,
) -> None:
    root, first, second = _folder(tmp_path)
    app = make_app(root, tmp_path / "cache", open_path=first)
    async with app.run_test(size=(160, 40)) as pilot:
        main = await loaded(pilot)
        assert main.session is not None and main.session.path == str(first)
        main.focus_pane("tree")
        assert main.branch_tree.select("u")
        await pilot.press("w")
        await until(pilot, lambda: isinstance(app.screen, FilesScreen), "the files view")
        view = app.screen
        assert isinstance(view, FilesScreen)
        await until(pilot, lambda: view.report is not None, "the files")
        await pilot.pause()
        assert "h: history (all sessions)" in static_text(view, ".dialog-hint")
        paths = [known.path for known in view.file_list.files]
        view.file_list.move_cursor(paths.index(A_PY))
        await pilot.pause()
        await pilot.press("h")
        history = await _touches(pilot, HistoryScreen)
        assert isinstance(history, HistoryScreen) and history.path == A_PY
        assert [r.entry_id for r in history.touch_list.rows] == ["o3", "o2", "e3", "e2"]
        await pilot.press("escape")  # back to the files view, still open
        await until(pilot, lambda: app.screen is view, "the files view again")
        await pilot.press("h")
        await _touches(pilot, HistoryScreen)
        await pilot.press("down", "enter")  # o2, in the other session: both views close
        await _landed(pilot, main, second, "o2")
        prompt = await _ask_history(pilot, None)
        assert prompt.query_one(PlainInput).value == A_PY  # the file last selected in the files view
        await pilot.press("escape")


async def test_the_recent_edits_feed_lists_the_agents_changes_newest_first(tmp_path: Path) -> None:
    root, first, _ = _folder(tmp_path)
    db, _ = updated_index(str(root), use_file=False)
    expected = list(changed_files(db.conn))
    db.close()
    assert [(Path(r.session_path).name, r.entry_id, r.path) for r in expected] == [
        ("t.jsonl", "o3", A_PY),
        ("s.jsonl", "b1", f"{CWD}/old.txt"),
        ("s.jsonl", "e7", f"{CWD}/out.txt"),
        ("s.jsonl", "e3", A_PY),
    ]
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        main = await loaded(pilot)
        commands = {title: help_text for title, help_text, *_ in app.get_system_commands(cast(Any, main))}
        assert commands["Recent edits"].endswith("(key: e)")
        assert commands["History of a file"].endswith("(key: H)")
        await pilot.press("e")
        edits = await _touches(pilot, EditsScreen)
        assert edits.rows == expected
        assert _screen_rows(edits) == _cli_rows("edits", "--session-dir", str(root))
        shown = [edits.touch_list.render_line(y).text for y in range(4)]
        assert "old.txt" in shown[1] and "abandoned branch" in shown[1] and "changed (rm)" in shown[1]
        assert "out.txt" in shown[2] and "active path, in context" in shown[2]
        await pilot.press("down", "enter")
        await _landed(pilot, main, first, "b1")
        await pilot.press("e")
        await _touches(pilot, EditsScreen)
        await pilot.press("e")  # the key that opened it closes it
        await until(pilot, lambda: app.screen is main, "the main screen")


async def test_the_index_read_in_the_background_does_not_hold_the_screen(tmp_path: Path) -> None:
    """The screen is up, saying it reads, before the index is brought up to date."""
    root, _, _ = _folder(tmp_path)
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        await loaded(pilot)
        screen = EditsScreen(str(root), tmp_path / "cache")
        screen._read = lambda: None  # type: ignore[method-assign,misc,assignment]  # (the reading never ends)
        await app.push_screen(screen)
        await pilot.pause()
        assert screen.rows is None
        assert static_text(screen, ".touches-title").endswith("reading…")
        assert screen.touch_list.placeholder == ["reading…"]
        screen._progressed(3, 10)
        assert "3/10 sessions indexed" in static_text(screen, ".touches-title")


async def test_hostile_paths_and_ids_are_shown_inert(tmp_path: Path) -> None:
    bad = f"{CWD}/{evil('path')}"
    root = tmp_path / "sessions"
    write(
        root / "--home-u-proj--" / "s.jsonl",
        header(),
        user(evil("u0"), None, evil("first"), 0),  # the session's title
        tool_use(evil("t1"), evil("u0"), 1, call("write", "c1", path=bad, content=evil("content"))),
        tool_result(evil("r1"), evil("t1"), 2, "c1", "write", evil("ok")),
    )
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(200, 40)) as pilot:
        main = await loaded(pilot)
        scan = Scanner(app, pilot)
        await pilot.press("e")
        edits = await _touches(pilot, EditsScreen)
        assert [r.path for r in edits.rows or []] == [normalise_path(bad, "")]
        shown = await scan("the recent edits")
        assert ESC_SHOWN in shown  # (the path's column is cut before its markup)
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is main, "the main screen")
        main.focus_pane("tree")
        assert main.branch_tree.select(evil("r1"))
        await pilot.press("w")  # the files view, on the one file
        await until(pilot, lambda: isinstance(app.screen, FilesScreen), "the files view")
        view = app.screen
        assert isinstance(view, FilesScreen)
        await until(pilot, lambda: view.report is not None and view.file_list.cursor == 0, "the file")
        await pilot.press("h")
        history = await _touches(pilot, HistoryScreen)
        assert len(history.rows or []) == 1
        shown = await scan("the history")
        assert ESC_SHOWN in shown and "[bold]path[/] [/] [link=http:/x]L[/link]" in shown  # the title
        await pilot.press("enter")
        await until(
            pilot, lambda: app.screen is main and main.branch_tree.current_id() == evil("t1"), "the entry"
        )


async def test_the_keys_are_in_the_help(tmp_path: Path) -> None:
    root, _, _ = _folder(tmp_path)
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        await pilot.press("question_mark")
        rows = app.screen.rows  # type: ignore[attr-defined]
        shown = {what: keys for keys, what in rows if what}
        assert shown[SPEC_BY_ID["ui.history"].title] == "H"
        assert shown[SPEC_BY_ID["ui.edits"].title] == "e"
        assert shown[SPEC_BY_ID["files.history"].title] == "h"
        assert shown[SPEC_BY_ID["history.close"].title] == "esc, q"


async def test_a_damaged_index_is_rebuilt_and_the_screen_says_so(tmp_path: Path) -> None:
    root, _, _ = _folder(tmp_path)
    index = index_file_path(str(root), tmp_path / "cache")
    index.parent.mkdir(parents=True, exist_ok=True)
    index.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        await loaded(pilot)
        await pilot.press("e")
        edits = await _touches(pilot, EditsScreen)
        assert [r.entry_id for r in edits.touch_list.rows] == ["o3", "b1", "e7", "e3"]
        assert edits.notice is not None and "rebuilt" in edits.notice
        assert any("rebuilt" in n.message for n in app._notifications)
