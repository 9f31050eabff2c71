"""The real app, driven with keys through Pilot: each flow a user goes through."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pi_sessions.app.demo import prepare_demo
from pi_sessions.app.screens import ConfirmScreen, HelpScreen, MenuScreen, RawJsonScreen
from pi_sessions.core.context import Reason, project
from pi_sessions.core.outline import ViewFilter
from pi_sessions.widgets.context_view import build_blocks

from .apphelpers import (
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
from .helpers import assistant, chain, entry, header, jsonl, system, user, write


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
        session = screen.session
        assert session is not None
        assert screen.tree.current_id() == session.default_leaf
        assert screen.context_view.projection.leaf_id == session.default_leaf
        await pilot.press("tab")  # to the tree
        assert screen.active_pane == "tree"
        start = screen.tree.current_id()
        await pilot.press("k", "k", "up")
        moved = screen.tree.current_id()
        assert moved != start
        assert screen.context_view.projection.leaf_id == moved
        await pilot.press("j")
        assert screen.context_view.projection.leaf_id == screen.tree.current_id()
        await pilot.press("enter")
        assert screen.active_pane == "context"
        assert any(line.strip() for line in lines_of(screen.context_view.body))


async def test_sidebar_groups_by_cwd_and_opens_as_you_move(demo: Path, tmp_path: Path) -> None:
    app = make_app(demo, tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        rows = lines_of(screen.sidebar.session_list)
        assert any(row.startswith("/home/u/proj-a") for row in rows)
        first = screen.session.path
        await pilot.press("down", "down")
        await until(
            pilot, lambda: screen.session is not None and screen.session.path != first, "another session"
        )
        assert screen.session.path == screen.sidebar.session_list.current().path


async def test_excluded_entries_shown_in_place_with_their_reason(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    compaction_session(root / "--home-u-proj--")
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        assert screen.context_view.projection.leaf_id == "n1"
        body = screen.context_view.body
        assert [b.kind for b in body.blocks if b.kind == "excluded"] == []
        await pilot.press("x")
        excluded = {b.record.id: b.fate.reason for b in body.blocks if b.kind == "excluded"}
        assert excluded == {
            "s0": Reason.SUMMARIZED,
            "u1": Reason.SUMMARIZED,
            "a1": Reason.SUMMARIZED,
            "a3": Reason.OMITTED,
        }
        body.action_to_start()
        await pilot.pause()
        text = "\n".join(lines_of(body))
        assert "summarized by compaction c1" in text
        await pilot.press("x")
        assert not [b for b in body.blocks if b.kind == "excluded"]
        header = str(screen.query_one("#context-line1").render())
        assert "thinking off" in header and "messages" in header


async def test_search_sessions_as_you_type_says_where_it_matched(demo: Path, tmp_path: Path) -> None:
    app = make_app(demo, tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        total = len(screen.sidebar.summaries)
        await pilot.press("slash", *"fetchData")
        await until(pilot, lambda: screen.sidebar.matches is not None, "search results")
        rows = screen.sidebar.session_list.rows
        sessions = [r for r in rows if hasattr(r, "summary")]
        assert 0 < len(sessions) < total
        assert all(r.matched for r in sessions)
        assert any("fetchData" in line for line in lines_of(screen.sidebar.session_list))
        screen.sidebar.search_input.value = "re:("
        await until(pilot, lambda: "invalid search" in static_text(screen, "#sidebar-title"), "the error")
        await pilot.press("escape")
        assert screen.sidebar.matches is None
        assert len([r for r in screen.sidebar.session_list.rows if hasattr(r, "summary")]) == total


async def test_search_within_the_session_opens_each_match(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    compaction_session(root / "--home-u-proj--")
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("tab")
        await pilot.press("slash", *"question", "enter")
        await until(pilot, lambda: screen.tree.matches, "matches")
        assert screen.tree.matches == ["u1", "u2", "u3", "u4"]
        first = screen.tree.current_id()
        await pilot.press("n")
        assert screen.tree.current_id() != first
        assert screen.tree.current_id() in screen.tree.matches


async def test_view_filters_cycle(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    compaction_session(root / "--home-u-proj--")
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("tab")
        default_rows = [r.record.id for r in screen.tree.rows]
        assert "e1" not in default_rows  # settings entries hidden, like pi...
        edited = next(line for line in lines_of(screen.tree) if "third answer" in line)
        assert "✎" in edited  # ... but the entry a context edit changed says so
        assert default_rows[-1] == "n1"  # ... but the active leaf is always shown
        seen = {}
        for _ in range(5):
            await pilot.press("v")
            seen[screen.tree.view] = [r.record.id for r in screen.tree.rows]
        assert seen[ViewFilter.USER_ONLY] == ["u1", "u2", "u3", "u4", "n1"]
        assert "e1" in seen[ViewFilter.ALL] and "n1" in seen[ViewFilter.ALL]
        assert screen.tree.view is ViewFilter.DEFAULT


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


async def test_live_append_keeps_selection_and_scroll(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    folder = root / "--home-u-proj--"
    folder.mkdir(parents=True)
    rows = [header(id="live")]
    parent = None
    for i in range(60):
        rows.append(user(f"u{i}", parent, f"question {i}", 2 * i) if True else None)
        rows.append(assistant(f"a{i}", f"u{i}", f"answer {i}", 2 * i + 1))
        parent = f"a{i}"
    path = write(folder / "live.jsonl", *rows)
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await loaded(pilot)
        await watching(pilot)
        await pilot.press("tab")
        for _ in range(30):
            await pilot.press("k")
        selected = screen.tree.current_id()
        scroll = screen.tree.scroll_offset.y
        context_leaf = screen.context_view.projection.leaf_id
        with open(path, "ab") as f:
            f.write(
                jsonl(user("u60", "a59", "a new question", 200), assistant("a60", "u60", "a new answer", 201))
            )
        await until(pilot, lambda: "a60" in screen.tree.index_by_id, "the new entries in the tree")
        assert screen.tree.current_id() == selected
        assert screen.tree.scroll_offset.y == scroll
        assert screen.context_view.projection.leaf_id == context_leaf
        # At the tip, the context follows new entries that extend it; the cursor stays.
        await pilot.press("a")
        assert screen.tree.current_id() == "a60"
        with open(path, "ab") as f:
            f.write(jsonl(user("u61", "a60", "one more", 202)))
        await until(pilot, lambda: "u61" in screen.tree.index_by_id, "u61")
        await until(pilot, lambda: screen.context_view.projection.leaf_id == "u61", "context extended")
        assert screen.tree.current_id() == "a60"
        # Follow mode moves the selection to the newest entry.
        await pilot.press("F")
        assert screen.follow
        with open(path, "ab") as f:
            f.write(jsonl(assistant("a61", "u61", "followed", 203)))
        await until(pilot, lambda: screen.tree.current_id() == "a61", "follow")
        assert screen.sidebar.session_list.live.get(str(path))


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
            pilot, lambda: any("a question on a new branch" in r for r in lines_of(screen.tree)), "x1"
        )
        await settled(pilot)
        rows = lines_of(screen.tree)
        assert static_text(screen, "#context-title") == "Context at e4"  # the context stays
        assert screen.tree.current_id() == "e4"
        new_branch = next(r for r in rows if "a question on a new branch" in r)
        old_branch = next(r for r in rows if "answer 9" in r)
        assert new_branch.startswith("●") and not old_branch.startswith("●")  # pi resumes there now
        assert any("├─" in r or "└─" in r for r in rows)  # e4 is a fork point now


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
            screen.tree.select(entry_id)
            await until(pilot, lambda: f"Context at {entry_id}" == static_text(screen, "#context-title"))
            return static_text(screen, "#context-line1")

        assert "$31.00 / 3.1k tokens spent on this path" in await header_at("c2")
        assert "$1.20 / 120 tokens spent on this path" in await header_at("b1")  # not the $31.20 in all
        assert "$1.00 / 100 tokens spent on this path" in await header_at("c1")
        assert "$31.00 / 3.1k tokens spent on this path" in await header_at("c2")


def tree_shape(tree: Any) -> list[tuple[Any, ...]]:
    return [
        (
            r.record.id,
            r.depth,
            r.guides,
            r.branch_start,
            r.last_branch,
            r.child_count,
            r.on_active_path,
            r.folded,
        )
        for r in tree.rows
    ]


async def test_live_rows_match_a_fresh_rebuild_and_growth_at_the_bottom_adds_in_place(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    rows = [header(id="grow"), *chain(4)]
    rows += [user("b1", "e3", "first branch", 10), user("c1", "e3", "second branch", 11)]
    rows += [assistant("c2", "c1", "on the second branch", 12)]
    path = write(root / "--home-u-proj--" / "grow.jsonl", *rows)
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await loaded(pilot)
        await watching(pilot)
        tree = screen.tree
        rebuilds: list[str] = []
        real_rebuild = tree.rebuild

        def counting_rebuild(*args: Any, **kwargs: Any) -> None:
            rebuilds.append("rebuild")
            real_rebuild(*args, **kwargs)

        tree.rebuild = counting_rebuild  # type: ignore[method-assign]

        async def append_and_compare(*objects: Any) -> list[tuple[Any, ...]]:
            rebuilds.clear()
            with open(path, "ab") as f:
                f.write(jsonl(*objects))
            await until(pilot, lambda: objects[-1]["id"] in (screen.session.by_id if screen.session else {}))
            await pilot.pause()
            live = tree_shape(tree)
            real_rebuild(keep_view=True)
            assert live == tree_shape(tree)
            return live

        # The conversation grows at its tip: rows are added, nothing is rebuilt, and the cursor
        # stays on the entry it was on, below the new rows.
        tree.select("b1")
        shape = await append_and_compare(user("c3", "c2", "more", 13), assistant("c4", "c3", "reply", 14))
        assert tree.current_id() == "b1"
        ids = [row[0] for row in shape]
        assert ids[ids.index("c2") + 1 : ids.index("c2") + 3] == ["c3", "c4"] and ids[-1] == "b1"
        assert rebuilds == []
        # A settings entry is hidden in the default view but its child is added.
        shape = await append_and_compare(
            entry("model_change", "m1", "c4", 15, provider="x", modelId="y"), user("c5", "m1", "after", 16)
        )
        ids = [row[0] for row in shape]
        assert "m1" not in ids and ids[ids.index("c4") + 1] == "c5"
        assert rebuilds == []
        # A settings entry as the new leaf is shown while it is the leaf, then hidden again.
        shape = await append_and_compare(entry("model_change", "m2", "c5", 17, provider="x", modelId="z"))
        ids = [row[0] for row in shape]
        assert ids[ids.index("c5") + 1] == "m2"
        shape = await append_and_compare(user("c6", "m2", "after the change", 18))
        assert "m2" not in [row[0] for row in shape]
        # Going back to the first branch moves the active path: the tree is rebuilt.
        shape = await append_and_compare(assistant("b2", "b1", "back on the first branch", 19))
        assert rebuilds and {row[0] for row in shape if row[6]} >= {"e0", "b1", "b2"}
        # In the labelled view, a label on an older entry brings it in.
        tree.view = ViewFilter.LABELED
        real_rebuild()
        shape = await append_and_compare(entry("label", "l1", "b2", 20, targetId="e1", label="start"))
        assert "e1" in [row[0] for row in shape]


async def test_live_context_grows_at_the_end_and_leaves_a_scrolled_view_alone(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path = write(root / "--home-u-proj--" / "ctx.jsonl", header(id="ctx"), *chain(80))
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await loaded(pilot)
        await watching(pilot)
        await settled(pilot)
        body = screen.context_view.body

        def blocks_of(blocks: list[Any]) -> list[tuple[Any, ...]]:
            return [(b.kind, b.entry_id, b.message_index) for b in blocks]

        async def append(*objects: Any) -> None:
            with open(path, "ab") as f:
                f.write(jsonl(*objects))
            leaf = objects[-1]["id"]
            await until(pilot, lambda: screen.context_view.projection.leaf_id == leaf, "the context to grow")
            await settled(pilot)
            session = screen.session
            assert session is not None
            fresh = build_blocks(session, project(session, leaf), screen.context_view.show_excluded)
            assert blocks_of(body.blocks) == blocks_of(fresh)

        assert body.scroll_offset.y == body.max_scroll_y > 0
        shown_blocks = body.blocks
        await append(user("n1", "e79", "a brand new question", 100))
        assert body.blocks is shown_blocks  # extended in place, not built again
        assert body.scroll_offset.y == body.max_scroll_y
        assert any("a brand new question" in line for line in lines_of(body))
        # Scrolled up to read: new messages arrive below without moving the view.
        body.scroll_to(y=3, animate=False, immediate=True)
        await pilot.pause()
        await append(assistant("n2", "n1", "a brand new answer", 101))
        assert body.scroll_offset.y == 3
        # With what is not in context shown, the whole pane is rebuilt, to the same result,
        # and a view at the end stays there.
        screen.context_view.toggle_excluded()
        await settled(pilot)
        await append(user("n3", "n2", "and another", 102))
        assert body.scroll_offset.y == body.max_scroll_y
        assert any("and another" in line for line in lines_of(body))


async def test_folding_and_jumping_update_the_context_once(tmp_path: Path) -> None:
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
        await pilot.press("tab")
        shown: list[str] = []
        real_show = screen.show_context

        def counting_show(entry_id: str, **kwargs: Any) -> None:
            shown.append(entry_id)
            real_show(entry_id, **kwargs)

        screen.show_context = counting_show  # type: ignore[method-assign]
        screen.tree.select("b3")
        await pilot.pause()
        assert shown == ["b3"]
        # Folding from inside a branch folds the branch and goes to its first entry.
        shown.clear()
        await pilot.press("left")
        await pilot.pause()
        assert screen.tree.current_id() == "b1" and "b1" in screen.tree.folded
        assert shown == ["b1"]
        # Folding the entry under the cursor leaves the context as it is.
        await pilot.press("right")
        shown.clear()
        await pilot.press("space")
        await pilot.pause()
        assert "b1" in screen.tree.folded and shown == []
        # Going to an entry hidden in a fold unfolds it, once.
        screen.tree.select("b3")
        await pilot.pause()
        assert shown == ["b3"] and screen.tree.current_id() == "b3"


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
        # Titles, status line and dialogs show text from files (and typed text) literally too.
        assert "[red]name[/red] [/x]" in static_text(screen, "#tree-title")
        await pilot.press("D")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the delete question")
        assert "[red]name[/red] [/x]" in static_text(app.screen, ".dialog-title")
        await pilot.press("escape")
        await pilot.press("tab")
        await pilot.press("slash", *"zz[/x]", "enter")
        await until(pilot, lambda: "zz[/x]" in static_text(screen, "#status"), "the search status")
        await pilot.press("k")
        texts = (
            segments_of(screen.tree)
            + segments_of(screen.context_view.body)
            + segments_of(screen.sidebar.session_list)
        )
        joined = "".join(texts)
        for control in ("\x1b", "\x07", "\x9b"):
            assert control not in joined
        assert "\u241b]52;c;ZXZpbA==" in joined  # ESC shown as a visible placeholder
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
        assert str(root) in status and "demo" in status
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
        assert app.screen.value["id"] == screen.tree.current_id() == "n1"
        assert app.screen.value["name"] == "Compaction demo"
        log_text = "\n".join(app.screen.query_one("Log").lines)
        assert json.loads(log_text)["type"] == "session_info"


async def test_ascii_mode_draws_only_ascii(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    compaction_session(root / "--home-u-proj--")
    app = make_app(root, tmp_path / "cache", ascii=True)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("tab", "x")
        drawn = "".join(
            segments_of(screen.tree)
            + segments_of(screen.context_view.body)
            + segments_of(screen.sidebar.session_list)
        )
        titles = [
            str(screen.query_one(f"#{name}").render())
            for name in ("tree-title", "sidebar-title", "context-line1")
        ]
        assert drawn.isascii() and all(t.isascii() for t in titles), [
            c for c in drawn + "".join(titles) if not c.isascii()
        ]
        assert "|- " in drawn or "`- " in drawn or "* " in drawn


def test_demo_copies_are_removed_and_a_given_folder_is_kept(tmp_path: Path) -> None:
    from pi_sessions.app.demo import demo_root, remove_demos

    given = prepare_demo(tmp_path / "given")
    made = Path(demo_root().path)
    assert any(made.rglob("*.jsonl"))
    remove_demos()
    assert not made.parent.exists()
    assert any(given.rglob("*.jsonl"))
