"""The status line and the sidebar's title say what matters at the width they have: what the
last action did (never a message about a hit once the listing was sorted), a path's file name
(its middle given up first), a search's count."""

from __future__ import annotations

from pathlib import Path

import pytest
from pi_sessions.app.screens import ConfirmScreen
from pi_sessions.widgets.plain import FitStatic

from tests.helpers.app import lines_of, loaded, make_app, settled, static_text, until
from tests.helpers.checks import known
from tests.helpers.sessions import assistant, header, user, write


def shown(screen: object, selector: str) -> str:
    """What a one-line Static shows at its width now (cut to fit)."""
    widget = screen.query_one(selector, FitStatic)  # type: ignore[attr-defined]
    return str(widget.render())


async def test_sorting_replaces_a_status_about_a_hit(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    for n, word in enumerate(("alpha", "beta")):
        write(
            root / "p" / f"2025-03-0{n + 1}T10-00-00-000Z_{word}.jsonl",
            header(id=f"s-{word}", timestamp=f"2025-03-0{n + 1}T10:00:00.000Z"),
            user("u1", None, f"{word} zebra question", 1),
            assistant("a1", "u1", "an answer", 2),
        )
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("slash", *"zebra")
        await until(pilot, lambda: screen.sidebar.matches is not None, "the answer")
        await pilot.press("enter")
        await until(pilot, lambda: "of u1" in static_text(screen, "#status"), "the hit's status")
        await pilot.press("shift+tab")
        await until(pilot, lambda: screen.active_pane == "sidebar", "the sidebar focused")
        await pilot.press("s")
        await until(pilot, lambda: "by name" in static_text(screen, "#sidebar-title"), "sorted by name")
        status = static_text(screen, "#status")
        assert "of u1" not in status and "hit" not in status
        assert status == "sorted by name"
        await pilot.press("c")
        await until(pilot, lambda: static_text(screen, "#status") != "sorted by name", "the scope's status")
        assert "folder" in static_text(screen, "#status")


async def test_opening_another_session_drops_the_status_about_a_hit(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    for n, word in enumerate(("alpha", "beta")):
        write(
            root / "p" / f"2025-03-0{n + 1}T10-00-00-000Z_{word}.jsonl",
            header(id=f"s-{word}", timestamp=f"2025-03-0{n + 1}T10:00:00.000Z"),
            user("u1", None, f"{word} zebra question", 1),
            assistant("a1", "u1", "an answer", 2),
        )
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("slash", *"beta zebra")
        await until(pilot, lambda: screen.sidebar.matches is not None, "the answer")
        await pilot.press("enter")
        await until(pilot, lambda: "of u1" in static_text(screen, "#status"), "the hit's status")
        opened = known(screen.session).path
        await pilot.press("shift+tab", "escape")  # the sidebar, the whole list again
        await until(pilot, lambda: screen.sidebar.matches is None, "the search closed")
        await pilot.press("down" if screen.sidebar.session_list.cursor == 1 else "up")
        await until(pilot, lambda: known(screen.session).path != opened, "the other session open")
        assert "of u1" not in static_text(screen, "#status")  # (it was about the other one)


async def test_a_deleted_sessions_trash_path_keeps_its_file_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "a-data-folder-with-a-rather-long-name" / "data"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no `trash` command: the freedesktop trash
    root = tmp_path / "sessions" / "--home-u-work-a-project-folder-with-a-long-path--"
    name = "2025-03-01T10-00-00-000Z_0195aaaa-0000-7000-8000-000000000001.jsonl"
    path = write(root / name, header(), user("u1", None, "first", 1), assistant("a1", "u1", "reply", 2))
    write(root / ("2025-02-01" + name[10:]), header(id="other"), user("u1", None, "another", 1))
    app = make_app(tmp_path / "sessions", tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("D")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await until(pilot, lambda: not path.exists(), "the file trashed")
        await until(pilot, lambda: static_text(screen, "#status").startswith("moved"), "the status")
        line = shown(screen, "#status")
        assert len(line) <= 160 and static_text(screen, "#status") != line  # too long: shortened
        assert line.startswith("moved ") and " to " in line
        assert line.endswith(f"Trash/files/{name}")  # where it went, to its file name
        assert "…" in line.split(" to ")[0]  # the source path gave up its middle


async def test_a_deep_searchs_count_stays_in_the_title_at_160_columns(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    for n in range(69):
        word = "zebra" if n < 29 else "other"
        write(
            root / "p" / f"2025-03-01T10-00-{n:02d}-000Z_s{n}.jsonl",
            header(id=f"s{n}"),
            user("u1", None, f"question {n} about {word}", 1),
        )
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("ctrl+f", "slash", *"zebra")
        await until(pilot, lambda: getattr(screen.sidebar.matches, "done", False), "the deep search")
        await settled(pilot)
        assert "all folders" in static_text(screen, "#sidebar-title")  # the whole title
        title = shown(screen, "#sidebar-title")
        assert "29/69" in title and "29 found" in title and "deep" in title


async def test_this_folder_with_no_sessions_is_named_with_the_way_back(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    write(root / "p" / "s.jsonl", header(cwd="/home/u/elsewhere"), user("u1", None, "hello", 1))
    here = tmp_path / "an empty project"
    app = make_app(root, tmp_path / "cache", cwd=str(here))
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("c")
        await until(pilot, lambda: "this folder" in static_text(screen, "#sidebar-title"), "this folder")
        status = static_text(screen, "#status")
        assert status == f"no sessions in this folder ({here}): c lists every folder's"
        shown = " ".join(line.strip() for line in lines_of(screen.sidebar.session_list))
        assert "No sessions in this folder:" in shown and here.name in shown  # (the path wraps)
        assert "Press c to view every folder's." in shown
        await pilot.press("c")
        await until(pilot, lambda: screen.sidebar.session_list.rows != [], "every folder's again")
        assert static_text(screen, "#status") == "every folder's sessions"
