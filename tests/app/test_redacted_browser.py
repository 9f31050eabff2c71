"""The browser with redaction on (the page `pi-sessions serve` serves): every secret of the
hand-made session is drawn as `[redacted: KIND]`, in the tree, the context and the raw JSON;
without it the same screen shows them."""

from __future__ import annotations

from pathlib import Path

from pi_sessions.app.screens import RawJsonScreen
from pi_sessions.core.common.text import redacting

from tests.helpers.app import loaded, make_app, screen_text, until
from tests.helpers.secrets import EXPECTED, GITHUB, write_secret_session


def _leaks(shown: str) -> list[str]:
    return [
        kind
        for kind, (value, *_) in EXPECTED.items()
        if any(piece in shown for piece in (value, *value.split("\n")) if len(piece) >= 8)
    ]


async def _views(tmp_path: Path, redact: bool) -> list[str]:
    """The screen's text: the tree and the context at the leaf, then the raw JSON of r1, u1, r2."""
    folder = tmp_path / "sessions" / "--home-u-proj--"
    folder.mkdir(parents=True, exist_ok=True)
    write_secret_session(folder)
    app = make_app(tmp_path / "sessions", tmp_path / "cache", redact=redact)
    shown: list[str] = []
    async with app.run_test(size=(200, 80)) as pilot:
        main = await loaded(pilot)
        await until(pilot, lambda: main.session is not None, "the session")
        await pilot.pause()
        shown.append(screen_text(app))
        for entry in ("r1", "u1", "r2", "xr"):
            main.branch_tree.select(entry)
            main.focus_pane("tree")
            await pilot.pause()
            await pilot.press("i")
            await until(pilot, lambda: isinstance(app.screen, RawJsonScreen), "the raw JSON")
            await pilot.pause()
            shown.append(screen_text(app))
            await pilot.press("escape")
            await until(pilot, lambda: app.screen is main, "back")
    return shown


async def test_with_redaction_on_no_secret_is_drawn(tmp_path: Path) -> None:
    shown = await _views(tmp_path / "on", redact=True)
    assert not redacting()  # the app's redaction ends with the app
    assert not [(i, _leaks(view)) for i, view in enumerate(shown) if _leaks(view)]
    everything = "\n".join(shown)
    assert "[redacted: github-token]" in everything
    assert "[redacted: private-key]" in everything
    assert "[redacted: aws-access-key-id]" in everything

    plain = "\n".join(await _views(tmp_path / "off", redact=False))
    assert GITHUB in plain and "[redacted:" not in plain
