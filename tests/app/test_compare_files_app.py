"""The comparison and the files views in the running app: mark an entry, compare it with another,
jump to the split point, either leaf or any listed entry (the tree and the context follow); list
what the model knew of each file at an entry, show the exact text it saw, and jump there."""

from __future__ import annotations

import itertools
import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from pi_sessions.app import compare_screen
from pi_sessions.app.compare_screen import CompareScreen
from pi_sessions.app.files_screen import FilesScreen
from pi_sessions.app.main_screen import MainScreen
from pi_sessions.core.common.glyphs import ASCII, UNICODE
from pi_sessions.core.common.text import human_count
from pi_sessions.core.projection.compare import compare
from pi_sessions.core.projection.file_knowledge import FileTracker
from pi_sessions.widgets.plain import FitStatic

from tests.helpers.app import WAIT, Scanner, lines_of, loaded, make_app, until
from tests.helpers.cli import RAW_CONTROL
from tests.helpers.corpus import FIXTURES, deepest_common_ancestor, load_expected
from tests.helpers.evil import ESC_SHOWN, MARKUP_SHOWN, evil
from tests.helpers.sessions import chain, entry, header, jsonl, user, write
from tests.helpers.tools import call, compaction, context_edit, tool_result, tool_use, user_bash

KITCHEN_SINK = "--tmp-scratch--/2025-03-30T10-52-05-079Z_0195e6ae-1c57-71e5-b35b-1bbb5f940b52.jsonl"


def _app(tmp_path: Path, *entries: dict[str, Any], **settings: Any) -> Any:
    path = write(tmp_path / "sessions" / "--home-u-proj--" / "2025-03-01T10-00-00-000Z_s.jsonl", *entries)
    return make_app(tmp_path / "sessions", tmp_path / "cache", open_path=path, **settings)


def _two_contexts() -> list[dict[str, Any]]:
    """e0..e5, then A: a compaction keeping e4 on; B: e1 omitted, e2 replaced by context edits."""
    return [
        header(),
        *chain(6),
        compaction("a1", "e5", 10, first_kept="e4"),
        user("a2", "a1", "after compaction", 11),
        context_edit("x1", "e5", 20, "e1", None),
        context_edit("x2", "x1", 21, "e2", {"content": "short"}),
        user("b1", "x2", "after edits", 22),
    ]


def _status(screen: MainScreen) -> str:
    return screen.query_one("#status", FitStatic).full_text


def _row_of(lines: list[str], *needles: str) -> str:
    """The one row holding every needle."""
    found = [line for line in lines if all(n in line for n in needles)]
    assert len(found) == 1, (needles, found)
    return found[0]


async def _compare_open(pilot: Any, screen: MainScreen) -> CompareScreen:
    await pilot.press("equals_sign")
    await until(pilot, lambda: isinstance(pilot.app.screen, CompareScreen), "the comparison")
    view = pilot.app.screen
    assert isinstance(view, CompareScreen)
    await until(pilot, lambda: view.comparison is not None, "the comparison's rows")
    await pilot.pause()
    return view


async def _compare_marked(pilot: Any, screen: MainScreen, marked: str, other: str) -> CompareScreen:
    """`m` on `marked` in the tree, then `=` on `other`: the comparison, open with its rows."""
    screen.focus_pane("tree")
    screen.branch_tree.select(marked)
    await pilot.press("m")
    screen.branch_tree.select(other)
    return await _compare_open(pilot, screen)


async def _back(pilot: Any, screen: MainScreen, entry_id: str) -> None:
    """Back on the main screen with the tree's cursor and the context at `entry_id`."""
    await until(pilot, lambda: pilot.app.screen is screen, "back to the main screen")
    await until(pilot, lambda: screen.context_leaf == entry_id, f"the context at {entry_id}")
    assert screen.branch_tree.current_id() == entry_id
    assert screen.active_pane == "tree"


