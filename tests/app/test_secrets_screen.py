"""The secrets view (`K`): the open session's findings, each kind with its fate and a preview,
never a value on the screen; enter puts the tree on the entry, `a` lists every session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi_sessions.app.main_screen import MainScreen
from pi_sessions.app.secrets_screen import SecretsScreen
from textual.pilot import Pilot

from tests.helpers.app import loaded, make_app, screen_text, until
from tests.helpers.secrets import EXPECTED, GITHUB, write_secret_session
from tests.helpers.sessions import header, user, write


async def _secrets(pilot: Pilot[Any]) -> SecretsScreen:
    await pilot.press("K")
    await until(pilot, lambda: isinstance(pilot.app.screen, SecretsScreen), "the secrets view")
    screen = pilot.app.screen
    assert isinstance(screen, SecretsScreen)
    await until(pilot, lambda: screen.rows is not None, "the audit")
    await pilot.pause()
    return screen


def _raw_values() -> list[str]:
    """Every secret, and each line of the private key (a line of it is a leak too)."""
    values = [value for value, *_ in EXPECTED.values()]
    return values + [line for value in values for line in value.split("\n") if len(line) >= 8]


async def test_the_secrets_view_lists_each_kind_masked_and_enter_lands_on_the_entry(tmp_path: Path) -> None:
    folder = tmp_path / "sessions" / "--home-u-proj--"
    folder.mkdir(parents=True)
    write_secret_session(folder)
    app = make_app(tmp_path / "sessions", tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        main = await loaded(pilot)
        screen = await _secrets(pilot)
        shown = screen_text(app)
        assert screen.rows is not None
        assert {row.kind for row in screen.rows} == set(EXPECTED)
        for kind in EXPECTED:
            assert kind in shown, kind
        assert "gh…9e (40 chars)" in shown  # the preview: first and last two, the length
        assert "abandoned branch" in shown and "in context" in shown
        leaked = [value for value in _raw_values() if value in shown]
        assert not leaked

        # The off-path finding: enter puts the tree's cursor on its entry.
        rows = screen.secret_list.rows
        screen.secret_list.cursor = next(i for i, r in enumerate(rows) if r.kind == "keyword-secret")
        await pilot.press("enter")
        await until(
            pilot,
            lambda: app.screen is main and main.branch_tree.current_id() == "xr",
            "the tree on the abandoned branch's tool output",
        )
        assert main.focused is main.branch_tree


async def test_a_lists_every_session_and_enter_opens_the_other_one(tmp_path: Path) -> None:
    folder = tmp_path / "sessions" / "--home-u-proj--"
    folder.mkdir(parents=True)
    secret_session = write_secret_session(folder)
    other = write(
        tmp_path / "sessions" / "--p--" / "2025-04-01T10-00-00-000Z_sid.jsonl",
        header(id="sid", cwd=str(tmp_path), timestamp="2025-04-01T10:00:00.000Z"),
        user("u1", None, "hello", 1),
        user("u2", "u1", f"push with {GITHUB} please", 2),
    )
    app = make_app(tmp_path / "sessions", tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        main = await loaded(pilot)
        assert main.session is not None
        opened = Path(str(main.session.path))
        screen = await _secrets(pilot)
        assert screen.rows is not None
        assert {row.session_path for row in screen.rows} == {str(opened)}
        await pilot.press("a")
        await until(pilot, lambda: screen.every and screen.rows is not None, "every session")
        assert screen.rows is not None
        assert {row.session_path for row in screen.rows} == {str(secret_session), str(other)}
        assert GITHUB not in screen_text(app)
        elsewhere = next(p for p in (secret_session, other) if p != opened)
        rows = screen.secret_list.rows
        screen.secret_list.cursor = next(i for i, r in enumerate(rows) if r.session_path == str(elsewhere))
        entry = rows[screen.secret_list.cursor].entry_id
        await pilot.press("enter")
        await until(
            pilot,
            lambda: (
                app.screen is main
                and main.session is not None
                and main.session.path == str(elsewhere)
                and main.branch_tree.current_id() == entry
            ),
            "the other session at its entry",
        )
        assert isinstance(app.screen, MainScreen)
