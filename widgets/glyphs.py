"""Glyphs for drawing, with an ASCII set for terminals and fonts that lack box drawing."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Glyphs:
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


UNICODE = Glyphs(
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
)

ASCII = Glyphs(
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
)


def glyphs_for(ascii_only: bool) -> Glyphs:
    return ASCII if ascii_only else UNICODE
