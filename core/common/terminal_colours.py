"""Dark or light from the colours the terminal reports, as pi 1.6.0's `system` theme decides.

pi asks the terminal for its foreground and background (OSC 10 and 11) followed by a device
attributes request (DA1, which every terminal answers, after the colour replies it gives), and
waits at most 100 ms (pi-tui's `queryTerminalColors`, pi's `TERMINAL_QUERY_TIMEOUT_MS`). The
background decides (`terminalAppearance`): the direction of the foreground's lightness when text
that way is readable (WCAG contrast 4.5), else dark when white text has more contrast on the
background than black. Without a reported background: COLORFGBG, then dark (app/config.py).
Here: the query's bytes, reading the replies, and the decision; core/common/terminal_query.py asks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Rgb = tuple[int, int, int]
Appearance = Literal["dark", "light"]

QUERY = b"\x1b]10;?\x07\x1b]11;?\x07\x1b[c"  # foreground, background, then DA1
TIMEOUT_SECONDS = 0.1  # pi's TERMINAL_QUERY_TIMEOUT_MS
TEXT_MINIMUM_CONTRAST = 4.5  # pi's TEXT_MINIMUM_WCAG_CONTRAST

_COLOUR_REPLY = re.compile(rb"\x1b\](1[01]);([^\x07\x1b]*)(?:\x07|\x1b\\)")
_DA1_REPLY = re.compile(rb"\x1b\[\?[0-9;]*c")


@dataclass(frozen=True, slots=True)
class TerminalColours:
    """What the terminal reported (None: not reported, or not readable)."""

    foreground: Rgb | None = None
    background: Rgb | None = None


def _channel(text: str) -> int | None:
    if not text or len(text) > 4 or any(ch not in "0123456789abcdefABCDEF" for ch in text):
        return None
    top: int = 16 ** len(text) - 1
    return round(int(text, 16) / top * 255)


def parse_colour(value: str) -> Rgb | None:
    """A colour as terminals report it: `rgb:RRRR/GGGG/BBBB` (1 to 4 hex digits a channel),
    `rgba:...`, `#RRGGBB` or `#RRRRGGGGBBBB` (pi's `parseOscColorValue`)."""
    value = value.strip()
    if value.startswith("#"):
        digits = value[1:]
        if len(digits) in (6, 12) and all(ch in "0123456789abcdefABCDEF" for ch in digits):
            step = len(digits) // 3
            parts = [_channel(digits[i : i + step]) for i in range(0, len(digits), step)]
            if all(p is not None for p in parts):
                return (parts[0], parts[1], parts[2])  # type: ignore[return-value]
        return None
    lowered = value.lower()
    for prefix in ("rgba:", "rgb:"):
        if lowered.startswith(prefix):
            value = value[len(prefix) :]
            break
    fields = value.split("/")
    if len(fields) < 3:
        return None
    parts = [_channel(f) for f in fields[:3]]
    if any(p is None for p in parts):
        return None
    return (parts[0], parts[1], parts[2])  # type: ignore[return-value]


def parse_replies(data: bytes) -> TerminalColours:
    """The foreground and background among the bytes the terminal sent back."""
    found: dict[bytes, Rgb | None] = {}
    for match in _COLOUR_REPLY.finditer(data):
        found[match.group(1)] = parse_colour(match.group(2).decode("latin-1"))
    return TerminalColours(found.get(b"10"), found.get(b"11"))


def replies_done(data: bytes) -> bool:
    """Whether there is nothing more to wait for: the DA1 answer came (the terminal answers in
    order, so any colour reply is in already), or both colours did."""
    if _DA1_REPLY.search(data):
        return True
    return {m.group(1) for m in _COLOUR_REPLY.finditer(data)} >= {b"10", b"11"}


def _linear(channel: int) -> float:
    value = channel / 255
    return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4


def relative_luminance(colour: Rgb) -> float:
    """WCAG 2 relative luminance, 0 to 1."""
    r, g, b = map(_linear, colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(first: Rgb, second: Rgb) -> float:
    """WCAG 2 contrast ratio, 1 to 21."""
    a, b = relative_luminance(first), relative_luminance(second)
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)


def oklab_lightness(colour: Rgb) -> float:
    """OKLab lightness, 0 to 1."""
    r, g, b = map(_linear, colour)
    lms = (
        0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b,
        0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b,
        0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b,
    )
    l_, m_, s_ = (float(value) ** (1 / 3) for value in lms)
    lightness: float = 0.2104542553 * l_ + 0.7936177850 * m_ - 0.0040720468 * s_
    return lightness


def appearance(background: Rgb, foreground: Rgb | None = None) -> Appearance:
    """pi's `terminalAppearance`: dark or light, from the background the terminal draws."""
    white, black = (255, 255, 255), (0, 0, 0)
    white_contrast, black_contrast = contrast(white, background), contrast(black, background)
    if foreground is not None:
        fg, bg = oklab_lightness(foreground), oklab_lightness(background)
        if abs(fg - bg) > 0.05:
            way: Appearance = "dark" if fg > bg else "light"
            if (white_contrast if way == "dark" else black_contrast) >= TEXT_MINIMUM_CONTRAST:
                return way
    return "dark" if white_contrast >= black_contrast else "light"


def hex_of(colour: Rgb) -> str:
    return "#" + "".join(f"{channel:02x}" for channel in colour)
