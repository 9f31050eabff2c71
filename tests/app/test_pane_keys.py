"""The keys of each pane, pressed as a user presses them, checked on what the screen shows."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from pi_sessions.app.screens import ForkScreen, MenuScreen, RawJsonScreen
from pi_sessions.core.common.jsvalues import date_ms
from pi_sessions.core.search import in_session as session_search
from pi_sessions.core.session.session import Session

from tests.helpers.app import WAIT, lines_of, loaded, main, make_app, screen_text, settled, static_text, until
from tests.helpers.sessions import assistant, chain, entry, header, jsonl, user, write


def session_file(
    root: Path,
    cwd: str,
    sid: str,
    texts: list[str],
    day: int,
    name: str | None = None,
    cost: float | None = None,
) -> Path:
    """A session of user messages on 2025-03-0<day> (the i-th at 10:00:0i); with `cost`, a last
    reply that cost that much."""
    rows: list[dict[str, Any]] = [header(id=sid, cwd=cwd, timestamp=f"2025-03-0{day}T10:00:00.000Z")]
    parent = None
    for i, text in enumerate(texts):
        message = user(f"{sid}-{i}", parent, text, i)
        message["timestamp"] = f"2025-03-0{day}T10:00:0{i}.000Z"
        message["message"]["timestamp"] = date_ms(message["timestamp"])
        rows.append(message)
        parent = f"{sid}-{i}"
    if cost is not None:
        usage = {"input": 10, "output": 5, "totalTokens": 15, "cost": {"total": cost}}
        reply = assistant(f"{sid}-r", parent, "a reply", 9, usage=usage)
        reply["timestamp"] = f"2025-03-0{day}T10:00:09.000Z"
        reply["message"]["timestamp"] = date_ms(reply["timestamp"])
        rows.append(reply)
        parent = f"{sid}-r"
    if name:
        rows.append(entry("session_info", f"{sid}-n", parent, 50, name=name))
    folder = root / ("--" + cwd.strip("/").replace("/", "-") + "--")
    return write(folder / f"{sid}.jsonl", *rows)


@pytest.fixture
def folders(tmp_path: Path) -> Path:
    """Two working directories; in /home/u/a (the current one, shown first though /home/u/b
    holds the newest session): four sessions whose recent, name, size and cost orders all differ."""
    root = tmp_path / "sessions"
    more = ["more"] * 4
    session_file(root, "/home/u/a", "banana", ["banana question", *more], 1, cost=0.01)  # 6 messages, oldest
    session_file(root, "/home/u/a", "zeta", ["zeta question", "more", "more"], 2, name="Zeta name", cost=0.5)
    big = ["date question " + "long " * 200]
    session_file(root, "/home/u/a", "date", big, 3, cost=0.2)  # 2 messages, big
    session_file(root, "/home/u/a", "cherry", ["cherry question"], 4, cost=3.0)  # 2 messages, newest
    session_file(root, "/home/u/b", "beta", ["beta question"], 5, name="Beta work")
    return root


def sidebar_rows(screen: Any) -> list[str]:
    """The sidebar as drawn: group titles flush left, sessions indented."""
    return [row.rstrip() for row in lines_of(screen.sidebar.session_list) if row.strip()]


def titles(screen: Any) -> list[str]:
    """The first word of each session's title, in the order shown (markers aside)."""
    return [
        next(w for w in row.split() if w not in "●◉↳") for row in sidebar_rows(screen) if row.startswith(" ")
    ]


async def test_sidebar_scope_named_and_sort_keys(folders: Path, tmp_path: Path) -> None:
    app = make_app(folders, tmp_path / "cache", cwd="/home/u/a")
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await loaded(pilot)
        title = lambda: static_text(screen, "#sidebar-title")  # noqa: E731
        assert titles(screen) == ["cherry", "date", "Zeta", "banana", "Beta"]  # recent first
        assert next(r for r in sidebar_rows(screen) if not r.startswith(" ")).startswith("/home/u/a")
        await pilot.press("c")  # this folder only
        assert titles(screen) == ["cherry", "date", "Zeta", "banana"] and "this folder" in title()
        await pilot.press("n")  # named only, in this folder
        assert titles(screen) == ["Zeta"] and "named" in title() and "Sessions 1/5" in title()
        await pilot.press("c")
        assert titles(screen) == ["Zeta", "Beta"] and "all folders" in title()
        await pilot.press("n", "c", "s")  # by name: titles, case aside
        assert titles(screen) == ["banana", "cherry", "date", "Zeta"] and "by name" in title()
        await pilot.press("s")  # by size: messages, then bytes
        assert titles(screen) == ["banana", "Zeta", "date", "cherry"] and "by size" in title()
        await pilot.press("s")  # by cost: the dearest first
        assert titles(screen) == ["cherry", "Zeta", "date", "banana"] and "by cost" in title()
        await pilot.press("s")
        assert titles(screen) == ["cherry", "date", "Zeta", "banana"] and "by" not in title()


