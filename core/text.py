"""Making session text safe and short for a terminal.

Session text is data: escape sequences and other control characters must never reach the
terminal. They are replaced by visible placeholders (U+241B for ESC, control pictures for the
rest of C0, `<9b>`-style for C1), so a reader can still see that they were there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(slots=True)
class TextGlyphs:
    """The few non-ASCII characters core puts into display text (`--ascii` swaps them)."""

    ellipsis: str = "…"
    arrow: str = "→"
    dot: str = "·"
    open_quote: str = "“"
    close_quote: str = "”"


GLYPHS = TextGlyphs()


def use_ascii_glyphs(enabled: bool = True) -> None:
    """Process-wide: display text built from now on uses ASCII stand-ins."""
    if enabled:
        GLYPHS.ellipsis, GLYPHS.arrow, GLYPHS.dot, GLYPHS.open_quote, GLYPHS.close_quote = (
            "...",
            "->",
            "-",
            '"',
            '"',
        )
    else:
        default = TextGlyphs()
        GLYPHS.ellipsis, GLYPHS.arrow, GLYPHS.dot = default.ellipsis, default.arrow, default.dot
        GLYPHS.open_quote, GLYPHS.close_quote = default.open_quote, default.close_quote


_C0_PICTURES = {code: chr(0x2400 + code) for code in range(0x20)}
_C0_PICTURES[0x7F] = "\u2421"

# C0/C1 controls, line and paragraph separators, bidi marks, embeddings, overrides and
# isolates, and the zero-width characters (U+200B-U+200D, the word joiner, U+FEFF).
_INVISIBLE = "\u061c\u2028\u2029\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff"
_CONTROL_RE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_INVISIBLE}]")
_CONTROL_OR_NEWLINE_RE = re.compile(f"[\x00-\x1f\x7f-\x9f{_INVISIBLE}]")


def _placeholder(match: re.Match[str]) -> str:
    ch = match.group()
    code = ord(ch)
    if code in _C0_PICTURES:
        return _C0_PICTURES[code]
    return f"<{code:02x}>" if code < 0x100 else f"<U+{code:04X}>"


def visible(text: str) -> str:
    """Keep newlines and tabs; show every other control character as a placeholder."""
    return _CONTROL_RE.sub(_placeholder, text)


def one_line(text: str, limit: int = 200) -> str:
    """A single display line: whitespace runs (newlines included) become one space, controls
    become placeholders, and the result is cut to `limit` characters."""
    head = text[: limit * 4] if len(text) > limit * 4 else text
    head = " ".join(head.split())
    head = _CONTROL_OR_NEWLINE_RE.sub(_placeholder, head)
    if len(head) > limit:
        return head[: max(0, limit - len(GLYPHS.ellipsis))] + GLYPHS.ellipsis
    return head


def controls_as_spaces(text: str) -> str:
    """pi's picker rule for titles: control characters shown as spaces."""
    return _CONTROL_OR_NEWLINE_RE.sub(" ", text)


def human_count(value: float) -> str:
    """1234 -> 1.2k, 1234567 -> 1.2M."""
    n = abs(value)
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= limit:
            scaled = value / limit
            return f"{scaled:.1f}{suffix}" if abs(scaled) < 10 else f"{scaled:.0f}{suffix}"
    return f"{value:.0f}"


def age(seconds: float) -> str:
    """5s, 5m, 3h, 2d, 6w, 4mo, 2y."""
    s = max(0.0, seconds)
    if s < 60:
        return f"{int(s)}s"
    if s < 3600:
        return f"{int(s // 60)}m"
    if s < 86400:
        return f"{int(s // 3600)}h"
    days = s / 86400
    if days < 14:
        return f"{int(days)}d"
    if days < 60:
        return f"{int(days // 7)}w"
    if days < 730:
        return f"{int(days // 30)}mo"
    return f"{int(days // 365)}y"
