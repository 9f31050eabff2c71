"""The glyphs every layer draws and writes with: one immutable set, Unicode or ASCII.

The browser picks one set once, at start (`--ascii`: ASCII), and never changes it; the command
line writes with UNICODE. Core never looks a set up: a function that puts a glyph into display
text (core/common/text.py's ellipsis and control pictures, core/session/describe.py's arrows and quotes) takes
the set as an argument. Widgets read their app's set (widgets/glyphs.py).
"""

from __future__ import annotations

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
    fork: str  # a session forked from another one
    child: str  # nested under its parent session
    live: str  # being written right now
    branches: str  # has branches
    problem: str
    edit: str
    label: str
    excluded: str
    mark: str  # the entry marked to compare with another


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
    fork="Y",
    child="> ",
    live="@",
    branches="%",
    problem="!",
    edit="~",
    label="#",
    excluded="x",
    mark="=",
)


def glyphs_for(ascii_only: bool) -> Glyphs:
    return ASCII if ascii_only else UNICODE