async def test_brackets_move_between_fork_points_in_the_tree_and_messages_in_the_context(
    tmp_path: Path,
) -> None:
    root = tmp_path / "sessions"
    rows = [header(id="forks"), *chain(4)]  # e0..e3
    rows += [user("b1", "e1", "first fork's other branch", 10), assistant("b2", "b1", "ok", 11)]
    rows += [user("c1", "b1", "second fork's other branch", 12)]
    write(root / "--home-u-proj--" / "forks.jsonl", *rows)
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("tab", "end")

        async def at() -> str:
            await until(pilot, lambda: "Context at " in static_text(screen, "#context-title"))
            return static_text(screen, "#context-title").removeprefix("Context at ")

        last = await at()
        await pilot.press("left_square_bracket")
        assert await at() == "b1"  # the nearest fork point above
        await pilot.press("left_square_bracket")
        assert await at() == "e1"
        await pilot.press("left_square_bracket")
        assert await at() == "e1"  # none above: stays
        await pilot.press("right_square_bracket")
        assert await at() == "b1"
        await pilot.press("right_square_bracket")
        assert await at() == "b1"  # none below
        assert last not in ("b1", "e1")
        # In the context pane, [ and ] go from message to message.
        screen.branch_tree.select("c1")
        await until(pilot, lambda: static_text(screen, "#context-title") == "Context at c1")
        await pilot.press("tab", "home")
        await settled(pilot)
        body = screen.context_view.body

        def current_message() -> str:
            return next(line for line in lines_of(body) if line.strip()).strip()

        assert current_message().startswith("user e0")
        await pilot.press("right_square_bracket", "right_square_bracket")
        await settled(pilot)
        assert body.blocks[body.current].entry_id == "b1"
        assert any(line.startswith("user b1") for line in lines_of(body))
        await pilot.press("left_square_bracket")
        assert body.blocks[body.current].entry_id == "e1"


