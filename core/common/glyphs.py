"""The glyphs every layer draws and writes with: one immutable set, Unicode or ASCII.

The browser picks one set once, at start (`--ascii`, or a terminal `ascii_terminal` names: ASCII),
and never changes it; the command
line writes with UNICODE. Core never looks a set up: a function that puts a glyph into display
text (core/common/text.py's ellipsis and control pictures, core/session/describe.py's arrows and quotes) takes
the set as an argument. Widgets read their app's set (widgets/glyphs.py).
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec


class Glyphs(msgspec.Struct, frozen=True, kw_only=True):
    """(A struct: made at C speed, where a frozen dataclass of these fields cost 1.5 ms of
    every start.)"""

    # In display text that core builds.
    ellipsis: str  # where text was cut
    arrow: str  # a tool call, a model or thinking change
    dot: str  # between the parts of a title or a status line
    open_quote: str
    close_quote: str
    control_pictures: bool  # a control character as its picture (ESC: U+241B); else as `<1b>`
    # Drawn by the panes.
    branch: str  # a branch below a fork point
    last_branch: str
    pipe: str  # a fork's later branches continue below
    blank: str
    active: str  # on the active path (what pi would resume)
    folded: str
    unfolded: str = "▾"  # a session's subagents, listed under it
    fork: str  # a session forked from another one
    child: str  # nested under its parent session
    live: str  # being written right now
    branches: str  # has branches
    problem: str
    edit: str
    label: str
    excluded: str
    mark: str  # the entry marked to compare with another
    pin: str  # a session pinned to the top of its group
    cache_break: str  # a reply that lost the prompt cache (the tree, the sparkline)


UNICODE = Glyphs(
    ellipsis="…",
    arrow="→",
    dot="·",
    open_quote="“",
    close_quote="”",
    control_pictures=True,
    branch="├─ ",
    last_branch="└─ ",
    pipe="│  ",
    blank="   ",
    active="●",
    folded="▸",
    fork="↱",
    child="↳ ",
    live="◉",
    branches="⎇",
    problem="⚠",
    edit="✎",
    label="◆",
    excluded="✗",
    mark="⚑",
    pin="★",
    cache_break="↯",
)

ASCII = Glyphs(
    ellipsis="...",
    arrow="->",
    dot="-",
    open_quote='"',
    close_quote='"',
    control_pictures=False,
    branch="|- ",
    last_branch="`- ",
    pipe="|  ",
    blank="   ",
    active="*",
    folded="+",
    unfolded="-",
    fork="Y",
    child="> ",
    live="@",
    branches="%",
    problem="!",
    edit="~",
    label="#",
    excluded="x",
    mark="=",
    pin="^",
    cache_break="$",
)


def glyphs_for(ascii_only: bool) -> Glyphs:
    return ASCII if ascii_only else UNICODE


# Terminals that draw only ASCII (and the 8-bit line-drawing set we do not use): the Linux
# console has no glyph for most of ours, and a VT100 or an unknown terminal none at all.
_ASCII_TERMS = frozenset({"linux", "dumb", "ansi", "cons25", "vt52"})


def ascii_terminal(env: Mapping[str, str]) -> str | None:
    """Why this environment's terminal should get ASCII (e.g. "TERM=linux"), or None.

    A locale that is set and not UTF-8 (LC_ALL, then LC_CTYPE, then LANG, as C does) means the
    terminal cannot show our glyphs either; no locale at all says nothing (containers often
    have none and a UTF-8 terminal)."""
    term = env.get("TERM", "")
    if term in _ASCII_TERMS or term.startswith("vt"):
        return f"TERM={term}"
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = env.get(name, "")
        if value:
            charset = value.partition(".")[2].partition("@")[0].lower().replace("-", "")
            return None if charset == "utf8" else f"{name}={value}"
    return None