# ---------------------------------------------------------------------- compare
async def test_mark_compare_and_jump_to_the_split_either_leaf_and_a_listed_entry(tmp_path: Path) -> None:
    app = _app(tmp_path, *_two_contexts())
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        tree = screen.branch_tree
        screen.focus_pane("tree")
        assert tree.select("a2")
        await pilot.press("m")
        await pilot.pause()
        assert tree.marked == "a2" and "marked a2" in _status(screen) and "press =" in _status(screen)
        rows = lines_of(tree)
        assert UNICODE.mark in _row_of(rows, "after compaction")
        assert sum(UNICODE.mark in row for row in rows) == 1  # on that row only

        assert tree.select("b1")
        view = await _compare_open(pilot, screen)
        lines = lines_of(view.rows)
        assert (
            "Compare A a2 (marked) with B b1 (selected)"
            in view.query_one("#compare-title", FitStatic).full_text
        )
        _row_of(lines, "split", "e5", "answer 5")
        _row_of(lines, "leaf A", "a2", "after compaction")
        _row_of(lines, "leaf B", "b1", "after edits")
        result = compare(screen.session, "a2", "b1")  # type: ignore[arg-type]
        _row_of(lines, "since the split: 2 entries, 1 message, 0 tokens, $0.0000")  # a1 a2
        _row_of(lines, "since the split: 3 entries, 1 message, 0 tokens, $0.0000")  # x1 x2 b1
        for side in (result.a, result.b):
            messages = side.context_message_count
            _row_of(
                lines, f"pi's context at this leaf: {messages} messages, ~{human_count(side.context_tokens)}"
            )
        text = "\n".join(lines)
        only_a = text.index("Only in A's context (2)")
        only_b = text.index("Only in B's context (1)")
        differ = text.index("In both, sent differently (3)")
        assert only_a < text.index("a1 ", only_a) < only_b < text.index("b1 ", only_b) < differ
        reasons = [line.strip() for line in lines[lines.index(_row_of(lines, "e2 ", "question 2")) :][:3]]
        assert reasons[1:] == ["A: summarized by compaction a1", "B: content replaced by context edit x2"]
        _row_of(lines, "2 entries up to it sent the same way")

        await pilot.press("s")  # the split point
        await _back(pilot, screen, "e5")
        assert tree.marked == "a2"  # the mark stays for the next comparison

        await _compare_open(pilot, screen)
        await pilot.press("a")  # leaf A
        await _back(pilot, screen, "a2")
        await pilot.press("equals_sign")  # the marked entry is the selected one: nothing to compare
        await pilot.pause()
        assert app.screen is screen and "the marked entry is the selected one" in _status(screen)

        assert tree.select("b1")
        await _compare_open(pilot, screen)
        await pilot.press("b")  # leaf B
        await _back(pilot, screen, "b1")

        view = await _compare_open(pilot, screen)
        assert view.rows.select_entry("e2")  # an entry sent differently
        await pilot.press("enter")
        await _back(pilot, screen, "e2")

        view = await _compare_open(pilot, screen)
        await pilot.press("down", "down", "down", "escape")  # closing goes nowhere
        await _back(pilot, screen, "e2")

        assert tree.select("a2")
        await pilot.press("m")  # again: unmarked
        await pilot.pause()
        assert tree.marked is None and not any(UNICODE.mark in row for row in lines_of(tree))
        await pilot.press("equals_sign")
        await pilot.pause()
        assert app.screen is screen and "nothing is marked" in _status(screen)


async def test_a_labelled_entry_shows_its_label_in_the_comparison(tmp_path: Path) -> None:
    labelled = [*_two_contexts(), entry("label", "l1", "a2", 12, targetId="e5", label="checkpoint")]
    app = _app(tmp_path, *labelled)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        view = await _compare_marked(pilot, screen, "a2", "b1")
        split = _row_of(lines_of(view.rows), "split", "e5")
        assert f"{UNICODE.label}checkpoint answer 5" in split


