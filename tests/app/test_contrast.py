"""Readable in both themes: every text cell of every screen a key opens has a contrast of at
least 4.5:1 (WCAG AA) against its own background, computed from the colours actually drawn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pi_sessions.app.demo import prepare_demo
from pi_sessions.app.main_screen import MainScreen
from rich.color import Color
from textual.pilot import Pilot

from tests.helpers.app import loaded, make_app, until

FLOOR = 4.5
# Lines and bars are drawing, not text: pane borders, tree guides' corners, scrollbars, sparklines.
DRAWING = range(0x2500, 0x25A0)
# Keys that open a screen of their own from the main screen, with the tree focused.
SCREENS = [
    "question_mark",
    "ctrl+p",
    "number_sign",
    "dollar_sign",
    "A",
    "S",
    "w",
    "i",
    "r",
    "f",
    "E",
    "L",
    "M",
    "D",
    "y",
]


def luminance(color: Color) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = color.get_truecolor()
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: Color, b: Color) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def unreadable(pilot: Pilot[Any]) -> list[str]:
    """Each run of text drawn below the floor: its contrast, colours and the text. Over a
    modal screen, only the modal's own widgets count (the screen behind is dimmed on purpose)."""
    screen = pilot.app.screen
    regions = None if isinstance(screen, MainScreen) else [child.region for child in screen.children]
    found: list[str] = []
    for y, strip in enumerate(screen._compositor.render_strips()):
        x = 0
        for segment in strip:
            text, style = segment.text, segment.style
            start, x = x, x + segment.cell_length
            if regions is not None and not any(r.contains(start, y) for r in regions):
                continue
            if style is None or not any(ch.strip() and ord(ch) not in DRAWING for ch in text):
                continue
            fg, bg = (style.bgcolor, style.color) if style.reverse else (style.color, style.bgcolor)
            if fg is None or bg is None:
                found.append(f"row {y}: no colour for {text.strip()[:30]!r}")
            elif (ratio := contrast(fg, bg)) < FLOOR:
                found.append(
                    f"row {y}: {ratio:.2f} {fg.get_truecolor().hex} on {bg.get_truecolor().hex} {text.strip()[:30]!r}"
                )
    return found


async def back_to_main(pilot: Pilot[Any]) -> None:
    for _ in range(3):
        if isinstance(pilot.app.screen, MainScreen):
            return
        await pilot.press("escape")
        await pilot.pause()
    await until(pilot, lambda: isinstance(pilot.app.screen, MainScreen), "the main screen again")


@pytest.mark.parametrize("theme", ["dark", "light"])
@pytest.mark.parametrize("size", [(160, 45), (80, 24)])
async def test_every_screen_is_readable(theme: str, size: tuple[int, int], tmp_path: Path) -> None:
    app = make_app(prepare_demo(tmp_path / "demo"), tmp_path / "cache", theme=theme)
    problems: dict[str, list[str]] = {}
    async with app.run_test(size=size) as pilot:
        screen = await loaded(pilot)
        problems["main"] = unreadable(pilot)
        screen.branch_tree.focus()
        await pilot.pause()
        problems["main, tree focused"] = unreadable(pilot)
        await pilot.press("x")  # what is not in context, and why
        await pilot.pause()
        problems["main, excluded shown"] = unreadable(pilot)
        await pilot.press("x")
        for key in SCREENS:
            await pilot.press(key)
            await until(pilot, lambda: not isinstance(pilot.app.screen, MainScreen), f"the screen of {key}")
            await pilot.pause(0.1)
            problems[f"{key}: {type(pilot.app.screen).__name__}"] = unreadable(pilot)
            await back_to_main(pilot)
    bad = {name: found[:5] for name, found in problems.items() if found}
    assert not bad, bad
