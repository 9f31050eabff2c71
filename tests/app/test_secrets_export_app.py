"""In the app: exporting a session that holds secrets first lists them and asks; the redacted
export holds none of them, the one kept as it is holds them."""

from __future__ import annotations

from pathlib import Path

import pytest
from pi_sessions.app.screens import MenuScreen

from tests.helpers.app import loaded, make_app, until
from tests.helpers.secrets import EXPECTED, GITHUB, write_secret_session
from tests.helpers.sessions import header, user, write


async def test_export_lists_the_secrets_and_redacts_them(tmp_path: Path) -> None:
    folder = tmp_path / "sessions" / "--home-u-proj--"
    folder.mkdir(parents=True)
    write_secret_session(folder)
    here = tmp_path / "here"
    here.mkdir()
    app = make_app(tmp_path / "sessions", tmp_path / "cache", cwd=str(here))
    async with app.run_test(size=(160, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("E", "2", "1")  # the tree, into the current folder (the session's is gone)
        await until(
            pilot, lambda: isinstance(app.screen, MenuScreen) and "secret" in app.screen.title_text, "review"
        )
        assert isinstance(app.screen, MenuScreen)
        assert f"{len(EXPECTED)} secrets" in app.screen.title_text
        assert "github-token gh…" in app.screen.detail and GITHUB not in app.screen.detail
        await pilot.press("1")  # redact
        await until(pilot, lambda: len(list(here.iterdir())) == 2, "the redacted export")
        for path in here.iterdir():
            text = path.read_text()
            assert not [k for k, (v, *_) in EXPECTED.items() if v.split("\n")[-1] in text], path
            assert "[redacted: github-token]" in text

        await pilot.press("E", "2", "1")
        await until(
            pilot, lambda: isinstance(app.screen, MenuScreen) and "secret" in app.screen.title_text, "review"
        )
        await pilot.press("2")  # as it is
        await until(pilot, lambda: len(list(here.iterdir())) == 4, "the plain export")
        assert GITHUB in (here / "0195aaaa-0000-7000-8000-000000000001-tree-1.md").read_text()


@pytest.mark.usefixtures("bin_dir")
async def test_copying_a_text_with_a_secret_offers_it_redacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSH_TTY", "/dev/pts/3")  # the copy goes by OSC 52: app.clipboard has it
    write(
        tmp_path / "sessions" / "--p--" / "2025-03-01T10-00-00-000Z_sid.jsonl",
        header(id="sid", cwd=str(tmp_path)),
        user("u1", None, "hello", 1),
        user("u2", "u1", f"push with {GITHUB} please", 2),
    )
    app = make_app(tmp_path / "sessions", tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("y", "1")  # the text of the selected entry (the leaf)
        await until(
            pilot, lambda: isinstance(app.screen, MenuScreen) and "secret" in app.screen.title_text, "ask"
        )
        await pilot.press("1")
        await until(pilot, lambda: "redacted" in app.clipboard, "the redacted copy")
        assert GITHUB not in app.clipboard and "[redacted: github-token]" in app.clipboard