async def test_the_cursor_walks_only_the_entries_of_a_comparison(tmp_path: Path) -> None:
    app = _app(tmp_path, *_two_contexts())
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        view = await _compare_marked(pilot, screen, "a2", "b1")
        walked: list[str | None] = []
        for _ in range(12):
            entry = view.rows.current_entry()
            if not walked or walked[-1] != entry:
                walked.append(entry)
            await pilot.press("down")
        # The split, the leaves, only in A, only in B, sent differently: never a heading or a note.
        assert walked == ["e5", "a2", "b1", "a1", "a2", "b1", "e0", "e2", "e3"]
        await pilot.press("home")
        assert view.rows.current_entry() == "e5"


async def test_leaves_with_different_roots_have_no_split_point(tmp_path: Path) -> None:
    app = _app(tmp_path, header(), *chain(2), user("o1", "gone", "an orphan", 7))
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        screen.focus_pane("tree")
        screen.branch_tree.select("e1")
        await pilot.press("m")
        screen.branch_tree.select("o1")
        view = await _compare_open(pilot, screen)
        lines = lines_of(view.rows)
        _row_of(lines, "none: the two leaves have different roots")
        assert not any(line.startswith("   split ") for line in lines)  # no split row
        _row_of(lines, "Only in A's context (2)")
        _row_of(lines, "Only in B's context (1)")
        await pilot.press("s")  # no split point to go to: the view stays
        await pilot.pause()
        assert app.screen is view
        await pilot.press("a")
        await _back(pilot, screen, "e1")


def _held_compare(monkeypatch: Any) -> tuple[threading.Event, threading.Event, list[str]]:
    """The view's comparison held until `release` is set; `started` once a run began; the
    leaves of every run so far."""
    release, started = threading.Event(), threading.Event()
    runs: list[str] = []

    def held(session: Any, leaf_a: str, leaf_b: str) -> Any:
        runs.append(leaf_b)
        started.set()
        release.wait(WAIT)  # on the event loop this would freeze the app until then
        return compare(session, leaf_a, leaf_b)

    monkeypatch.setattr(compare_screen, "compare", held)
    return release, started, runs


async def test_the_view_opens_at_once_and_fills_in_when_the_comparison_is_made(
    tmp_path: Path, monkeypatch: Any
) -> None:
    release, started, runs = _held_compare(monkeypatch)
    app = _app(tmp_path, *_two_contexts())
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        screen.focus_pane("tree")
        screen.branch_tree.select("a2")
        await pilot.press("m")
        screen.branch_tree.select("b1")
        await pilot.press("equals_sign")
        await until(pilot, lambda: isinstance(app.screen, CompareScreen) and started.is_set(), "the worker")
        view = app.screen
        assert isinstance(view, CompareScreen)
        await pilot.pause()  # the app still draws and answers while the worker compares
        assert view.comparison is None
        assert [line.strip() for line in lines_of(view.rows) if line.strip()] == ["comparing…"]
        await pilot.press("s")  # nothing to jump to yet: the view stays
        assert app.screen is view
        release.set()
        await until(pilot, lambda: view.comparison is not None, "the comparison's rows")
        await pilot.pause()
        lines = lines_of(view.rows)
        _row_of(lines, "split", "e5", "answer 5")
        _row_of(lines, "leaf B", "b1", "after edits")
        assert runs == ["b1"]
        await pilot.press("s")
        await _back(pilot, screen, "e5")


async def test_a_comparison_overtaken_by_the_session_growing_is_made_again(
    tmp_path: Path, monkeypatch: Any
) -> None:
    release, started, runs = _held_compare(monkeypatch)
    app = _app(tmp_path, *_two_contexts())
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        session = screen.session
        assert session is not None and session.path is not None
        screen.focus_pane("tree")
        screen.branch_tree.select("a2")
        await pilot.press("m")
        screen.branch_tree.select("b1")
        await pilot.press("equals_sign")
        await until(pilot, started.is_set, "the worker")
        view = app.screen
        assert isinstance(view, CompareScreen)
        count = len(session.records)
        with open(session.path, "ab") as f:  # pi writes on while the comparison is made
            f.write(jsonl(user("b2", "b1", "written meanwhile", 30)))
        await until(pilot, lambda: len(session.records) == count + 1, "the new entry read")
        release.set()
        await until(pilot, lambda: view.comparison is not None, "the comparison's rows")
        assert runs == ["b1", "b1"]  # the first answer was stale: dropped, and compared again
        _row_of(lines_of(view.rows), "leaf B", "b1", "after edits")


