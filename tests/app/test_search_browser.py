"""The browser's search, driven as a user would: a hit lands on its entry (a branch says so),
n / N walk the hits, escape goes back to the results, the deep scope finds what the default
does not, typing is never blocked by a slow search and a stale answer never replaces a newer
one."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from pi_sessions.core.listing.sidebar_rows import HIT_LINE, SessionRow
from pi_sessions.core.search import sidebar as sidebar_search
from pi_sessions.core.search.matching import PatternTooSlow
from pi_sessions.core.search.picker import SearchIndex
from pi_sessions.core.search.sidebar import SidebarSearch
from textual.pilot import Pilot

from tests.helpers.app import lines_of, loaded, main, make_app, settled, static_text, until
from tests.helpers.sessions import assistant, branched, entry, header, kitchen, tool_result, user, write


async def search_for(pilot: Pilot[Any], text: str) -> None:
    """Type `text` into the sidebar's search and wait for its answer, with its places."""
    screen = main(pilot)
    await pilot.press("slash", *text)
    await until(
        pilot, lambda: getattr(screen.sidebar.matches, "text", None) == text, f"the answer to {text!r}"
    )
    await settled(pilot)


def hit_lines(screen: Any) -> list[str]:
    rows = screen.sidebar.session_list.rows
    return [
        line
        for i, line in enumerate(lines_of(screen.sidebar.session_list))
        if i < len(rows) and rows[i] is HIT_LINE
    ]


