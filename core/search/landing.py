"""Where choosing a search hit or a label lands in its session: the entry, and the hits to walk.

A hit from the sessions index knows its message, not its entry (`locate_hit` reads the file for
that); a deep hit or a label knows both. Landing also gathers every hit of the same query in
the session (`entry_hits`), in file order, for `n` / `N` in the tree. Pure: run it in a worker
thread for a big session (it reads bodies back).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..session.session import Session
from .hits import SearchHit
from .in_session import HitPlace, Scope, TreePlaces, entry_hits, locate_hit
from .matching import PatternTooSlow
from .query import ParsedQuery

__all__ = ["Aim", "Landing", "land", "place_words"]


@dataclass(frozen=True, slots=True)
class Aim:
    """What was chosen: a hit of a query (its place when known), or a labelled entry."""

    query: ParsedQuery | None  # None: no query (a label): `walk` says what n / N walk
    scope: Scope = "default"
    hit: SearchHit[Any] | None = None
    place: HitPlace | None = None
    walk: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Landing:
    """Where to put the tree's cursor, and the entries `n` / `N` walk."""

    place: HitPlace  # entry_id None: the hit is the name, id or cwd (the session's own fields)
    walk: tuple[str, ...]  # every entry that matches the query, in file order

    @property
    def entry_id(self) -> str | None:
        return self.place.entry_id

    def ordinal(self) -> int | None:
        """The landed entry's place among `walk` (from 1), None when it is not one of them."""
        entry = self.place.entry_id
        return self.walk.index(entry) + 1 if entry is not None and entry in self.walk else None


def land(session: Session, aim: Aim) -> Landing:
    """Where `aim` lands in `session` (its place when known, else located from its hit)."""
    place, query, walk = aim.place, aim.query, aim.walk
    if place is None:
        if aim.hit is not None and query is not None:
            place = locate_hit(session, aim.hit, query, TreePlaces(session))
        else:
            place = HitPlace(None, "", None, None)
    if query is not None:
        try:
            walk = tuple(h.entry_id for h in entry_hits(session, query, aim.scope))
        except PatternTooSlow:
            walk = ()
    walk = tuple(entry for entry in walk if entry in session.by_id)
    if place.entry_id is not None and place.entry_id not in session.by_id:
        place = HitPlace(None, place.field, None, None)  # the file changed under the hit
    return Landing(place, walk)


def place_words(place: HitPlace | None, short: int = 8) -> str:
    """`active path`, `branch from 1a2b3c4d`, or "" (no entry, or not known yet)."""
    if place is None or place.entry_id is None or place.on_active_path is None:
        return ""
    if place.on_active_path:
        return "active path"
    return f"branch from {place.branch_from[:short]}" if place.branch_from else "branch from a root"