async def test_every_pair_of_tips_of_a_corpus_file_splits_where_pi_says(tmp_path: Path) -> None:
    """The split row is pi's deepest common ancestor (its own tree), the context sizes are pi's
    estimates at each leaf (_tokens.json), and `s` lands on the split."""
    expected = load_expected(FIXTURES / "expected" / (KITCHEN_SINK + ".json"))
    pi_tokens = json.loads((FIXTURES / "expected" / "_tokens.json").read_text())[KITCHEN_SINK]
    children = expected["tree"]["children"]
    tips = [i for i in dict.fromkeys(expected["entry_ids"]) if not children.get(i)]
    assert len(tips) == 5
    path = FIXTURES / "sessions" / KITCHEN_SINK
    app = make_app(path.parent.parent, tmp_path / "cache", open_path=path)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        screen.focus_pane("tree")
        tree = screen.branch_tree
        for a, b in itertools.combinations(tips, 2):
            split = deepest_common_ancestor(children, a, b)
            assert split is not None
            assert tree.select(a)
            if tree.marked != a:
                await pilot.press("m")
            assert tree.select(b)
            view = await _compare_open(pilot, screen)
            lines = lines_of(view.rows)
            _row_of(lines, "split", split)
            for leaf, name in ((a, "A"), (b, "B")):
                _row_of(lines, f"leaf {name}", leaf)
            text = "\n".join(lines)
            for leaf in (a, b):
                assert f"~{human_count(pi_tokens[leaf])} tokens" in text, leaf
            await pilot.press("s")
            await _back(pilot, screen, split)


# ---------------------------------------------------------------------- files
def _work() -> list[dict[str, Any]]:
    """Reads, an edit, a shell command, a failed write; then a compaction (k, keeping e5 on,
    leaf u) and, on another branch, a context edit omitting the `cat README.md` output (leaf v)."""
    return [
        header(),
        user("e0", None, "fix the pool", 0),
        tool_use("e1", "e0", 1, call("read", "c1", path="src/pool.ts", offset=10, limit=20)),
        tool_result("e2", "e1", 2, "c1", "read", "10\tconst size = 5;"),
        tool_use(
            "e3",
            "e2",
            3,
            call("edit", "c2", path="./src/pool.ts", edits=[{"oldText": "size = 5", "newText": "size = 9"}]),
        ),
        tool_result("e4", "e3", 4, "c2", "edit", "Successfully replaced 1 block(s) in ./src/pool.ts."),
        tool_use("e5", "e4", 5, call("bash", "c3", command="cat README.md && rm -f old.txt")),
        tool_result("e6", "e5", 6, "c3", "bash", "# Project\n"),
        tool_use("e7", "e6", 7, call("write", "c4", path="/home/u/proj/notes.md", content="x")),
        tool_result("e8", "e7", 8, "c4", "write", "EACCES", error=True),
        user("e9", "e8", "thanks", 9),
        compaction("k", "e9", 20, first_kept="e5"),
        user("u", "k", "go on", 21),
        context_edit("x1", "e9", 30, "e6", None),
        user("v", "x1", "go on", 31),
    ]


async def _files_open(pilot: Any) -> FilesScreen:
    await pilot.press("w")
    await until(pilot, lambda: isinstance(pilot.app.screen, FilesScreen), "the files view")
    view = pilot.app.screen
    assert isinstance(view, FilesScreen)
    await until(pilot, lambda: view.report is not None, "the files")
    await pilot.pause()
    return view


def _shown(view: FilesScreen) -> tuple[str, str, list[str]]:
    """What the text side shows: the touch, its fate, the text's lines."""
    touch = view.query_one("#files-touch", FitStatic).full_text
    fate = view.query_one("#files-fate", FitStatic).full_text
    return touch, fate, [str(line) for line in view.text_log.lines]