async def test_tree_search_needs_every_word(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    write(
        root / "--home-u-proj--" / "words.jsonl",
        header(id="words"),
        user("u1", None, "the alpha release", 1),
        assistant("a1", "u1", "beta testers wanted", 2),
        user("u2", "a1", "Alpha and BETA together", 3),
        assistant("a2", "u2", "gamma", 4),
    )
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("tab", "slash", *"Beta ALPHA", "enter")
        await until(pilot, lambda: "match" in static_text(screen, "#status"), "the search")
        assert static_text(screen, "#status").startswith("1 entries match 'Beta ALPHA'")
        assert screen.branch_tree.current_id() == "u2"
        await pilot.press("escape", "slash", *"alpha", "enter")
        await until(pilot, lambda: "'alpha'" in static_text(screen, "#status"), "the second search")
        assert static_text(screen, "#status").startswith("2 entries match 'alpha'")
        await pilot.press("escape", "slash", *"alpha delta", "enter")
        await until(pilot, lambda: "'alpha delta'" in static_text(screen, "#status"), "the third search")
        assert static_text(screen, "#status") == "nothing matches 'alpha delta'"
        await pilot.press("escape", "slash", *"a1", "enter")  # an entry's id finds it
        await until(pilot, lambda: "'a1'" in static_text(screen, "#status"), "the id search")
        assert static_text(screen, "#status").startswith("1 entries match 'a1'")
        await until(pilot, lambda: static_text(screen, "#context-title") == "Context at a1", "a1")


async def test_a_slow_tree_search_answers_after_a_newer_one_are_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first search is still running when the user searches again: only the newer answer
    reaches the screen, whichever finishes last."""
    real = session_search.tree_matches  # (the tree pane imports it when it searches)
    first_may_finish, first_finished = threading.Event(), threading.Event()

    def slow_first(session: Session, parsed: Any, query: str) -> list[str]:
        if query == "alpha":
            first_may_finish.wait(WAIT)  # (bounded: a failing run does not hang)
            try:
                return real(session, parsed, query)
            finally:
                first_finished.set()
        return real(session, parsed, query)

    monkeypatch.setattr(session_search, "tree_matches", slow_first)
    root = tmp_path / "sessions"
    write(
        root / "--home-u-proj--" / "words.jsonl",
        header(id="words"),
        user("u1", None, "the alpha release", 1),
        assistant("a1", "u1", "beta testers wanted", 2),
        user("u2", "a1", "alpha and gamma", 3),
    )
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("tab", "slash", *"alpha", "enter")
        await pilot.press("escape", "slash", *"gamma", "enter")
        await until(pilot, lambda: "'gamma'" in static_text(screen, "#status"), "the second search")
        first_may_finish.set()
        await until(pilot, first_finished.is_set, "the first search")
        await until(
            pilot,
            lambda: not any(w.group == "tree-search" and not w.is_finished for w in app.workers),
            "the first search's worker",
        )
        await pilot.pause()
        assert static_text(screen, "#status").startswith("1 entries match 'gamma'")
        assert screen.branch_tree.current_id() == "u2"


async def test_clone_from_the_app(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    folder = root / "--home-u-proj--"
    source = write(
        folder / "2025-03-01T10-00-00-000Z_src.jsonl",
        header(id="src"),
        *chain(3),
        user("b1", "e0", "another branch", 9),
    )
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("tab", "home")  # the cursor elsewhere: a clone is at the default leaf
        await pilot.press("C")
        await until(pilot, lambda: isinstance(app.screen, ForkScreen), "the preview")
        assert isinstance(app.screen, ForkScreen)
        assert app.screen.title_text == "Fork at b1"
        await pilot.press("enter")
        await until(pilot, lambda: len(screen.sidebar.summaries) == 2, "the clone listed")
        [clone] = [p for p in folder.iterdir() if p != source]
        assert Session.open(clone).entry_ids() == ["e0", "b1"]
        await until(pilot, lambda: screen.session is not None and screen.session.path == str(clone), "opened")


async def test_export_from_the_app(tmp_path: Path) -> None:
    """E, then what and into which folder: the session's own folder or the current one."""
    own = tmp_path / "own"
    own.mkdir()
    root = tmp_path / "sessions"
    write(root / "--home-u-proj--" / "exp.jsonl", header(id="exp", cwd=str(own)), *chain(4))
    out = tmp_path / "project"
    out.mkdir()
    app = make_app(root, tmp_path / "cache", cwd=str(out))
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await loaded(pilot)

        async def menu(title: str) -> None:
            await until(
                pilot, lambda: isinstance(app.screen, MenuScreen) and title in screen_text(app), title
            )

        await pilot.press("tab", "k", "E")  # the context at e2
        await menu("Export")
        await pilot.press("1")
        await menu(f"the current folder: {out}")
        await pilot.press("2")
        await until(pilot, lambda: "exported" in static_text(screen, "#status"), "the export")
        js, md = sorted(out.iterdir())
        assert md.name == "exp-context-e2.md" and js.name == "exp-context-e2.json"
        assert json.loads(js.read_text())["context_entry_ids"] == ["e0", "e1", "e2"]
        assert "answer 1" in md.read_text() and "answer 3" not in md.read_text()
        assert not list(own.iterdir())
        await pilot.press("E")
        await menu("Export")
        await pilot.press("2")  # the whole tree
        await menu(f"the session's folder: {own}")
        await pilot.press("1")
        await until(pilot, lambda: len(list(own.iterdir())) == 2, "the tree export")
        assert {p.name for p in own.iterdir()} == {"exp-tree.md", "exp-tree.json"}
        assert [e["id"] for e in json.loads((own / "exp-tree.json").read_text())["entries"]] == [
            "e0",
            "e1",
            "e2",
            "e3",
        ]


async def test_rescan_reads_the_folder_again(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    write(root / "--home-u-proj--" / "one.jsonl", header(id="one"), user("u", None, "the first one"))
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await loaded(pilot)
        await until(pilot, lambda: screen.watcher is not None and screen.watcher.running, "the watcher")
        screen.watcher.stop()  # no notifications (as on a filesystem without them): only R sees it
        await until(pilot, lambda: not screen.watcher.running, "the watcher to stop")
        write(root / "--home-u-proj--" / "two.jsonl", header(id="two"), user("u", None, "a second one"))
        await pilot.press("R")
        await until(pilot, lambda: len(screen.sidebar.summaries) == 2, "the rescan")
        assert any("a second one" in row for row in lines_of(screen.sidebar.session_list))
        assert static_text(screen, "#status").startswith("2 sessions in ")


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ("1", lambda path, cwd: "answer 3"),
        ("2", lambda path, cwd: str(path)),
        ("3", lambda path, cwd: "copy-me"),
        ("4", lambda path, cwd: f"cd {cwd} && pi --session {path}"),
    ],
    ids=["text", "path", "id", "command"],
)
async def test_each_copy_choice(tmp_path: Path, choice: str, expected: Any) -> None:
    project = tmp_path / "project"
    project.mkdir()
    root = tmp_path / "sessions"
    path = write(root / "--p--" / "copy.jsonl", header(id="copy-me", cwd=str(project)), *chain(4))
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 30), notifications=True) as pilot:
        await loaded(pilot)
        await pilot.press("tab", "y")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the copy menu")
        await pilot.press(choice)
        await until(pilot, lambda: app.clipboard != "", "the copy")
        assert app.clipboard == expected(path, project)
        note = f"({len(app.clipboard)} characters) to the terminal's clipboard"
        await until(pilot, lambda: note in screen_text(app).replace("\n", " "), "the note")


