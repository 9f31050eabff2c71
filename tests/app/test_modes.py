"""The browser's modes and what they act on: follow (`F`) ends once the user moves off the
newest entry; `esc` in the context pane goes back to the tree; an action on the context acts on
the entry shown, not on the active leaf."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.app import loaded, make_app, settled, static_text, until, watching
from tests.helpers.sessions import assistant, chain, entry, header, jsonl, two_fork_session, user, write


async def test_follow_turns_off_when_the_user_moves_off_the_newest_entry(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path = write(root / "--home-u-proj--" / "live.jsonl", header(id="live"), *chain(6))
    async with make_app(root, tmp_path / "cache").run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)
        await watching(pilot)
        await pilot.press("tab", "F")
        await until(pilot, lambda: "following" in static_text(screen, "#tree-title"), "follow on")
        await until(pilot, lambda: static_text(screen, "#context-title") == "Context at e5", "the newest")
        await pilot.press("k")  # off the newest entry: the user looks elsewhere
        await until(pilot, lambda: static_text(screen, "#context-title") == "Context at e4", "e4")
        assert "following" not in static_text(screen, "#tree-title")
        with open(path, "ab") as f:
            f.write(jsonl(assistant("e6", "e5", "a new answer", 7)))
        await until(pilot, lambda: " 7 entries" in static_text(screen, "#tree-title"), "the new entry")
        await settled(pilot)
        assert static_text(screen, "#context-title") == "Context at e4"  # not pulled to e6


async def test_esc_in_the_context_pane_goes_back_to_the_tree(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    two_fork_session(root / "--home-u-proj--" / "s.jsonl")
    async with make_app(root, tmp_path / "cache").run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("tab", "k", "enter")  # choose an entry: the context pane takes the keys
        await until(pilot, lambda: screen.focused is screen.context_view.body, "the context pane")
        await pilot.press("escape")
        await until(pilot, lambda: screen.focused is screen.branch_tree, "back to the tree")
        assert static_text(screen, "#context-title") == "Context at u7"  # still the chosen entry


async def test_the_compaction_audit_is_of_the_path_to_the_entry_shown_not_the_active_leaf(
    tmp_path: Path,
) -> None:
    from pi_sessions.app.audit_screen import CompactionAuditScreen

    root = tmp_path / "sessions"
    write(
        root / "--home-u-proj--" / "s.jsonl",
        header(),
        user("u1", None, "hello", 1),
        assistant("a1", "u1", "the side answer", 2),
        assistant("a2", "u1", "the active answer", 3),  # the last line: the active leaf
    )
    async with make_app(root, tmp_path / "cache").run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("tab", "j")  # the active branch is drawn first: the side one below it
        await until(
            pilot, lambda: static_text(screen, "#context-title") == "Context at a1", "the side branch"
        )
        await pilot.press("A")
        await until(pilot, lambda: isinstance(pilot.app.screen, CompactionAuditScreen), "the audit")
        audit = pilot.app.screen
        assert isinstance(audit, CompactionAuditScreen)
        assert audit.leaf == "a1" and audit.title_text.endswith("the path to a1")


async def test_selecting_a_session_by_path_reaches_one_the_named_only_filter_hides(tmp_path: Path) -> None:
    """A view that opens a session by its path (the history view, a fork just made) reaches it
    even with named-only on: the filter goes, the cursor lands on it."""
    root = tmp_path / "sessions"
    folder = root / "--home-u-proj--"
    write(
        folder / "named.jsonl",
        header(id="named"),
        user("u1", None, "hi", 1),
        entry("session_info", "n1", "u1", 2, name="Named"),
    )
    unnamed = write(folder / "unnamed.jsonl", header(id="unnamed"), user("u1", None, "hello", 1))
    async with make_app(root, tmp_path / "cache").run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("n")
        await until(pilot, lambda: "named" in static_text(screen, "#sidebar-title"), "named only")
        assert screen.sidebar.session_list.index_of(str(unnamed)) is None
        assert screen.sidebar.select_path(str(unnamed))
        await settled(pilot)
        current = screen.sidebar.session_list.current()
        assert current is not None and current.path == str(unnamed)
        assert "named" not in static_text(screen, "#sidebar-title")


async def test_the_context_header_says_question_mark_after_a_compaction_with_no_reply_yet(
    tmp_path: Path,
) -> None:
    """pi's footer shows `?` for the share of the window until a reply after a compaction
    reports the context's size; the header says the same, then a percentage once one came."""
    root = tmp_path / "sessions"
    path = write(
        root / "--home-u-proj--" / "s.jsonl",
        header(),
        user("u1", None, "q", 1),
        assistant("a1", "u1", "a", 2),
        entry("compaction", "k1", "a1", 3, summary="so far", firstKeptEntryId="a1", tokensBefore=5000),
    )
    async with make_app(root, tmp_path / "cache").run_test(size=(200, 40)) as pilot:
        screen = await loaded(pilot)
        await watching(pilot)
        assert "? of 200k" in screen.context_view.header.text()
        with open(path, "ab") as f:
            f.write(jsonl(user("u2", "k1", "go on", 4), assistant("a2", "u2", "on it", 5)))
        await until(pilot, lambda: "% of 200k" in screen.context_view.header.text(), "a percentage")
        assert "? of" not in screen.context_view.header.text()