async def test_files_list_their_states_show_the_text_seen_and_jump_there(tmp_path: Path) -> None:
    app = _app(tmp_path, *_work())
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        screen.focus_pane("tree")
        assert screen.branch_tree.select("u")
        view = await _files_open(pilot)
        assert "Files at u" in view.query_one("#files-title", FitStatic).full_text
        rows = lines_of(view.file_list)
        _row_of(rows, "summarized", "src/pool.ts", "read at e2 (lines 10-29)", "edit at e3")
        _row_of(rows, "in-context", "README.md", "read by cat at e6")
        _row_of(rows, "in-context", "old.txt", "edit by rm at e5")
        _row_of(rows, "never-seen", "notes.md", "named by write")
        # The first file, at its latest touch: the edit's own arguments, summarized since.
        touch, fate, text = _shown(view)
        assert touch.startswith("src/pool.ts") and "edit at e3" in touch and "2 of 2 (the latest)" in touch
        assert fate == "summarized by compaction k"
        assert text == ["--- old", "size = 5", "+++ new", "size = 9"]
        await pilot.press("left")  # the read before it: the tool result, tabs as spaces
        touch, fate, text = _shown(view)
        assert "read at e2 (lines 10-29)" in touch and "1 of 2" in touch
        assert text == ["10  const size = 5;"]
        await pilot.press("left")  # there is nothing earlier
        assert "1 of 2" in _shown(view)[0]
        await pilot.press("enter")
        await _back(pilot, screen, "e2")

        tracker = screen.file_tracker
        assert isinstance(tracker, FileTracker)
        assert screen.branch_tree.select("v")
        view = await _files_open(pilot)
        assert screen.file_tracker is tracker  # what was read back is kept across entries
        await pilot.press("down")
        touch, fate, text = _shown(view)
        assert touch.startswith("README.md") and fate == "omitted by context edit x1"
        assert text[0] == "# Project" and not "".join(text[1:])  # the cat output
        _row_of(lines_of(view.file_list), "omitted", "README.md")
        await pilot.press("down", "down")  # notes.md: the failed write is all there is
        touch, fate, text = _shown(view)
        assert touch.startswith("notes.md") and "reported an error" in fate
        await pilot.press("right")  # nothing later either
        assert "1 of 1" in _shown(view)[0]
        await pilot.press("escape")
        await _back(pilot, screen, "v")


async def test_a_still_visible_earlier_read_is_named(tmp_path: Path) -> None:
    entries = [*_work()[:11], context_edit("x2", "e9", 40, "e3", None), user("w", "x2", "go on", 41)]
    app = _app(tmp_path, *entries)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        screen.focus_pane("tree")
        screen.branch_tree.select("w")
        view = await _files_open(pilot)
        touch, fate, _ = _shown(view)
        assert "edit at e3" in touch
        assert fate == "omitted by context edit x2 · still in context: read at e2 (lines 10-29)"


async def test_the_files_are_read_in_a_worker_with_a_reading_note(tmp_path: Path, monkeypatch: Any) -> None:
    release = threading.Event()
    started = threading.Event()
    real = FileTracker.files_at

    def slow(self: FileTracker, leaf_id: str, projection: Any = None) -> Any:
        started.set()
        release.wait(10)
        return real(self, leaf_id, projection)

    monkeypatch.setattr(FileTracker, "files_at", slow)
    app = _app(tmp_path, *_work())
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        screen.focus_pane("tree")
        await pilot.press("w")
        await until(pilot, lambda: isinstance(app.screen, FilesScreen), "the files view")
        view = app.screen
        assert isinstance(view, FilesScreen)
        await until(pilot, started.is_set, "the worker")
        await pilot.pause()
        assert lines_of(view.file_list)[0].strip() == "reading…"  # the app still draws meanwhile
        release.set()
        await until(pilot, lambda: view.report is not None, "the files")
        await pilot.pause()
        _row_of(lines_of(view.file_list), "README.md")


