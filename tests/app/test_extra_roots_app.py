"""Extra session folders (config `extra_roots`) listed beside pi's, each labelled; an
oh-my-pi store among them opens with its sessions' titles."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi_sessions.app.config import ExtraRoot
from pi_sessions.core.listing.sidebar_rows import GroupRow, SessionRow

from tests.helpers.app import loaded, make_app, static_text, until
from tests.helpers.checks import known
from tests.helpers.fixtures import omp_store
from tests.helpers.sessions import header, user, write


def groups(screen: Any) -> list[str]:
    return [r.title for r in screen.sidebar.session_list.rows if type(r) is GroupRow]


async def test_an_omp_store_as_an_extra_root_is_labelled_and_opens_with_its_title(tmp_path: Path) -> None:
    pi_root = tmp_path / "pi-sessions"
    write(pi_root / "--home-u-proj--" / "a.jsonl", header(cwd="/home/u/proj"), user("u1", None, "pi's own"))
    omp = omp_store(tmp_path)
    app = make_app(pi_root, tmp_path / "cache", extra_roots=[ExtraRoot(str(omp), "omp")])
    async with app.run_test(size=(150, 30)) as pilot:
        screen = await loaded(pilot)
        await until(pilot, lambda: "[omp] /home/u/proj" in groups(screen), "the omp group")
        assert "/home/u/proj" in groups(screen)  # pi's sessions of the same cwd keep their group
        session_list = screen.sidebar.session_list
        titles = [r.summary.title for r in session_list.rows if type(r) is SessionRow]
        assert "Fix the arm64 build" in titles
        session_list.focus()
        target = next(r.summary.path for r in session_list.rows if type(r) is SessionRow and r.summary.name)
        for _ in range(len(session_list.rows)):  # (up or down to it, whichever way it is)
            if known(session_list.current()).path == target:
                break
            await pilot.press("up" if known(session_list.index_of(target)) < session_list.cursor else "down")
        await pilot.press("enter")
        await until(
            pilot,
            lambda: screen.session is not None and screen.session.name == "Fix the arm64 build",
            "the omp session open",
        )
        assert "Fix the arm64 build" in static_text(screen.tree_pane, "#tree-title")
        assert [r.record.id for r in screen.branch_tree.rows][:2] == ["o1", "o2"]