async def test_paging_jumping_and_the_mouse_in_the_tree(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    write(root / "--home-u-proj--" / "long.jsonl", header(id="long"), *chain(100))
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await loaded(pilot)

        async def context_at(entry_id: str) -> None:
            title = f"Context at {entry_id}"
            await until(pilot, lambda: static_text(screen, "#context-title") == title, title)

        await pilot.press("tab")
        await context_at("e99")
        height = len(lines_of(screen.branch_tree))
        await pilot.press("pageup")  # a page up: the cursor goes up a view's height
        await context_at(f"e{99 - height}")
        await pilot.press("pagedown")
        await context_at("e99")
        await pilot.press("home")
        await context_at("e0")
        await pilot.press("end")
        await context_at("e99")
        await pilot.press("home")
        rows = lines_of(screen.branch_tree)
        await pilot.click("#tree", offset=(20, 3))  # a click picks the row under it
        await context_at("e3")
        assert "question 2" in rows[2] and "answer 3" in rows[3]
        assert screen.active_pane == "tree"
        await pilot.click("#tree", offset=(20, 5), times=2)  # a double click opens its context
        await context_at("e5")
        await until(pilot, lambda: screen.active_pane == "context", "the context pane")


async def test_paging_and_clicking_in_the_sidebar(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    for i in range(40):
        session_file(root, "/home/u/a", f"s{i:02d}", [f"topic{i:02d}"], 1 + i % 9)
    app = make_app(root, tmp_path / "cache", cwd="/home/u/a")
    async with app.run_test(size=(160, 20)) as pilot:
        screen = await loaded(pilot)

        def open_topic() -> str:
            return next(
                w for line in lines_of(screen.branch_tree) for w in line.split() if w.startswith("topic")
            )

        async def opened(topic: str) -> None:
            await until(pilot, lambda: open_topic() == topic, topic)

        first = titles(screen)[0]
        await opened(first)
        await pilot.press("pagedown")
        await until(pilot, lambda: open_topic() != first, "a page down")
        await pilot.press("pageup")
        await opened(first)
        await pilot.press("end")
        await until(pilot, lambda: open_topic() == titles(screen)[-1] != first, "the last session")
        await pilot.press("home")
        await opened(first)
        rows = lines_of(screen.sidebar.session_list)
        row = 4
        await pilot.click("#session-list", offset=(5, row))  # a click opens the session under it
        await opened(next(w for w in rows[row].split() if w.startswith("topic")))
        # In the search box, the arrow keys move in the list.
        await pilot.press("slash")
        assert screen.sidebar.search_input.has_focus
        await pilot.press("down")
        await until(pilot, lambda: screen.sidebar.session_list.has_focus, "the list focused")
        await opened(next(w for w in rows[row + 1].split() if w.startswith("topic")))


async def test_long_messages_are_collapsed_and_enter_expands_them(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    long_question = "\n".join(f"question line {i}" for i in range(1, 21))
    output = "\n".join(f"output line {i}" for i in range(1, 11))
    result = {"role": "toolResult", "toolName": "bash", "content": [{"type": "text", "text": output}]}
    thinking = {"type": "thinking", "thinking": "first I think\nthen I think more"}
    write(
        root / "--home-u-proj--" / "long.jsonl",
        header(id="long"),
        user("u1", None, long_question, 1),
        assistant("a1", "u1", "", 2, content=[thinking, {"type": "text", "text": "done"}]),
        entry("message", "t1", "a1", 3, message=result),
    )
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 60)) as pilot:
        screen = await loaded(pilot)
        body = screen.context_view.body

        def text() -> str:
            return "\n".join(line.rstrip() for line in lines_of(body))

        shown = text()
        assert "question line 8" in shown and "question line 9" not in shown  # a user message: 8 lines
        assert "… 12 more line(s): enter to expand" in shown
        assert "output line 4" in shown and "output line 5" not in shown  # a tool result: 4
        assert "… 6 more line(s): enter to expand" in shown
        flowing = " ".join(shown.split())
        assert "thinking: first I think then I think more (enter to read)" in flowing  # one line
        await pilot.press("tab", "tab", "home", "enter")  # the question
        await settled(pilot)
        shown = text()
        assert "question line 20" in shown and "12 more line(s)" not in shown
        await pilot.press("right_square_bracket", "enter")  # the reply: its thinking in full
        await settled(pilot)
        assert "thinking: first I think\n  then I think more" in text()
        await pilot.press("right_square_bracket", "enter")
        await settled(pilot)
        assert "output line 10" in text() and "more line(s)" not in text()
        await pilot.press("enter")  # and collapsed again
        await settled(pilot)
        assert "output line 10" not in text() and "… 6 more line(s): enter to expand" in text()


async def test_the_context_pane_scrolls_with_its_keys(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    write(root / "--home-u-proj--" / "long.jsonl", header(id="long"), *chain(60))
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await loaded(pilot)
        body = screen.context_view.body

        def top() -> str:
            return lines_of(body)[0].strip()

        assert "answer 59" in "\n".join(lines_of(body))  # the context opens at its end
        await pilot.press("tab", "tab", "home")
        await settled(pilot)
        assert top() == "user e0"
        await pilot.press("down", "down", "down")
        await settled(pilot)
        assert top() == "assistant · claude-sonnet-4-5 e1"  # three lines down: the next message
        await pilot.press("up", "up")
        await settled(pilot)
        assert top() == "question 0"
        await pilot.press("pagedown")
        await settled(pilot)
        assert "question 0" not in "\n".join(lines_of(body))
        await pilot.press("pageup")
        await settled(pilot)
        assert top() == "question 0"
        await pilot.press("end")
        await settled(pilot)
        assert "answer 59" in "\n".join(lines_of(body))


async def test_a_session_with_problems_says_so_in_each_pane(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path = root / "--home-u-a--" / "bad.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(jsonl(header(id="bad", cwd="/home/u/a"), user("u1", None, "fine")) + b"{broken\n")
    session_file(root, "/home/u/b", "good", ["all good"], 1)
    app = make_app(root, tmp_path / "cache", cwd="/home/u/a")
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await loaded(pilot)
        bad_row = next(line for line in lines_of(screen.sidebar.session_list) if "fine" in line)
        good_row = next(line for line in lines_of(screen.sidebar.session_list) if "all good" in line)
        assert "⚠" in bad_row and "⚠" not in good_row
        assert "⚠ 1 problem(s)" in static_text(screen, "#tree-title")
        assert static_text(screen, "#status").startswith("⚠ 1 problem(s) in this file; first: line 3: ")


async def test_every_key_on_an_empty_folder_is_harmless(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 30)) as pilot:
        await until(pilot, lambda: main(pilot).scanned, "the scan")
        home = main(pilot)
        for pane in range(3):
            for key in ("a", "space", "h", "l", "left_square_bracket", "right_square_bracket", "v", "n", "N"):
                await pilot.press(key)
            for key in (
                "enter",
                "i",
                "f",
                "y",
                "x",
                "E",
                "M",
                "L",
                "C",
                "D",
                "r",
                "F",
                "c",
                "s",
                "home",
                "end",
            ):
                await pilot.press(key)
                if app.screen is not home:  # a menu, a prompt or the demo: back
                    await pilot.press("escape")
            await pilot.press("tab")
            assert app.is_running, pane
        status = static_text(home, "#status")
        assert app.screen is home and status.startswith("No sessions here") and str(root) in status


async def test_the_first_row_is_an_entry_like_any_other(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    write(root / "--home-u-proj--" / "s.jsonl", header(id="s"), *chain(4))
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 30)) as pilot:
        await loaded(pilot)
        await pilot.press("tab", "home", "i")  # the raw JSON of the first row's entry
        await until(pilot, lambda: isinstance(app.screen, RawJsonScreen), "the raw JSON")
        assert isinstance(app.screen, RawJsonScreen)
        assert app.screen.title_text.startswith("e0 · line 2 of ")
        await pilot.press("escape", "f")
        await until(pilot, lambda: isinstance(app.screen, ForkScreen), "the fork preview")
        assert isinstance(app.screen, ForkScreen)
        assert app.screen.title_text == "Fork at e0"


async def test_a_resize_keeps_what_the_context_pane_shows_at_its_top(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    write(root / "--home-u-proj--" / "long.jsonl", header(id="long"), *chain(60))
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await loaded(pilot)
        body = screen.context_view.body
        await pilot.press("tab", "tab", "home", *["down"] * 9)  # reading the fourth message
        await settled(pilot)
        assert lines_of(body)[0].strip() == "assistant · claude-sonnet-4-5 e3"
        await pilot.resize_terminal(200, 40)
        await settled(pilot)
        assert lines_of(body)[0].strip() == "assistant · claude-sonnet-4-5 e3"
        await pilot.resize_terminal(130, 24)
        await settled(pilot)
        assert lines_of(body)[0].strip() == "assistant · claude-sonnet-4-5 e3"


async def test_folding_from_a_leaf_below_an_inner_fork_folds_the_outer_branch(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    rows = [header(id="nest"), user("r", None, "root", 1)]
    rows += [
        assistant("b1", "r", "outer branch", 2),
        user("b2a", "b1", "inner one", 3),
        user("b2b", "b1", "inner two", 4),
    ]
    rows += [assistant("c1", "r", "the other outer branch", 5)]
    write(root / "--home-u-proj--" / "nest.jsonl", *rows)
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("tab")
        row = next(i for i, line in enumerate(lines_of(screen.branch_tree)) if "inner two" in line)
        await pilot.click("#tree", offset=(20, row))
        await until(pilot, lambda: static_text(screen, "#context-title") == "Context at b2b", "b2b")
        await pilot.press("left")  # b2b has no branch of its own: the branch it is in folds
        await until(pilot, lambda: static_text(screen, "#context-title") == "Context at b1", "b1")
        folded = next(
            line for line in lines_of(screen.branch_tree) if "outer branch" in line and "other" not in line
        )
        assert "▸" in folded and "+2" in folded.split()


async def test_a_tree_search_longer_than_the_limit_is_cut_and_the_status_says_so(tmp_path: Path) -> None:
    from pi_sessions.core.search.query import MAX_QUERY_CHARS
    from textual import events

    root = tmp_path / "sessions"
    write(
        root / "--home-u-proj--" / "words.jsonl",
        header(id="words"),
        user("u1", None, "the alpha release", 1),
        assistant("a1", "u1", "alpha and omega", 2),
    )
    start = " ".join(["alpha"] * 60)[:MAX_QUERY_CHARS]
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("tab", "slash")
        screen.tree_pane.search_input.post_message(events.Paste(start + " omega" * 500))
        await pilot.press("enter")
        await until(pilot, lambda: "match" in static_text(screen, "#status"), "the search")
        # Both entries: the words after the first 256 characters (omega) were not searched.
        assert static_text(screen, "#status") == (
            f"2 entries match {start.strip()!r} (query cut to {MAX_QUERY_CHARS} characters):"
            " n / N for next / previous"
        )