async def test_a_failed_reading_is_tried_again_then_said(tmp_path: Path, monkeypatch: Any) -> None:
    real = FileTracker.files_at
    calls: list[str] = []

    def flaky(self: FileTracker, leaf_id: str, projection: Any = None) -> Any:
        calls.append(leaf_id)
        if len(calls) == 1 or leaf_id == "e9":
            raise OSError("the disk went away")
        return real(self, leaf_id, projection)

    monkeypatch.setattr(FileTracker, "files_at", flaky)
    app = _app(tmp_path, *_work())
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        screen.focus_pane("tree")
        view = await _files_open(pilot)  # the first reading failed, the second did not
        assert calls == ["v", "v"]
        _row_of(lines_of(view.file_list), "README.md")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, "back")
        screen.branch_tree.select("e9")
        await pilot.press("w")
        await until(pilot, lambda: isinstance(app.screen, FilesScreen), "the files view")
        view = app.screen
        await until(pilot, lambda: "the disk went away" in " ".join(lines_of(view.file_list)), "the error")
        assert calls.count("e9") == 3 and view.report is None and app.is_running


async def test_the_files_of_a_corpus_file(tmp_path: Path) -> None:
    path = FIXTURES / "sessions" / KITCHEN_SINK
    app = make_app(path.parent.parent, tmp_path / "cache", open_path=path)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        screen.focus_pane("tree")
        assert screen.branch_tree.current_id() == "91ac5f50"  # the active leaf
        view = await _files_open(pilot)
        rows = lines_of(view.file_list)
        # Checked by hand on the tree: ee34ae20 replaces 1d4188b2, 7ea116b8 omits 22dfefc9.
        _row_of(rows, "replaced", "lib/utils.py", "read at 1d4188b2")
        _row_of(rows, "omitted", "src/server.ts", "write at 22dfefc9")
        _row_of(rows, "in-context", "package.json", "read by !cat at 1a1f13b8", "write at db5edbf6")
        index = next(i for i, f in enumerate(view.file_list.files) if f.display == "lib/utils.py")
        view.file_list.move_cursor(index)
        await pilot.pause()
        _, fate, text = _shown(view)
        assert fate == "content replaced by context edit ee34ae20"
        assert text[0].startswith("1") and "createPool" in text[0]  # the read's result, as it was
        await pilot.press("enter")
        await _back(pilot, screen, "1d4188b2")


# ---------------------------------------------------------------------- hostile text
async def test_both_views_show_hostile_text_inert(tmp_path: Path) -> None:
    bad = evil("path")
    entries = [
        header(cwd="/nowhere/" + evil("cwd")),
        user(evil("u0"), None, evil("question"), 0),
        tool_use(evil("t1"), evil("u0"), 1, call("read", "c1", path=bad)),
        tool_result(evil("r1"), evil("t1"), 2, "c1", "read", evil("content")),
        user_bash(evil("b1"), evil("r1"), 3, f"cat '{bad}'", evil("output")),
        user(evil("left"), evil("b1"), evil("left"), 4),
        user(evil("right"), evil("b1"), evil("right"), 5),
    ]
    for ascii_only in (False, True):
        app = _app(tmp_path / str(ascii_only), *entries, ascii=ascii_only)
        async with app.run_test(size=(160, 48)) as pilot:
            screen = await loaded(pilot)
            scan = Scanner(app, pilot)
            screen.focus_pane("tree")
            tree = screen.branch_tree
            assert tree.select(evil("left"))
            await pilot.press("m")
            assert (ASCII if ascii_only else UNICODE).mark in await scan("the marked row")
            assert tree.select(evil("right"))
            await _compare_open(pilot, screen)
            shown = await scan("the comparison")
            assert MARKUP_SHOWN in shown and (ascii_only or ESC_SHOWN in shown)
            await pilot.press("escape")
            await until(pilot, lambda app=app, screen=screen: app.screen is screen, "back")  # type: ignore[misc]  # (mypy cannot infer a lambda with a default argument)
            view = await _files_open(pilot)
            shown = await scan("the files view")
            assert MARKUP_SHOWN in shown
            for _ in view.file_list.files:
                for _ in range(3):
                    await pilot.press("left")
                    await scan("a touch")
                await pilot.press("down")
                await scan("another file")
            assert not any(RAW_CONTROL.search(str(line)) for line in view.text_log.lines)