async def test_a_hit_on_an_abandoned_branch_lands_on_its_entry_and_says_so(tmp_path: Path) -> None:
    branched(tmp_path / "sessions" / "p" / "s.jsonl")
    app = make_app(tmp_path / "sessions", tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        assert screen.context_leaf == "a2"  # opened at its active leaf
        await search_for(pilot, '"explain why that works"')
        await until(pilot, lambda: any("branch from a1" in line for line in hit_lines(screen)), "the place")
        (line,) = hit_lines(screen)
        assert "explain why that works" in line  # a message hit: no field named
        await pilot.press("enter")
        await until(pilot, lambda: screen.branch_tree.current_id() == "u3", "the landing")
        await until(pilot, lambda: screen.context_leaf == "u3", "the context at the hit")
        assert screen.active_pane == "tree"
        assert screen.context_view.projection is not None
        assert [r.id for r in screen.context_view.projection.path] == ["u1", "a1", "u3"]
        shown = "\n".join(lines_of(screen.context_view.body))
        assert "explain why that works" in shown and "Go ahead and fix it" not in shown
        status = static_text(screen, "#status")
        assert "u3" in status and "branch from a1" in status


async def test_a_hit_hidden_by_a_fold_and_the_view_filter_is_shown(tmp_path: Path) -> None:
    branched(tmp_path / "sessions" / "p" / "s.jsonl")
    app = make_app(tmp_path / "sessions", tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        tree = screen.branch_tree
        await pilot.press("tab")
        tree.select("u3")
        tree.action_fold()  # the branch holding u3 folded away
        tree.action_set_filter("user-only")  # and a view that hides assistant entries
        await pilot.pause()
        assert "a3" not in tree.index_by_id
        await pilot.press("escape")  # back to the sessions
        await search_for(pilot, "lock is held")
        await pilot.press("enter")
        await until(pilot, lambda: tree.current_id() == "a3", "the landing on a hidden entry")
        await until(pilot, lambda: screen.context_leaf == "a3", "its context")


async def test_n_and_N_walk_the_hits_of_the_query(tmp_path: Path) -> None:
    branched(tmp_path / "sessions" / "p" / "s.jsonl")
    app = make_app(tmp_path / "sessions", tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        await search_for(pilot, "fix")
        await pilot.press("enter")
        tree = screen.branch_tree
        await until(pilot, lambda: tree.current_id() == "u1", "the landing on the first hit")
        assert sorted(tree.matches) == ["a2", "u1", "u2"]  # "Fixed" too: pi matches substrings
        forward = [tree.current_id()]
        for _ in range(3):
            await pilot.press("n")
            forward.append(tree.current_id())
        assert forward[3] == "u1" and sorted(map(str, forward[:3])) == [
            "a2",
            "u1",
            "u2",
        ]  # each once, then round
        backward = [tree.current_id()]
        for _ in range(3):
            await pilot.press("N")
            backward.append(tree.current_id())
        assert backward == list(reversed(forward))
        await until(pilot, lambda: screen.context_leaf == tree.current_id(), "the context follows")


async def test_escape_goes_back_to_the_results_with_the_query_and_row_kept(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    for name in ("a", "b", "c"):
        write(
            root / "p" / f"{name}.jsonl",
            header(id=f"s-{name}"),
            user("u1", None, f"deploy the {name} service", 1),
            assistant("a1", "u1", "done", 2),
        )
    write(root / "p" / "other.jsonl", header(id="s-other"), user("u1", None, "unrelated", 1))
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        await search_for(pilot, "deploy")
        sessions = [r for r in screen.sidebar.session_list.rows if isinstance(r, SessionRow)]
        assert len(sessions) == 3
        await pilot.press("down")  # from the search line into the list: on the first result, shown
        first = screen.sidebar.session_list.current()
        assert first is not None and first.path == str(sessions[0].summary.path)
        await until(
            pilot, lambda: screen.session is not None and screen.session.path == first.path, "it shown"
        )
        await pilot.press("down")  # then down the list: the second
        chosen = screen.sidebar.session_list.current()
        assert chosen is not None and chosen.path == str(sessions[1].summary.path)
        await pilot.press("enter")
        await until(
            pilot, lambda: screen.active_pane == "tree" and screen.branch_tree.current_id() == "u1", "landed"
        )
        assert screen.session is not None and screen.session.path == chosen.path
        await pilot.press("escape")
        assert screen.active_pane == "sidebar"
        assert screen.sidebar.search_input.value == "deploy"
        assert screen.sidebar.matches is not None and screen.sidebar.matches.text == "deploy"
        assert screen.sidebar.session_list.current() == chosen
        assert len([r for r in screen.sidebar.session_list.rows if isinstance(r, SessionRow)]) == 3


@pytest.mark.parametrize(
    ("query", "entry_id", "field"),
    [
        ('"is unused"', "t1", "tool result"),
        ('"good output"', "t1", "label"),
        ("staging", "b1", "bash output"),
    ],
)
async def test_a_deep_only_hit_is_found_only_in_deep_scope(
    tmp_path: Path, query: str, entry_id: str, field: str
) -> None:
    kitchen(tmp_path / "sessions" / "p" / "s.jsonl")
    app = make_app(tmp_path / "sessions", tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        await search_for(pilot, query)
        assert screen.sidebar.matches is not None
        assert len(screen.sidebar.matches) == 0
        assert "deep" not in static_text(screen, "#sidebar-title")
        await pilot.press("ctrl+f")  # the deep scope, from the search line
        await until(
            pilot,
            lambda: (m := screen.sidebar.matches) is not None and m.scope == "deep" and m.done,
            "the deep search",
        )
        title = static_text(screen, "#sidebar-title")
        assert "deep search" in title and "1 found" in title
        (line,) = hit_lines(screen)
        assert f"{field}:" in line and "active path" in line
        await pilot.press("down", "enter")
        await until(pilot, lambda: screen.branch_tree.current_id() == entry_id, "the landing")
        await until(pilot, lambda: screen.context_leaf == entry_id, "its context")
        await pilot.press("escape")  # back, and the default scope again: nothing
        await pilot.press("ctrl+f")
        await until(
            pilot, lambda: getattr(screen.sidebar.matches, "scope", None) == "default", "the default scope"
        )
        assert screen.sidebar.matches is not None
        assert len(screen.sidebar.matches) == 0


async def test_a_deep_search_streams_its_hits_with_the_files_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "sessions"
    for name in ("a", "b"):
        write(root / "p" / f"{name}.jsonl", header(id=f"s-{name}"), user("u1", None, f"zebra {name}", 1))
    go_on = threading.Event()
    streamed = SidebarSearch.deep_hits

    def slow_after_the_first(self: SidebarSearch, *args: Any, **kwargs: Any) -> Any:
        for count, hit in enumerate(streamed(self, *args, every=0.0, **kwargs)):
            if count == 1:
                go_on.wait(10)
            yield hit

    monkeypatch.setattr(SidebarSearch, "deep_hits", slow_after_the_first)
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("ctrl+f")
        await pilot.press("slash", *"zebra")
        await until(pilot, lambda: len(screen.sidebar.matches or ()) == 1, "the first hit")
        assert "files read" in static_text(screen, "#sidebar-title")  # not done: it says how far
        assert len(hit_lines(screen)) == 1
        go_on.set()
        await until(
            pilot, lambda: getattr(screen.sidebar.matches, "done", False), "the end of the deep search"
        )
        assert screen.sidebar.matches is not None
        assert len(screen.sidebar.matches) == 2 and len(hit_lines(screen)) == 2
        assert "files read" not in static_text(screen, "#sidebar-title")


async def test_typing_is_never_blocked_and_a_stale_answer_never_replaces_a_newer_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "sessions"
    write(root / "p" / "one.jsonl", header(id="s-one"), user("u1", None, "alpha beta", 1))
    write(root / "p" / "two.jsonl", header(id="s-two"), user("u1", None, "alpine", 1))
    release, finished = threading.Event(), threading.Event()
    searched = SidebarSearch.search

    def slow_for_al(self: SidebarSearch, text: str, *args: Any, **kwargs: Any) -> Any:
        if text != "al":
            return searched(self, text, *args, **kwargs)
        release.wait(10)  # a search that takes as long as the test wants...
        kwargs.pop("cancelled", None)
        try:
            return searched(self, text, *args, **kwargs)  # ...and does not stop when cancelled
        finally:
            finished.set()

    monkeypatch.setattr(SidebarSearch, "search", slow_for_al)
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        search = screen.sidebar.search_input
        await pilot.press("slash", "a", "l")
        await until(pilot, lambda: search.value == "al", "the typed letters")
        await pilot.press("p", "h")  # typed while the search for "al" is stuck
        assert search.value == "alph"
        assert any("alph" in line for line in lines_of(search))  # echoed on screen at once
        await until(
            pilot, lambda: getattr(screen.sidebar.matches, "text", None) == "alph", "the newer answer"
        )
        assert [r.summary.id for r in screen.sidebar.session_list.rows if isinstance(r, SessionRow)] == [
            "s-one"
        ]
        release.set()
        await until(pilot, finished.is_set, "the stale search to finish")
        for _ in range(5):
            await pilot.pause(0.02)
        assert screen.sidebar.matches is not None
        assert screen.sidebar.matches.text == "alph"  # "al" (both sessions) never shown over it
        assert [r.summary.id for r in screen.sidebar.session_list.rows if isinstance(r, SessionRow)] == [
            "s-one"
        ]


async def test_a_pattern_that_runs_too_long_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "sessions" / "p" / "s.jsonl", header(), user("u1", None, "aaaa", 1))

    def too_slow(*args: Any, **kwargs: Any) -> Any:
        raise PatternTooSlow()

    monkeypatch.setattr(SearchIndex, "search", too_slow)
    app = make_app(tmp_path / "sessions", tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("slash", *"re:(a+)+$")
        await until(pilot, lambda: str(PatternTooSlow()) in static_text(screen, "#status"), "the status line")
        assert "invalid search" in static_text(screen, "#sidebar-title")


async def test_a_time_filter_is_shown_and_applied(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    write(root / "p" / "old.jsonl", header(id="s-old"), user("u1", None, "deploy the old thing", 1))
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        await search_for(pilot, "deploy @2w")  # the file's entries are from 2025
        assert "active within 2w" in static_text(screen, "#sidebar-title")
        assert screen.sidebar.matches is not None
        assert len(screen.sidebar.matches) == 0
        assert sidebar_search.describe_window(14 * 86_400_000) == "2w"


async def test_a_pasted_query_longer_than_the_limit_is_cut_and_the_status_says_so(tmp_path: Path) -> None:
    from pi_sessions.core.search.query import MAX_QUERY_CHARS
    from textual import events

    root = tmp_path / "sessions"
    write(root / "p" / "one.jsonl", header(id="s-one"), user("u1", None, "alpha beta", 1))
    write(root / "p" / "two.jsonl", header(id="s-two"), user("u1", None, "alpha omega", 1))
    start = " ".join(["alpha"] * 60)[:MAX_QUERY_CHARS]
    pasted = start + " omega" * 500  # (the whole of it would keep s-two only)
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        search = screen.sidebar.search_input
        await pilot.press("slash")
        search.post_message(events.Paste(pasted))
        await until(pilot, lambda: getattr(screen.sidebar.matches, "text", None) == pasted, "the answer")
        await settled(pilot)
        assert f"query cut to {MAX_QUERY_CHARS} characters" in static_text(screen, "#sidebar-title")
        shown = [r.summary.id for r in screen.sidebar.session_list.rows if isinstance(r, SessionRow)]
        assert sorted(shown) == ["s-one", "s-two"]  # the hits of the query's first 256 characters
        await pilot.press("backspace")  # and at the next key too
        await until(pilot, lambda: getattr(screen.sidebar.matches, "text", None) == pasted[:-1], "the answer")
        assert f"query cut to {MAX_QUERY_CHARS} characters" in static_text(screen, "#sidebar-title")
        await pilot.press("ctrl+a", "ctrl+k", *"omega")  # a short query is not cut
        await until(pilot, lambda: getattr(screen.sidebar.matches, "text", None) == "omega", "the answer")
        assert "query cut" not in static_text(screen, "#sidebar-title")


async def test_a_deep_search_reads_only_the_sessions_the_sidebar_shows(tmp_path: Path) -> None:
    """The folder scope and the named-only filter hold for a deep search too: a session they
    hide is not searched, even where its tool output holds the word."""
    root = tmp_path / "sessions"

    def session(name: str, cwd: str, named: bool) -> None:
        info = [entry("session_info", "n1", "t1", 3, name=name)] if named else []
        write(
            root / f"--{cwd.strip('/').replace('/', '-')}--" / f"{name}.jsonl",
            header(id=name, cwd=cwd),
            user("u1", None, f"start {name}", 1),
            tool_result("t1", "u1", "frobnicate() is unused", 2),
            *info,
        )

    session("here-named", "/home/u/proj", True)
    session("here-named-zz", "/home/u/proj", True)
    session("here-unnamed", "/home/u/proj", False)
    session("there-named", "/home/u/other", True)
    app = make_app(root, tmp_path / "cache", cwd="/home/u/proj")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)

        def listed() -> list[str]:
            return [row.summary.id for row in screen.sidebar.session_list.rows if isinstance(row, SessionRow)]

        await pilot.press("c", "n", "s")  # this folder only, named only, by name
        await until(pilot, lambda: len(listed()) == 2, "the filters")
        await pilot.press("ctrl+f")
        await pilot.press("slash", *"frobnicate")
        await until(pilot, lambda: getattr(screen.sidebar.matches, "done", False), "the deep search")
        await settled(pilot)
        assert listed() == ["here-named", "here-named-zz"]  # in the order shown, by name
        assert "2 found" in static_text(screen, "#sidebar-title")  # not the 4 sessions holding the word
        assert len(hit_lines(screen)) == 2
