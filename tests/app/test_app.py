"""The real app, driven with keys through Pilot: each flow a user goes through."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pi_sessions.app.demo import prepare_demo
from pi_sessions.app.help_screen import HelpScreen
from pi_sessions.app.main_screen import MainScreen
from pi_sessions.app.screens import ConfirmScreen, MenuScreen, RawJsonScreen
from pi_sessions.core.listing.sidebar_rows import HIT_LINE, SessionRow
from pi_sessions.widgets.plain import FitStatic
from textual.widgets import Log

from tests.helpers.app import (
    lines_of,
    loaded,
    main,
    make_app,
    screen_text,
    segments_of,
    settled,
    static_text,
    until,
    watching,
)
from tests.helpers.checks import known
from tests.helpers.sessions import assistant, chain, entry, header, jsonl, system, user, write


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    return prepare_demo(tmp_path / "demo")


def compaction_session(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return write(
        folder / "2025-03-01T10-00-00-000Z_compacted.jsonl",
        header(id="compacted", cwd="/home/u/proj"),
        system(
            "s0",
            None,
            0,
            sections={"preamble": "You are pi."},
            toolsAdded=[{"name": "read", "description": "read a file", "parameters": {}}],
        ),
        user("u1", "s0", "first question about the scheduler", 1),
        assistant("a1", "u1", "first answer", 2),
        user("u2", "a1", "second question", 3),
        assistant("a2", "u2", "second answer", 4),
        entry(
            "compaction",
            "c1",
            "a2",
            5,
            summary="They discussed the scheduler.",
            firstKeptEntryId="u2",
            tokensBefore=12000,
        ),
        user("u3", "c1", "third question", 6),
        assistant("a3", "u3", "third answer", 7),
        entry("context_edit", "e1", "a3", 8, targetId="a3", replacement=None),
        user("u4", "e1", "fourth question", 9),
        entry("session_info", "n1", "u4", 10, name="Compaction demo"),
    )


async def test_open_a_session_move_through_the_tree_and_see_the_context(demo: Path, tmp_path: Path) -> None:
    app = make_app(demo, tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        assert screen.session is not None
        leaf = screen.session.default_leaf  # where pi would resume: shown first

        def title() -> str:
            return static_text(screen, "#context-title")

        def messages() -> int:
            return int(screen.context_view.header.text().split(" messages")[0].split()[-1])

        assert title() == f"Context at {leaf}"
        at_leaf = messages()
        await pilot.press("tab", "k", "k", "up")  # three rows up the conversation
        await until(pilot, lambda: title() != f"Context at {leaf}", "the context to follow")
        moved = title()
        assert messages() < at_leaf
        await pilot.press("j")
        await until(pilot, lambda: title() not in (moved, f"Context at {leaf}"), "one row down")
        await pilot.press("enter")  # into the context pane
        assert "Expand" in screen_text(app).splitlines()[-1]  # its keys in the footer
        assert any(line.strip() for line in lines_of(screen.context_view.body))


async def test_sidebar_groups_by_cwd_and_opens_as_you_move(demo: Path, tmp_path: Path) -> None:
    app = make_app(demo, tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        rows = lines_of(screen.sidebar.session_list)
        assert any(row.startswith("/home/u/proj-a") for row in rows)
        first = known(screen.session).path
        await pilot.press("down", "down")
        await until(
            pilot, lambda: screen.session is not None and screen.session.path != first, "another session"
        )
        assert known(screen.session).path == known(screen.sidebar.session_list.current()).path


async def test_excluded_entries_shown_in_place_with_their_reason(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    compaction_session(root / "--home-u-proj--")
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 60)) as pilot:
        screen = await loaded(pilot)
        body = screen.context_view.body
        assert static_text(screen, "#context-title") == "Context at n1"
        hidden = "\n".join(lines_of(body))
        assert "✗" not in hidden and "second question" in hidden and "first question" not in hidden
        await pilot.press("x")
        await settled(pilot)
        shown = [line for line in lines_of(body) if line.startswith("✗")]
        assert [line.split()[2:4] for line in shown] == [
            ["s0", "summarized"],
            ["u1", "summarized"],
            ["a1", "summarized"],
            ["a3", "omitted"],
        ]
        assert all("summarized by compaction c1" in line for line in shown[:3])
        assert "omitted by context edit e1" in shown[3] and "first question" in shown[1]
        assert "x: hide what is not in context (3 summarized, 1 omitted by edits)" in (
            screen.context_view.header.text()
        )
        await pilot.press("x")
        await settled(pilot)
        assert not [line for line in lines_of(body) if line.startswith("✗")]
        header = screen.context_view.header.text()
        assert "thinking off" in header and "5 messages" in header


async def test_search_sessions_as_you_type_says_where_it_matched(demo: Path, tmp_path: Path) -> None:
    app = make_app(demo, tmp_path / "cache")
    async with app.run_test(size=(250, 48)) as pilot:
        screen = await loaded(pilot)
        session_list = screen.sidebar.session_list

        def shown(kind: Callable[[object], bool]) -> list[str]:
            rows = session_list.rows
            return [line for i, line in enumerate(lines_of(session_list)) if i < len(rows) and kind(rows[i])]

        def sessions_shown() -> list[str]:
            return shown(lambda row: isinstance(row, SessionRow))

        total = len(sessions_shown())
        await pilot.press("slash", *"fetchData")
        await until(pilot, lambda: "found" in static_text(screen, "#sidebar-title"), "search results")
        await settled(pilot)
        found = sessions_shown()
        assert 0 < len(found) < total
        assert f"Sessions {len(found)}/{total}" in static_text(screen, "#sidebar-title")
        # under each session found, a line that shows the words it matched and where they sit
        hits = shown(lambda row: row is HIT_LINE)
        assert len(hits) == len(found) and all("fetchData" in line for line in hits)
        assert all("active path" in line or "branch" in line for line in hits)
        screen.sidebar.search_input.value = "re:("
        await until(pilot, lambda: "invalid search" in static_text(screen, "#sidebar-title"), "the error")
        await pilot.press("escape")
        assert len(sessions_shown()) == total and "found" not in static_text(screen, "#sidebar-title")
        assert not shown(lambda row: row is HIT_LINE)


async def test_search_within_the_session_opens_each_match(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    compaction_session(root / "--home-u-proj--")
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("tab")
        await pilot.press("slash", *"question", "enter")
        await until(pilot, lambda: "match" in static_text(screen, "#status"), "matches")
        assert static_text(screen, "#status") == "4 entries match 'question': n / N for next / previous"
        for entry_id in ("u1", "u2", "u3", "u4", "u1"):
            title = f"Context at {entry_id}"
            await until(pilot, lambda title=title: static_text(screen, "#context-title") == title, title)  # type: ignore[misc]  # (mypy cannot infer a lambda with a default argument)
            await pilot.press("n")
        await pilot.press("N", "N")  # back to u1, then round to the last match
        await until(pilot, lambda: static_text(screen, "#context-title") == "Context at u4", "back")


async def test_view_filters_cycle(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    compaction_session(root / "--home-u-proj--")
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("tab")

        def kinds() -> list[str]:
            return [line.split()[1] for line in lines_of(screen.branch_tree) if line.strip()]

        assert static_text(screen, "#tree-title").startswith("conversation view")
        assert "edit" not in kinds()  # settings entries hidden, like pi...
        edited = next(line for line in lines_of(screen.branch_tree) if "third answer" in line)
        assert "✎" in edited  # ... but the entry a context edit changed says so
        assert kinds()[-1] == "name"  # ... and the active leaf is always shown
        seen = {}
        for _ in range(5):
            await pilot.press("v")
            seen[static_text(screen, "#tree-title").split(" view")[0]] = kinds()
        assert list(seen) == ["no tool results", "user messages", "labelled", "everything", "conversation"]
        assert seen["user messages"] == ["user"] * 4 + ["name"]
        assert "edit" in seen["everything"] and "compaction" in seen["everything"]


async def test_narrow_terminals_show_fewer_panes_and_tab_switches(demo: Path, tmp_path: Path) -> None:
    app = make_app(demo, tmp_path / "cache")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(pilot)

        def shown() -> list[str | None]:
            return [
                w.id
                for w in (screen.sidebar, screen.query_one("#tree-pane"), screen.context_view)
                if w.display
            ]

        assert shown() == ["sidebar", "tree-pane"]
        await pilot.press("tab")
        assert shown() == ["tree-pane", "context"]
        await pilot.press("tab")
        assert screen.active_pane == "context" and shown() == ["tree-pane", "context"]
        await pilot.press("tab")
        assert shown() == ["sidebar", "tree-pane"]
        await pilot.resize_terminal(60, 24)
        await pilot.pause()
        assert shown() == ["sidebar"]
        await pilot.press("tab")
        assert shown() == ["tree-pane"]


async def test_a_live_context_grows_without_what_is_not_in_it(tmp_path: Path) -> None:
    """At the tip of a compacted session, new entries extend the context in place: the entries
    the compaction summarized stay out of view (x is off), only the new message is added."""
    root = tmp_path / "sessions"
    path = compaction_session(root / "--home-u-proj--")
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 60)) as pilot:
        screen = await loaded(pilot)
        await watching(pilot)
        body = screen.context_view.body
        assert static_text(screen, "#context-title") == "Context at n1"
        before = [line.rstrip() for line in lines_of(body) if line.strip()]
        with open(path, "ab") as f:
            f.write(jsonl(user("u5", "n1", "fifth question", 11)))
        await until(pilot, lambda: static_text(screen, "#context-title") == "Context at u5 (live)", "u5")
        await settled(pilot)
        shown = [line.rstrip() for line in lines_of(body) if line.strip()]
        assert not any(line.startswith("✗") for line in shown), shown
        assert "first question" not in "\n".join(shown) and shown[-1].strip() == "fifth question"
        assert [line for line in shown if line not in before] == ["user u5", "  fifth question"]


async def test_live_append_keeps_selection_and_scroll(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    folder = root / "--home-u-proj--"
    folder.mkdir(parents=True)
    rows = [header(id="live")]
    parent = None
    for i in range(60):
        rows.append(user(f"u{i}", parent, f"question {i}", 2 * i))
        rows.append(assistant(f"a{i}", f"u{i}", f"answer {i}", 2 * i + 1))
        parent = f"a{i}"
    path = write(folder / "live.jsonl", *rows)
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await loaded(pilot)
        await watching(pilot)

        def context() -> str:
            return static_text(screen, "#context-title")

        async def arrived(count: int) -> None:
            await until(pilot, lambda: f" {count} entries" in static_text(screen, "#tree-title"), f"{count}")
            await settled(pilot)

        await pilot.press("tab", *["k"] * 30)
        await until(pilot, lambda: context() == "Context at a44", "thirty rows up")
        view = lines_of(screen.branch_tree)
        with open(path, "ab") as f:
            f.write(
                jsonl(user("u60", "a59", "a new question", 200), assistant("a60", "u60", "a new answer", 201))
            )
        await arrived(122)
        assert lines_of(screen.branch_tree) == view  # the rows in view did not move
        assert context() == "Context at a44"
        # At the tip, the context follows new entries that extend it; the cursor stays.
        await pilot.press("a")
        await until(pilot, lambda: context() == "Context at a60", "the tip")
        with open(path, "ab") as f:
            f.write(jsonl(user("u61", "a60", "one more", 202)))
        await arrived(123)
        await until(pilot, lambda: context() == "Context at u61 (live)", "the context extended")
        await pilot.press("enter", "shift+tab")  # the context at the cursor: still a60
        await until(pilot, lambda: context() == "Context at a60", "the cursor")
        # Follow mode moves the selection to the newest entry.
        await pilot.press("F")
        assert "following" in static_text(screen, "#tree-title")
        with open(path, "ab") as f:
            f.write(jsonl(assistant("a61", "u61", "followed", 203)))
        await until(pilot, lambda: context() == "Context at a61", "follow")
        assert any("◉" in row for row in lines_of(screen.sidebar.session_list))  # being written


async def test_a_new_branch_that_moves_the_active_path_leaves_the_view_alone(tmp_path: Path) -> None:
    rows = [header(id="live"), *chain(60)]
    path = write(tmp_path / "sessions" / "--home-u-proj--" / "live.jsonl", *rows)
    app = make_app(tmp_path / "sessions", tmp_path / "cache")
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await loaded(pilot)
        await watching(pilot)
        await pilot.press("tab", *["k"] * 30)  # more rows than the view holds: e29 is at its top
        await until(
            pilot, lambda: static_text(screen, "#context-title") == "Context at e29", "thirty rows up"
        )
        assert "answer 29" in lines_of(screen.branch_tree)[0]
        with open(path, "ab") as f:  # pi went back to e20 (above the view) and went on from there
            f.write(jsonl(user("x1", "e20", "a side question", 300)))
        await until(pilot, lambda: "61 entries" in static_text(screen, "#tree-title"), "the branch")
        await settled(pilot)
        # The rows were built again (a new branch above, the old one indented): the same
        # entry is at the top of the view, and under the cursor.
        assert "answer 29" in lines_of(screen.branch_tree)[0]
        assert static_text(screen, "#context-title") == "Context at e29"


async def test_a_new_branch_below_a_selected_middle_entry_leaves_selection_and_context(
    tmp_path: Path,
) -> None:
    root = tmp_path / "sessions"
    path = write(root / "--home-u-proj--" / "mid.jsonl", header(id="mid"), *chain(10))
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await loaded(pilot)
        await watching(pilot)
        await pilot.press("tab", *["k"] * 5)  # e4: the middle of the conversation
        await until(pilot, lambda: "Context at e4" in static_text(screen, "#context-title"), "e4")
        with open(path, "ab") as f:  # pi goes back to e4 and carries on from there
            f.write(jsonl(user("x1", "e4", "a question on a new branch", 20)))
        await until(
            pilot, lambda: any("a question on a new branch" in r for r in lines_of(screen.branch_tree)), "x1"
        )
        await settled(pilot)
        rows = lines_of(screen.branch_tree)
        assert static_text(screen, "#context-title") == "Context at e4"  # the context stays
        assert screen.branch_tree.current_id() == "e4"
        new_branch = next(r for r in rows if "a question on a new branch" in r)
        old_branch = next(r for r in rows if "answer 9" in r)
        assert new_branch.startswith("●") and not old_branch.startswith("●")  # pi resumes there now
        assert any("├─" in r or "└─" in r for r in rows)  # e4 is a fork point now


async def test_a_header_field_with_nothing_to_say_leaves_no_gap(tmp_path: Path) -> None:
    """A model whose window nobody knows has no share of it: the empty field takes no room,
    and the size and the cost stand one space apart on screen."""
    root = tmp_path / "sessions"
    write(
        root / "--home-u-proj--" / "unknown.jsonl",
        header(id="unknown"),
        user("u1", None, "q", 1),
        assistant("a1", "u1", "reply", 2, provider="acme", model="home-made-1"),
    )
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(200, 30)) as pilot:
        await loaded(pilot)
        figures = next(line for line in screen_text(app).splitlines() if "tokens spent on this path" in line)
        assert "│ context 15 tokens · $0.010 · 15 tokens spent on this path" in figures, figures


async def test_the_header_counts_what_was_spent_on_the_selected_path(tmp_path: Path) -> None:
    def spent(entry_id: str, parent: str, tokens: int, cost: float, n: int) -> dict:
        usage = {"input": tokens, "output": 0, "totalTokens": tokens, "cost": {"total": cost}}
        return assistant(entry_id, parent, f"reply {entry_id}", n, usage=usage)

    root = tmp_path / "sessions"
    write(
        root / "--home-u-proj--" / "spent.jsonl",
        header(id="spent"),
        user("u1", None, "q", 1),
        spent("a1", "u1", 100, 1.0, 2),
        spent("b1", "a1", 20, 0.2, 3),  # the cheap branch
        user("c1", "a1", "the dear branch", 4),
        spent("c2", "c1", 3000, 30.0, 5),
    )
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(200, 30)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("tab")

        async def header_at(entry_id: str) -> str:
            screen.branch_tree.select(entry_id)
            await until(pilot, lambda: f"Context at {entry_id}" == static_text(screen, "#context-title"))
            return screen.context_view.header.text()

        # the header's cost and tokens: "$cost · tokens" (pi's footer's toFixed(3)) of the path only
        assert "· $31.000 · 3.1k tokens" in await header_at("c2")
        assert "· $1.200 · 120 tokens" in await header_at("b1")  # not the $31.200 of the whole session
        assert "· $1.000 · 100 tokens" in await header_at("c1")
        assert "· $31.000 · 3.1k tokens" in await header_at("c2")


async def test_live_rows_are_drawn_as_a_fresh_read_draws_them(tmp_path: Path) -> None:
    """Entries arriving live are drawn as the tree drawn again from scratch draws them (how
    fast they are added in place is measured by tests/bench/bench_ui.py, live append)."""
    root = tmp_path / "sessions"
    rows = [header(id="grow"), *chain(4)]
    rows += [user("b1", "e3", "first branch", 10), user("c1", "e3", "second branch", 11)]
    rows += [assistant("c2", "c1", "on the second branch", 12)]
    path = write(root / "--home-u-proj--" / "grow.jsonl", *rows)
    count = len(rows) - 1
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await loaded(pilot)
        await watching(pilot)
        await pilot.press("tab", "end")  # the last row: the first branch, below the active one
        await until(pilot, lambda: static_text(screen, "#context-title") == "Context at b1", "b1")

        async def append(*objects: Any) -> list[str]:
            """The rows drawn once the entries arrived (compared with the tree drawn again)."""
            nonlocal count
            count += len(objects)
            with open(path, "ab") as f:
                f.write(jsonl(*objects))
            await until(
                pilot, lambda: f" {count} entries" in static_text(screen, "#tree-title"), "the entries"
            )
            await settled(pilot)
            live = [line.rstrip() for line in lines_of(screen.branch_tree) if line.strip()]
            await pilot.press("slash", "escape")  # an empty search: the tree is drawn again
            await settled(pilot)
            assert [line.rstrip() for line in lines_of(screen.branch_tree) if line.strip()] == live
            return live

        # The conversation grows at its tip: the new rows come below its old tip; the cursor
        # stays on the entry it was on (enter shows the context there).
        shown = await append(user("c3", "c2", "more", 13), assistant("c4", "c3", "reply", 14))
        await pilot.press("enter", "shift+tab")
        await settled(pilot)
        assert static_text(screen, "#context-title") == "Context at b1"
        at = next(i for i, line in enumerate(shown) if "on the second branch" in line)
        assert "more" in shown[at + 1] and "reply" in shown[at + 2] and "first branch" in shown[-1]
        assert all(line.startswith("●") for line in shown[: at + 3])  # the active path grew
        # A settings entry is hidden in the default view but its child is shown.
        shown = await append(
            entry("model_change", "m1", "c4", 15, provider="x", modelId="y"), user("c5", "m1", "after", 16)
        )
        at = next(i for i, line in enumerate(shown) if "reply" in line)
        assert "after" in shown[at + 1] and not any("x/y" in line for line in shown)
        # A settings entry as the new leaf is shown while it is the leaf, then hidden again.
        shown = await append(entry("model_change", "m2", "c5", 17, provider="x", modelId="z"))
        assert "x/z" in shown[next(i for i, line in enumerate(shown) if "after" in line) + 1]
        shown = await append(user("c6", "m2", "after the change", 18))
        assert not any("x/z" in line for line in shown)
        # Going back to the first branch moves the active path.
        shown = await append(assistant("b2", "b1", "back on the first branch", 19))
        active = [line for line in shown if line.startswith("●")]
        assert any("first branch" in line for line in active) and any("back on" in line for line in active)
        assert not any("second branch" in line for line in active)
        # In the labelled view, a label on an older entry brings it in.
        await pilot.press("v", "v", "v")
        await until(pilot, lambda: "labelled view" in static_text(screen, "#tree-title"), "the labelled view")
        shown = await append(entry("label", "l1", "b2", 20, targetId="e1", label="start"))
        assert any("◆start" in line and "answer 1" in line for line in shown)


async def test_live_context_grows_at_the_end_and_leaves_a_scrolled_view_alone(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path = write(root / "--home-u-proj--" / "ctx.jsonl", header(id="ctx"), *chain(80))
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await loaded(pilot)
        await watching(pilot)
        body = screen.context_view.body

        def shown() -> list[str]:
            return [line.rstrip() for line in lines_of(body)]

        async def append(*objects: Any) -> None:
            with open(path, "ab") as f:
                f.write(jsonl(*objects))
            title = f"Context at {objects[-1]['id']} (live)"
            await until(pilot, lambda: static_text(screen, "#context-title") == title, "the context to grow")
            await settled(pilot)

        assert "answer 79" in "\n".join(shown())  # the view starts at the end
        await append(user("n1", "e79", "a brand new question", 100))
        grown = shown()
        assert any("a brand new question" in line for line in grown)  # ... and stays there
        await pilot.press("x", "x")  # the pane built again from scratch draws the same
        await settled(pilot)
        assert shown() == grown
        # Scrolled up to read: new messages arrive below without moving the view.
        await pilot.press("tab", "tab", "home")
        await settled(pilot)
        reading = shown()
        assert any("question 0" in line for line in reading)
        await append(assistant("n2", "n1", "a brand new answer", 101))
        assert shown() == reading
        await pilot.press("end")
        await settled(pilot)
        assert any("a brand new answer" in line for line in shown())
        # With what is not in context shown, the whole pane is built again, and a view at the
        # end stays there.
        await pilot.press("x")
        await settled(pilot)
        await append(user("n3", "n2", "and another", 102))
        assert any("and another" in line for line in shown())


async def test_folding_and_jumping_move_the_context_with_the_cursor(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    rows = [header(id="fold"), *chain(3)]
    rows += [
        user("b1", "e2", "first branch", 10),
        assistant("b2", "b1", "on it", 11),
        user("b3", "b2", "more", 12),
    ]
    rows += [user("c1", "e2", "second branch", 13)]
    write(root / "--home-u-proj--" / "fold.jsonl", *rows)
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await loaded(pilot)

        async def context_at(entry_id: str) -> None:
            await settled(pilot)
            title = f"Context at {entry_id}"
            await until(pilot, lambda: static_text(screen, "#context-title") == title, title)

        await pilot.press("tab", "end")  # the last row: the end of the branch pi would not resume
        await context_at("b3")
        # Folding from inside a branch folds the branch and goes to its first entry.
        await pilot.press("left")
        await context_at("b1")
        folded = next(line for line in lines_of(screen.branch_tree) if "first branch" in line)
        assert "▸" in folded and "+2" in folded.split()  # two entries hidden under it
        assert not any("on it" in line for line in lines_of(screen.branch_tree))
        # Folding the entry under the cursor leaves the context as it is.
        await pilot.press("right")
        await context_at("b1")
        assert any("on it" in line for line in lines_of(screen.branch_tree))
        await pilot.press("space")
        await context_at("b1")
        assert not any("on it" in line for line in lines_of(screen.branch_tree))
        # Going to an entry hidden in a fold (here: a search match) unfolds it.
        await pilot.press("slash", *"more", "enter")
        await context_at("b3")
        assert any("on it" in line for line in lines_of(screen.branch_tree))


async def test_new_and_deleted_sessions_appear_and_disappear(demo: Path, tmp_path: Path) -> None:
    app = make_app(demo, tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        await watching(pilot)
        count = len(screen.sidebar.summaries)
        new = write(
            demo / "--home-u-new--" / "fresh.jsonl",
            header(id="fresh", cwd="/home/u/new"),
            user("a", None, "brand new session"),
        )
        await until(pilot, lambda: len(screen.sidebar.summaries) == count + 1, "the new session")
        assert any("brand new session" in line for line in lines_of(screen.sidebar.session_list))
        # Search sees what is appended while the app runs.
        search = screen.sidebar.search_input
        search.value = "zebraquartz"
        await until(pilot, lambda: screen.sidebar.matches is not None, "a first search")
        assert str(new) not in (screen.sidebar.matches or {})
        search.value = ""
        with open(new, "ab") as f:
            f.write(jsonl(user("b", "a", "a zebraquartz appeared", 1)))
        await until(
            pilot,
            lambda: any(s.path == str(new) and s.message_count == 2 for s in screen.sidebar.summaries),
            "the append",
        )
        search.value = "zebraquartz"
        await until(pilot, lambda: str(new) in (screen.sidebar.matches or {}), "the appended text found")
        search.value = ""
        new.unlink()
        await until(pilot, lambda: len(screen.sidebar.summaries) == count, "the session gone")


def _many_sessions(root: Path, count: int) -> None:
    for i in range(count):
        write(
            root / "--home-u-proj--" / f"s{i:03d}.jsonl",
            header(id=f"s{i:03d}", cwd="/home/u/proj"),
            user("a", None, f"session number {i}"),
        )


async def _listed_order(root: Path, cache: Path) -> list[Path]:
    """A first run (it writes the index cache): the sessions in the order listed, top first."""
    async with make_app(root, cache).run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        return [Path(s.path) for s in screen.sidebar.shown_summaries()]


def _message_count(screen: Any, path: Path) -> int | None:
    return next((s.message_count for s in screen.sidebar.summaries if s.path == str(path)), None)


async def test_what_changed_while_the_app_was_closed_is_listed_as_it_is_now(tmp_path: Path) -> None:
    """A warm start lists the sessions as the index cache has them once the ones shown first
    are checked; the others are checked right after, and what changed is corrected."""
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    _many_sessions(root, 80)
    paths = await _listed_order(root, cache)
    below = paths[-1]  # far below the 48 rows on screen
    with open(below, "ab") as f:
        f.write(jsonl(user("b", "a", "a later message", 1)))
    new = write(
        root / "--home-u-other--" / "new.jsonl", header(id="new", cwd="/home/u/other"), user("a", None, "x")
    )
    async with make_app(root, cache).run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        await until(pilot, lambda: _message_count(screen, below) == 2, "the grown session")
        await until(pilot, lambda: _message_count(screen, new) == 1, "the new session")
        assert len(screen.sidebar.summaries) == 81
        await watching(pilot)  # and from then on, changes are seen as they happen
        with open(paths[5], "ab") as f:
            f.write(jsonl(user("b", "a", "live", 2)))
        await until(pilot, lambda: _message_count(screen, paths[5]) == 2, "a live change")


async def test_a_session_in_view_that_changed_is_listed_right_from_the_first_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    _many_sessions(root, 80)
    paths = await _listed_order(root, cache)
    with open(paths[1], "ab") as f:  # the second row: on screen from the start
        f.write(jsonl(user("b", "a", "a later message", 1)))
    paths[2].unlink()
    # What the sidebar lists when the screen's mount is done: no frame is drawn before.
    first_screen: list[Any] = []
    mount = MainScreen.on_mount

    def on_mount(self: MainScreen) -> None:
        mount(self)
        first_screen.append(self)
        first_screen.append(list(self.sidebar.summaries))

    monkeypatch.setattr(MainScreen, "on_mount", on_mount)
    async with make_app(root, cache).run_test(size=(160, 48)) as pilot:
        await until(pilot, lambda: first_screen, "the first listing")
        screen, listed = first_screen
        assert _message_count(screen, paths[1]) == 2 and len(listed) == 79
        assert next(s.message_count for s in listed if s.path == str(paths[1])) == 2
        assert all(s.path != str(paths[2]) for s in listed)


async def test_hostile_text_is_shown_inert(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    folder = root / "--home-u-evil--"
    folder.mkdir(parents=True)
    evil = "\x1b]52;c;ZXZpbA==\x07\x1b[31mRED\x1b[0m [bold]not bold[/bold] [link=x]y[/link] \x9b2J"
    write(
        folder / "evil.jsonl",
        header(id="evil", cwd="/home/u/evil"),
        user("u1", None, evil),
        assistant("a1", "u1", evil, model="\x1b]0;pwned\x07gpt [b]x[/b]"),  # shown above its reply
        entry("session_info", "n1", "a1", 2, name="[red]name[/red] [/x]\x1b[2J"),
    )
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)
        # Titles, status line and dialogs show text from files (and typed text) literally too
        # (the title is cut to the pane at a word boundary: the whole of it is kept apart).
        assert "[red]name[/red]" in static_text(screen, "#tree-title")
        assert "[red]name[/red] [/x]\u241b[2J" in screen.query_one("#tree-title", FitStatic).full_text
        await pilot.press("D")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the delete question")
        assert "[red]name[/red] [/x]" in static_text(app.screen, ".dialog-title")
        await pilot.press("escape")
        await pilot.press("tab")
        await pilot.press("slash", *"zz[/x]", "enter")
        await until(pilot, lambda: "zz[/x]" in static_text(screen, "#status"), "the search status")
        await pilot.press("k")
        texts = (
            segments_of(screen.branch_tree)
            + segments_of(screen.context_view.body)
            + segments_of(screen.sidebar.session_list)
        )
        joined = "".join(texts)
        for control in ("\x1b", "\x07", "\x9b"):
            assert control not in joined
        assert "\u241b]52;c;ZXZpbA==" in joined  # ESC shown as a visible placeholder
        assert "<9b>2J" in joined  # a C1 control as its code
        assert "[bold]not bold[/bold]" in joined  # markup shown literally
        assert "[red]name[/red]" in joined
        # The pane's own messages carry paths and errors: shown inert as well.
        screen.context_view.body.show_placeholder("cannot open /tmp/\x1b[2Jx.jsonl: [/x] gone")
        await pilot.pause()
        placeholder = "".join(segments_of(screen.context_view.body))
        assert "\x1b" not in placeholder and "\u241b[2Jx.jsonl: [/x] gone" in placeholder


# Characters that change how text around them reads without being seen themselves.
INVISIBLE = {
    "zero width space": "\u200b",
    "zero width non-joiner": "\u200c",
    "zero width joiner": "\u200d",
    "word joiner": "\u2060",
    "zero width no-break space": "\ufeff",
    "left-to-right mark": "\u200e",
    "right-to-left mark": "\u200f",
    "arabic letter mark": "\u061c",
    "left-to-right embedding": "\u202a",
    "right-to-left embedding": "\u202b",
    "pop directional formatting": "\u202c",
    "left-to-right override": "\u202d",
    "right-to-left override": "\u202e",
    "left-to-right isolate": "\u2066",
    "right-to-left isolate": "\u2067",
    "first strong isolate": "\u2068",
    "pop directional isolate": "\u2069",
}


async def test_bidi_controls_and_zero_width_characters_never_reach_the_screen(tmp_path: Path) -> None:
    """Each one is drawn as something visible (the words around it stay apart), never sent to
    the terminal: in messages, names, labels, model names, folder names and dialogs."""
    marked = " ".join(f"w{i}x{c}y" for i, c in enumerate(INVISIBLE.values()))
    every = "".join(INVISIBLE.values())
    root = tmp_path / "sessions"
    write(
        root / "--home-u-bidi--" / "bidi.jsonl",
        header(id="bidi", cwd=f"/home/u/cw{every}dq"),
        system(f"sy{every}sq", None, 0, sections={"rules": "be brief"}),
        user("u1", f"sy{every}sq", f"question {marked}"),
        assistant("a1", "u1", f"answer {marked}", 1, model=f"md{every}zq"),
        entry("label", "l1", "a1", 2, targetId="u1", label=f"lb{every}zq"),
        entry("session_info", "n1", "l1", 3, name=f"nm{every}zq"),
    )
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(200, 50)) as pilot:
        await loaded(pilot)
        await pilot.press("tab")  # the tree, its labels, and the context with the model's name
        await settled(pilot)
        shown = [screen_text(app)]
        await pilot.press("shift+tab", "D")  # a dialog with the session's name
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the delete question")
        shown.append(screen_text(app))
        await pilot.press("escape", "tab", "i")  # the raw JSON of the entry that names it
        await until(pilot, lambda: isinstance(app.screen, RawJsonScreen), "the raw JSON")
        shown.append(screen_text(app))
    for name, char in INVISIBLE.items():
        assert not any(char in text for text in shown), name
    for i, name in enumerate(INVISIBLE):
        assert f"w{i}x" in shown[0] and f"w{i}xy" not in shown[0], name  # something stands between
    for seen in ("cw", "md", "lb", "nm", "sy"):  # the folder, the model, the label, the name, an id
        assert seen in shown[0] and not {f"{seen}dq", f"{seen}zq", f"{seen}sq"} & set(shown[0].split()), seen
    for dialog in shown[1:]:  # the question names the session; the raw JSON is the name's entry
        assert "nm" in dialog and "nmzq" not in dialog


async def test_keys_that_must_exist(demo: Path, tmp_path: Path) -> None:
    app = make_app(demo, tmp_path / "cache", resume_command="definitely-not-a-real-pi --session {path}")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert app.screen is screen
        await pilot.press("tab", "i")
        assert isinstance(app.screen, RawJsonScreen)
        await pilot.press("escape")
        await pilot.press("ctrl+p")
        await until(pilot, lambda: app.screen is not screen, "the command palette")
        assert type(app.screen).__name__ == "CommandPalette"
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, "back")
        await pilot.press("r")  # resume with a command that is not installed: a clear message
        assert isinstance(app.screen, MenuScreen)  # the demo's cwd does not exist here: asked first
        await pilot.press("1")  # continue in the current directory
        status = str(screen.query_one("#status").render())
        assert "not on PATH" in status and "definitely-not-a-real-pi --session" in status
        await pilot.press("q")
    assert app.return_code == 0


async def test_empty_folder_says_where_it_looked_and_offers_the_demo(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: main(pilot).scanned, "the scan")
        screen = main(pilot)
        status = str(screen.query_one("#status").render())
        assert status.startswith("No sessions here: press d for a demo")
        assert str(root) in screen.query_one("#status", FitStatic).full_text
        # The sidebar says it all, wrapped to its width: the long path is broken, never cut.
        shown = [line.strip() for line in lines_of(screen.sidebar.session_list)]
        assert str(root) in "".join(shown) and "…" not in "".join(shown)
        assert "appear as they are written." in " ".join(shown)
        await pilot.press("d")
        await until(
            pilot,
            lambda: app.screen is not screen and isinstance(app.screen, type(screen)) and app.screen.scanned,
            "the demo",
        )
        assert len(main(pilot).sidebar.summaries) >= 5


async def test_raw_json_of_an_entry(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    compaction_session(root / "--home-u-proj--")
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("tab", "i")
        assert isinstance(app.screen, RawJsonScreen)
        assert app.screen.value["id"] == screen.branch_tree.current_id() == "n1"
        assert app.screen.value["name"] == "Compaction demo"
        log_text = "\n".join(app.screen.query_one(Log).lines)
        assert json.loads(log_text)["type"] == "session_info"


async def test_ascii_mode_draws_only_ascii(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    compaction_session(root / "--home-u-proj--")
    app = make_app(root, tmp_path / "cache", ascii=True)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("tab", "x")
        drawn = "".join(
            segments_of(screen.branch_tree)
            + segments_of(screen.context_view.body)
            + segments_of(screen.sidebar.session_list)
        )
        titles = [str(screen.query_one(f"#{name}").render()) for name in ("tree-title", "sidebar-title")]
        titles += screen.context_view.header.text().splitlines()
        assert drawn.isascii() and all(t.isascii() for t in titles), [
            c for c in drawn + "".join(titles) if not c.isascii()
        ]
        assert "|- " in drawn or "`- " in drawn or "* " in drawn


async def test_ascii_mode_cuts_and_collapses_with_ascii(tmp_path: Path) -> None:
    """What is cut or collapsed says so in ASCII too: the hint under a long message, a long
    title, a control character in a message."""
    root = tmp_path / "sessions"
    long_text = "\n".join(f"line {i} \x1b[2J" for i in range(40))
    write(
        root / "--home-u-proj--" / "long.jsonl",
        header(id="long", cwd="/home/u/proj"),
        user("u1", None, long_text, 1),
        entry("session_info", "n1", "u1", 2, name="a name " * 40),
    )
    app = make_app(root, tmp_path / "cache", ascii=True)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)
        drawn = lines_of(screen.context_view.body)
        assert any("... 32 more line(s): enter to expand" in line for line in drawn), drawn
        assert any("<1b>[2J" in line for line in drawn)
        title = static_text(screen, "#tree-title")
        assert title.isascii() and title.endswith("..."), title
        assert "".join(drawn).isascii()
        # A search hit's excerpt is cut with ASCII marks too.
        screen.sidebar.search_input.value = '"line 20"'
        await until(pilot, lambda: screen.sidebar.matches, "the search")
        where = next(line for line in lines_of(screen.sidebar.session_list) if "line 20" in line)
        assert where.isascii() and "..." in where, where
        assert "".join(lines_of(screen.sidebar.session_list)).isascii()


def test_an_excerpt_marked_with_other_glyphs_keeps_its_highlights() -> None:
    from pi_sessions.core.search.excerpt import cut_excerpt

    flat = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi"
    excerpt = cut_excerpt(flat, flat.index("theta"), flat.index("theta") + 5, 20)
    assert excerpt.cut_start and excerpt.cut_end and excerpt.text.startswith("…")
    ascii = excerpt.marked("...")
    start, end = ascii.spans[0]
    assert ascii.text.startswith("...") and ascii.text.endswith("...") and ascii.text[start:end] == "theta"
    assert excerpt.marked("…") is excerpt


def test_demo_copies_are_removed_and_a_given_folder_is_kept(tmp_path: Path) -> None:
    from pi_sessions.app.demo import demo_root, remove_demos

    given = prepare_demo(tmp_path / "given")
    made = Path(demo_root().path)
    assert any(made.rglob("*.jsonl"))
    remove_demos()
    assert not made.parent.exists()
    assert any(given.rglob("*.jsonl"))


async def test_an_action_that_fails_says_so_and_the_app_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker that raises (here: a bug in an action) does not take the app down: the status
    line and a notification say what failed, and the keys still work."""
    from pi_sessions.app.export_flows import ExportFlows

    async def broken(self: ExportFlows) -> None:
        raise RuntimeError("the export broke")

    monkeypatch.setattr(ExportFlows, "export", broken)
    root = tmp_path / "sessions"
    compaction_session(root / "--home-u-proj--")
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("E")
        await until(
            pilot, lambda: "the export broke" in static_text(screen, "#status"), "the failure reported"
        )
        assert "failed" in static_text(screen, "#status") and app.is_running
        await pilot.press("tab", "k")
        assert screen.active_pane == "tree" and screen.branch_tree.current_id() != "n1"


async def test_a_file_that_is_not_a_session_says_why_and_shows_no_figures(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    notes = root / "--home-u-proj--" / "notes.jsonl"
    notes.parent.mkdir(parents=True)
    notes.write_text("these are my notes, not a session\n")
    app = make_app(root, tmp_path / "cache", open_path=notes)
    async with app.run_test(size=(120, 24)) as pilot:
        screen = main(pilot)
        await until(pilot, lambda: screen.scanned and "cannot open" in static_text(screen, "#status"), "why")
        await pilot.pause()
        assert "not a pi session" in static_text(screen, "#status")
        assert any("cannot open" in line for line in lines_of(screen.context_view.body))
        assert not screen.context_view.header.text().strip()  # no figures of a session not open