@pytest.mark.parametrize("links", ["1", "0"])
async def test_file_paths_are_links_where_the_terminal_shows_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, links: str
) -> None:
    """PI_HYPERLINKS=1 (pi's switch): each absolute path is an OSC 8 link whose address holds no
    raw character of the session (a hostile path is percent-encoded); =0: no links."""
    monkeypatch.setenv("PI_HYPERLINKS", links)
    bad = "/work/" + evil("path")
    entries = [
        header(cwd="/work"),
        user("u0", None, "look", 0),
        tool_use("t1", "u0", 1, call("read", "c1", path=bad), call("read", "c2", path="/work/src/a b.py")),
        tool_result("r1", "t1", 2, "c1", "read", "x"),
        tool_result("r2", "r1", 3, "c2", "read", "y"),
    ]
    app = _app(tmp_path, *entries)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        screen.focus_pane("tree")
        view = await _files_open(pilot)
        found = [
            segment.style.link
            for y in range(view.file_list.size.height)
            for segment in view.file_list.render_line(y)
            if segment.style is not None and segment.style.link
        ]
    if links == "0":
        assert not found
        return
    assert "file:///work/src/a%20b.py" in found and len(found) == 2
    assert all(re.fullmatch(r"file:///[A-Za-z0-9%/._~-]*", link) for link in found), found


# ---------------------------------------------------------------------- keys, palette, help
async def test_mark_compare_and_files_are_in_the_palette_and_the_help(tmp_path: Path) -> None:
    app = _app(tmp_path, *_two_contexts())
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        commands = {title: (help_text, run) for title, help_text, run, *_ in app.get_system_commands(screen)}
        assert commands["Mark the selected entry to compare"][0].endswith("(key: m)")
        assert commands["Compare the marked entry with the selected one"][0].endswith("(key: =)")
        assert commands["Files the model knew at the selected entry"][0].endswith("(key: w)")
        screen.branch_tree.select("a2")
        await commands["Mark the selected entry to compare"][1]()
        assert screen.branch_tree.marked == "a2"
        screen.branch_tree.select("b1")
        await commands["Compare the marked entry with the selected one"][1]()
        await until(pilot, lambda: isinstance(app.screen, CompareScreen), "the comparison")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, "back")
        await commands["Files the model knew at the selected entry"][1]()
        await until(pilot, lambda: isinstance(app.screen, FilesScreen), "the files view")
        await pilot.press("q")
        await until(pilot, lambda: app.screen is screen, "back")
        await pilot.press("question_mark")
        rows = dict(app.screen.rows)
        assert rows[UNICODE.mark].startswith("the entry marked with m: move to another and press = to")
        assert rows["="].startswith("compare the marked entry") and rows["w"].startswith("files:")
        assert rows["s"] == "the comparison: go to the split point"


def test_the_comparison_says_which_leaf_lies_on_the_others_path() -> None:
    """A an ancestor of B: "A lies on B's path"; the other way round: "B lies on A's path"."""
    from pi_sessions.core.session.session import Session
    from pi_sessions.widgets.compare_view import RowKind, comparison_rows

    session = Session.from_bytes(jsonl(header(), *chain(4)), "/s.jsonl")

    def notes(a: str, b: str) -> list[str]:
        return [row.text for row in comparison_rows(compare(session, a, b)) if row.kind is RowKind.NOTE]

    assert any(note.startswith("A lies on B's path") for note in notes("e1", "e3"))
    assert any(note.startswith("B lies on A's path") for note in notes("e3", "e1"))
    assert not any("lies on" in note for note in notes("e3", "e3"))
