"""Dark or light from the terminal's reported colours, decided as pi 1.6.0's `system` theme
does (core/common/terminal_colours.py)."""

from __future__ import annotations

import pytest
from pi_sessions.core.common.terminal_colours import (
    TerminalColours,
    appearance,
    parse_colour,
    parse_replies,
    replies_done,
)

# pi 1.6.0's `terminalAppearance(background, foreground)` on these (run once against
# /tmp/oracle's modes/interactive/theme/system-theme.js).
PI_ANSWERS = [
    ((255, 255, 255), None, "light"),
    ((128, 128, 128), (255, 255, 255), "light"),  # white text too faint on mid grey: by contrast
    ((128, 128, 128), (0, 0, 0), "light"),
    ((100, 100, 100), (255, 255, 255), "dark"),
    ((118, 118, 118), None, "light"),
    ((119, 119, 119), None, "light"),
    ((30, 30, 46), (205, 214, 244), "dark"),
    ((200, 60, 60), (255, 255, 255), "dark"),
    ((60, 120, 200), (0, 0, 0), "light"),
    ((250, 250, 250), (40, 40, 40), "light"),
    ((90, 90, 90), (30, 30, 30), "dark"),  # dark text on dark grey is unreadable: by contrast
]


@pytest.mark.parametrize("background, foreground, expected", PI_ANSWERS)
def test_the_appearance_is_pis(
    background: tuple[int, int, int], foreground: tuple[int, int, int] | None, expected: str
) -> None:
    assert appearance(background, foreground) == expected


def test_replies_are_read_in_every_form_terminals_send() -> None:
    data = b"\x1b]10;rgb:cdcd/d6d6/f4f4\x1b\\\x1b]11;rgb:1e/1e/2e\x07\x1b[?62;22c"
    assert parse_replies(data) == TerminalColours((205, 214, 244), (30, 30, 46))
    assert parse_colour("#fdf6e3") == (253, 246, 227)
    assert parse_colour("#ffff00000000") == (255, 0, 0)
    assert parse_colour("rgba:ffff/0000/8080/ffff") == (255, 0, 128)
    assert parse_colour("rgb:f/0/8") == (255, 0, 136)
    assert parse_colour("default") is None and parse_colour("rgb:xx/00/00") is None
    assert parse_replies(b"\x1b[?1;2c") == TerminalColours()  # only DA1: nothing reported


def test_done_once_da1_or_both_colours_came() -> None:
    assert not replies_done(b"")
    assert not replies_done(b"\x1b]11;rgb:0/0/0\x07")
    assert replies_done(b"\x1b]11;rgb:0/0/0\x07\x1b]10;rgb:f/f/f\x07")
    assert replies_done(b"\x1b[?64;1;2c")  # a terminal without OSC 11 still answers DA1
