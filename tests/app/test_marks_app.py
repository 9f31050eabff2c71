"""Pin, archive and tag in the browser: `p` brings a session to the top of its group, `z`
takes it out of the list (`is:archived` finds it), `t` tags it and `tag:NAME` keeps the tagged
ones; the marks survive a restart and no session file changes."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, cast

from pi_sessions.app.keymap import palette_commands
from pi_sessions.app.tui import PiSessionsApp
from pi_sessions.core.listing.sidebar_rows import SessionRow
from textual.pilot import Pilot

from tests.helpers.app import loaded, make_app, settled, static_text, until
from tests.helpers.checks import known
from tests.helpers.sessions import header, user, write

IDS = [f"0195aaaa-0000-7000-8000-00000000000{n}" for n in range(3)]


def three_sessions(root: Path) -> list[Path]:
    """Three sessions in one folder, the first the newest."""
    return [
        write(
            root / "p" / f"s{n}.jsonl",
            header(id=IDS[n], timestamp=f"2025-03-0{5 - n}T10:00:00.000Z"),
            user("u1", None, f"topic number {n}", n=0) | {"timestamp": f"2025-03-0{5 - n}T10:00:01.000Z"},
        )
        for n in range(3)
    ]


def listed(screen: Any) -> list[str]:
    return [Path(r.summary.path).stem for r in screen.sidebar.session_list.rows if type(r) is SessionRow]


async def select(pilot: Pilot[Any], screen: Any, stem: str) -> None:
    session_list = screen.sidebar.session_list
    session_list.focus()
    while Path(session_list.current().path).stem != stem:
        await pilot.press("down")


def digests(paths: list[Path]) -> list[str]:
    return [hashlib.sha256(p.read_bytes()).hexdigest() for p in paths]


async def test_pin_brings_a_session_to_the_top_and_stays_after_a_restart(tmp_path: Path) -> None:
    files = three_sessions(tmp_path / "sessions")
    before = digests(files)
    app = make_app(tmp_path / "sessions", tmp_path / "cache")
    async with app.run_test(size=(140, 30)) as pilot:
        screen = await loaded(pilot)
        first = listed(screen)
        pinned = [first[-1], *first[:-1]]
        await select(pilot, screen, first[-1])
        await pilot.press("p")
        await until(pilot, lambda: listed(screen) == pinned, "the pinned session on top")
        assert "pinned" in static_text(screen, "#status")
        titles = {
            title: action
            for title, _, action, _ in palette_commands(screen, cast(PiSessionsApp, pilot.app).key_bindings)
        }
        assert {titles["Pin or unpin the session"], titles["Archive or unarchive the session"]} == {
            "flow('pin')",
            "flow('archive')",
        }
        assert titles["Tag the session"] == "flow('tag')"
    again = make_app(tmp_path / "sessions", tmp_path / "cache")
    async with again.run_test(size=(140, 30)) as pilot:
        screen = await loaded(pilot)
        assert listed(screen) == pinned
    assert digests(files) == before


async def test_archive_hides_a_session_until_the_search_asks_for_it(tmp_path: Path) -> None:
    files = three_sessions(tmp_path / "sessions")
    before = digests(files)
    app = make_app(tmp_path / "sessions", tmp_path / "cache")
    async with app.run_test(size=(140, 30)) as pilot:
        screen = await loaded(pilot)
        first = listed(screen)
        await select(pilot, screen, first[1])
        await pilot.press("z")
        await until(pilot, lambda: listed(screen) == [first[0], first[2]], "the archived session gone")
        await pilot.press("slash", *"is:archived")
        await until(
            pilot, lambda: screen.sidebar.matches is not None and listed(screen) == [first[1]], "found"
        )
        await settled(pilot)
    assert digests(files) == before


async def test_a_tag_typed_in_the_input_filters_the_search(tmp_path: Path) -> None:
    files = three_sessions(tmp_path / "sessions")
    app = make_app(tmp_path / "sessions", tmp_path / "cache")
    async with app.run_test(size=(140, 30)) as pilot:
        screen = await loaded(pilot)
        await select(pilot, screen, "s1")
        assert listed(screen) != ["s1"]
        await pilot.press("t")
        await until(pilot, lambda: type(pilot.app.screen).__name__ == "PromptScreen", "the tag input")
        await pilot.press(*"auth wip", "enter")
        await until(pilot, lambda: screen.sidebar.marks.of(IDS[1]).tags == ("auth", "wip"), "the tags")
        await pilot.press("slash", *"tag:auth")
        await until(
            pilot, lambda: screen.sidebar.matches is not None and listed(screen) == ["s1"], "filtered"
        )
        screen.sidebar.search_input.value = "tag:auth topic"  # words and a tag together
        await until(pilot, lambda: known(screen.sidebar.matches).text == "tag:auth topic", "the answer")
        assert listed(screen) == ["s1"]
        screen.sidebar.search_input.value = "tag:nothing"
        await until(pilot, lambda: known(screen.sidebar.matches).text == "tag:nothing", "the answer")
        assert listed(screen) == []
        await settled(pilot)
    assert files[1].read_bytes().count(b"\n") == 2  # (nothing appended)
