"""Telling apart session rows that would look alike: what a row shows instead of a title cut
to the same words as a neighbour's.

A narrow sidebar cuts titles to a word or two ("The login form…" three times). A row whose
cut title equals another's keeps the start of its title and adds the shortest part that
differs: where two titles part ("The login…empty passwords" / "The login…the email"), or, for
the same title (a fork, a clone, the same first message), when the session started ("Mar 12",
"04:57", both) and as a last resort its id's start.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any, NamedTuple

from ..common.glyphs import UNICODE, Glyphs
from ..common.text import fit_words

SHORTEST_HEAD = 6  # cells of the title kept before the part that differs, when there is room


class Row(NamedTuple):
    """What tells a row apart: its title, when it started (ISO, pi's header), its id."""

    title: str
    created: str | None
    id: Any


def _words(text: str) -> list[str]:
    return text.split()


def differing_words(title: str, others: Sequence[str]) -> str:
    """`title` from its first word that differs from the most similar of `others` ("" when
    one of them is the same title)."""
    mine = _words(title)
    shared = 0
    for other in others:
        theirs = _words(other)
        common = 0
        for a, b in zip(mine, theirs, strict=False):
            if a.casefold() != b.casefold():
                break
            common += 1
        shared = max(shared, common)
    return " ".join(mine[shared:])


def _stamp(created: str | None, pattern: str) -> str | None:
    """When a session started (pi's ISO header time), in local time by `pattern`."""
    return _stamp_in(created, pattern, time.tzname)


@lru_cache(maxsize=4096)
def _stamp_in(created: str | None, pattern: str, zone: tuple[str, str]) -> str | None:
    if not created:
        return None
    try:
        moment = datetime.fromisoformat(created.replace("Z", "+00:00"))
    except ValueError:
        return None
    return time.strftime(pattern, time.localtime(moment.timestamp()))


def started_words(me: Row, same: Sequence[Row]) -> str:
    """The shortest of when `me` started (its day, its time of day, both) that no row of
    `same` shares; else the start of its id that none shares (else its whole id)."""
    for pattern in ("%b %d", "%H:%M", "%b %d %H:%M"):
        shown = _stamp(me.created, pattern)
        if shown is not None and all(_stamp(row.created, pattern) != shown for row in same):
            return shown
    ident = str(me.id or "")
    others = [str(row.id or "") for row in same]
    for length in range(4, len(ident) + 1):
        if all(not other.startswith(ident[:length]) for other in others):
            return ident[:length]
    return ident


def _head(title: str, room: int, size: Callable[[str], int], glyphs: Glyphs) -> str:
    """The title's first words that fit `room` with an ellipsis (a word is never cut but
    the first: then as `fit_words` does)."""
    if size(title) <= room:
        return title
    words = title.split()
    head = words[0] if words else ""
    for word in words[1:]:
        if size(head) + 1 + size(word) + size(glyphs.ellipsis) > room:
            break
        head += " " + word
    if size(head) + size(glyphs.ellipsis) > room:
        return fit_words(title, room, glyphs=glyphs) if room > size(glyphs.ellipsis) else ""
    return head + glyphs.ellipsis


def told_apart(
    me: Row,
    twins: Sequence[Row],
    room: int,
    cells: Callable[[str], int] | None = None,
    *,
    glyphs: Glyphs = UNICODE,
) -> str:
    """What the row of `me` shows in `room` cells when `twins` would show the same words
    (their titles cut alike): the start of its title and the part that differs."""

    def size(text: str) -> int:
        return len(text) if cells is None else sum(map(cells, text))

    if not twins:
        return fit_words(me.title, room, cells, glyphs=glyphs)
    same = [row for row in twins if row.title.casefold() == me.title.casefold()]
    different = [row.title for row in twins if row.title.casefold() != me.title.casefold()]
    if not same and size(me.title) <= room:
        return me.title  # (shown whole, it differs from every other title)
    if same:
        part, joint = started_words(me, same), " "
    else:
        part, joint = differing_words(me.title, different), ""
    if not part:
        return fit_words(me.title, room, cells, glyphs=glyphs)
    head_room = min(SHORTEST_HEAD, max(room // 2, 1))
    part_room = max(room - head_room - size(joint), 1)
    words = part.split(" ")
    part = words[0]  # the word that differs, and those after it that fit
    for word in words[1:]:
        if size(part) + 1 + size(word) > part_room:
            break
        part += " " + word
    part = fit_words(part, part_room, cells, glyphs=glyphs)
    rest = room - size(part) - size(joint)
    head = _head(me.title, rest, size, glyphs) if rest > size(glyphs.ellipsis) else ""
    if not head:
        return fit_words(part, room, cells, glyphs=glyphs)
    if not joint and not head.endswith(glyphs.ellipsis):
        joint = " "  # (the whole title fitted before the part: cannot be, but never glued)
    return head + joint + part
