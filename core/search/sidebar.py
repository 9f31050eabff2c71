"""The sessions list's search as you type: the index over the listed sessions, what a query found,
and where each shown hit sits in its session.

The browser lists the store's summaries; `SidebarSearch` keeps a `SearchIndex` of them current
(a summary object is new exactly when its file changed, so a live batch prepares only those
texts again). A query's answer is a `SidebarResults`: which sessions matched (path -> hit, the
hit made only when its row is drawn) and, once known, where each hit is (`HitPlace`: its entry,
on the active path or on a branch). The default scope answers from the index in one call (fit
for a worker thread: it can be cancelled); the deep scope reads files and its hits stream in
(`deep_hits`). Placing a default-scope hit reads its file: `place` does it for the rows in
view only, and remembers each place until the file changes.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import count
from typing import Any, NamedTuple

from ..common.problems import SessionError
from ..listing.sidebar_rows import ResultRows, SidebarRow
from ..listing.summary import SessionSummary
from ..reading.growth import Stamp
from ..session.session import Session
from .deep import DeepHit, deep_search
from .hits import SearchHit
from .in_session import HitPlace, Scope, TreePlaces, locate_hit, message_text
from .picker import (
    FIELD_MESSAGE,
    PatternTooSlow,
    SearchCancelled,
    SearchIndex,
    SearchResults,
    SessionText,
    parse_query,
)
from .query import DURATION_UNITS_MS, ParsedQuery

__all__ = ["DeepProgress", "SidebarResults", "SidebarSearch", "describe_window", "field_words"]

TextsOf = Callable[[str], Sequence[str]]  # path -> the store's message texts of that file
FILES_PLACED = 4096  # files whose places are remembered at most (then forgotten all at once)
PLACE_EVERY_MESSAGE_BYTES = 8 * 2**20  # a bigger file has only the hit asked for placed


# Where one message is: (entry id, on the active path, the fork its branch leaves from). A
# plain tuple: thousands are remembered, and the garbage collector does not track these.
_Place = tuple[str | None, bool | None, str | None]
# The summary's size and mtime, and the file as `stat` saw it just before it was read: its inode
# and ctime too, as the index cache stamps it (a same-size rewrite with its mtime put back
# changes only the ctime).
_FileStamp = tuple[int, int, Stamp]


@dataclass(frozen=True, slots=True)
class _FilePlaces:
    """Where each message of one file is: the n-th of the index's texts is `places[n]`
    (None for a big file: each hit is placed on its own)."""

    stamp: _FileStamp  # the summary's size and mtime and the file's stamp it was read for
    places: list[_Place] | None


def _open(path: str) -> Session | None:
    try:
        with open(path, "rb") as f:
            data = f.read(PLACE_EVERY_MESSAGE_BYTES + 1)
            if len(data) > PLACE_EVERY_MESSAGE_BYTES:
                return Session.open(path)  # bodies read back when asked, not all held
        return Session.from_bytes(data, path)
    except (SessionError, OSError):
        return None


def field_words(field: str) -> str:
    """A hit's field as the rows say it: `tool result`, `bash output`, `message`..."""
    return field.rstrip("~").replace("_", " ")


def describe_window(window_ms: float) -> str:
    """`7d`, `2w`, `3mo`, `12h`, `1y`: a time filter as it could have been typed."""
    for unit in ("y", "mo", "w", "d", "h"):
        size = DURATION_UNITS_MS[unit]
        if window_ms >= size and window_ms % size == 0:
            return f"{int(window_ms // size)}{unit}"
    return f"{window_ms / DURATION_UNITS_MS['h']:g}h"


@dataclass(slots=True)
class DeepProgress:
    """How far a deep search has read (files of all the listed ones)."""

    scanned: int = 0
    total: int = 0


class Numbered(NamedTuple):
    """A default-scope answer at C speed: each listed session's number in the index
    (`numbering`, shared by every query of that index) and, per number, its hit's position
    plus one (`hit_at`: 0 for no hit; the last number, `len(numbering)`, is none's)."""

    numbering: dict[str, int]
    hit_at: list[int]


class SidebarResults:
    """What one query found: the matching sessions by path, each with its hit and (once known)
    where the hit sits. The event loop owns it; a deep search adds to it as hits arrive."""

    __slots__ = (
        "_hits",
        "_numbered",
        "_positions",
        "done",
        "error",
        "places",
        "progress",
        "query",
        "scope",
        "text",
    )

    def __init__(
        self,
        text: str,
        query: ParsedQuery,
        scope: Scope,
        hits: Sequence[SearchHit[Any]] = (),
        paths: dict[str, int] | None = None,
        error: str | None = None,
        numbered: Numbered | None = None,
    ) -> None:
        self.text = text  # the query as typed
        self.query = query
        self.scope = scope
        self.error = error
        self._hits: Sequence[SearchHit[Any]] = hits
        # path -> the hit's position; made when first asked if `numbered` answers meanwhile
        # (a dict of 20,000 paths at every keystroke took 10 ms at 30,000 sessions)
        self._positions: dict[str, int] | None = paths if paths is not None or numbered else {}
        self._numbered = numbered
        self.places: dict[str, HitPlace] = {}
        self.done = scope == "default"  # a deep search: every file read
        self.progress = DeepProgress()

    def __contains__(self, path: object) -> bool:
        numbered = self._numbered
        if numbered is not None:
            number = numbered.numbering.get(path, len(numbered.numbering))  # type: ignore[call-overload]
            return bool(numbered.hit_at[number])
        return path in self.paths

    def __len__(self) -> int:
        return len(self._hits) if self._numbered is not None else len(self.paths)

    def __repr__(self) -> str:
        return f"SidebarResults({self.text!r}, {self.scope}, {len(self)} sessions)"

    @property
    def paths(self) -> dict[str, int]:
        """path -> the hit's position (a container of the matching paths, in hit order)."""
        if self._positions is None:
            hits = self._hits
            items = hits.items if isinstance(hits, SearchResults) else [hit.item for hit in hits]
            self._positions = {item.path: i for i, item in enumerate(items)}
        return self._positions

    def rows_of(self, rows: ResultRows) -> list[SidebarRow]:
        """The rows of the matching sessions (see `ResultRows.keep`)."""
        numbered = self._numbered
        if numbered is not None:
            return rows.keep_numbered(numbered.numbering, numbered.hit_at)
        return rows.keep(self.paths)

    def hit(self, path: str) -> SearchHit[Any] | None:
        numbered = self._numbered
        if numbered is not None:
            position = numbered.hit_at[numbered.numbering.get(path, len(numbered.numbering))] - 1
            return self._hits[position] if position >= 0 else None
        found = self.paths.get(path)
        return self._hits[found] if found is not None else None

    def place(self, path: str) -> HitPlace | None:
        """Where the hit is in its session; None while not known (its file not read yet)."""
        known = self.places.get(path)
        if known is not None:
            return known
        hit = self.hit(path)
        if hit is not None and not hit.in_text:
            return HitPlace(None, hit.field, None, None)  # the name, id or cwd
        return None

    def add(self, found: Sequence[DeepHit]) -> None:
        """More deep hits (in the order found)."""
        positions = self.paths
        self._numbered = None
        hits = self._hits if isinstance(self._hits, list) else list(self._hits)
        for deep in found:
            path = deep.summary.path
            if path in positions:
                continue
            positions[path] = len(hits)
            hits.append(deep.hit)
            self.places[path] = deep.place
        self._hits = hits


class SidebarSearch:
    """The index of the listed sessions, built when first wanted (it holds every message's
    text: hundreds of MB at 30,000 sessions). The event loop owns it; `build` (the costly
    part) and `search` and `place` may run in worker threads: the index is built once, by
    whichever asks first (the others wait for it), and only replaced whole."""

    def __init__(self, texts_of: TextsOf) -> None:
        self.texts_of = texts_of
        self.index: SearchIndex[SessionText] | None = None
        self.wanted = False  # a search was started: a new listing gets a new index at once
        self._building = threading.Lock()
        self._numbering: tuple[object, dict[str, int]] = (None, {})  # (the index's entries, their numbers)
        # path -> (the summary it was made from, its search text)
        self._texts: dict[str, tuple[SessionSummary, SessionText]] = {}
        # path -> where each message of the file is (as of its stamp)
        self._files: dict[str, _FilePlaces] = {}

    def build(self, summaries: Sequence[SessionSummary]) -> SearchIndex[SessionText]:
        """The index (of `summaries` if it has to be built now)."""
        self.wanted = True
        with self._building:
            index = self.index
            if index is None:
                index = self.index = SearchIndex(self._items(summaries, self._texts))
            return index

    def reset(self) -> None:
        """The listing was read again: the next search (or `build`) starts a new index."""
        self.index = None

    def update(self, summaries: Sequence[SessionSummary]) -> None:
        """The listing changed (a live batch)."""
        if self.index is not None:
            self.index.update(self._items(summaries, self._texts))

    def search(
        self,
        text: str,
        summaries: Sequence[SessionSummary],
        scope: Scope = "default",
        *,
        cancelled: Callable[[], bool] | None = None,
        now_ms: float | None = None,
    ) -> SidebarResults:
        """What `text` matches. The default scope answers in full; the deep scope answers
        nothing yet (its hits come from `deep_hits`). Raises `SearchCancelled`."""
        query = parse_query(text)
        if query.error is not None:
            return SidebarResults(text, query, scope, error=query.error)
        if scope == "deep":
            return SidebarResults(text, query, scope)
        index = self.index
        if index is None:
            index = self.build(summaries)  # (or wait for the build under way)
        try:
            hits = index.search(query, now_ms=now_ms, cancelled=cancelled)
        except PatternTooSlow as e:
            return SidebarResults(text, query, scope, error=str(e))
        return SidebarResults(text, query, scope, hits, numbered=self._numbered(hits))

    def _numbered(self, hits: SearchResults[SessionText]) -> Numbered:
        entries, numbering = self._numbering
        if entries is not hits.entries:  # (a new index, or the index took a new listing)
            entries = hits.entries
            numbering = {entry.item.path: number for number, entry in enumerate(hits.entries)}
            self._numbering = (entries, numbering)
        hit_at = [0] * (len(numbering) + 1)
        deque(map(hit_at.__setitem__, hits.positions, count(1)), 0)
        return Numbered(numbering, hit_at)

    def deep_hits(
        self,
        results: SidebarResults,
        summaries: Sequence[SessionSummary],
        progress: Callable[[DeepProgress], None],
        *,
        cancelled: Callable[[], bool] | None = None,
        every: float = 0.1,
    ) -> Iterator[DeepHit]:
        """The deep hits of `results`' query over `summaries` (in that order), as found;
        `progress` is told how far it got about every `every` seconds. Raises
        `SearchCancelled` and `PatternTooSlow`."""
        done = DeepProgress(0, len(summaries))
        last = time.monotonic()

        def counted() -> Iterator[SessionSummary]:
            nonlocal last
            for summary in summaries:
                yield summary
                done.scanned += 1
                now = time.monotonic()
                if now - last >= every:
                    last = now
                    progress(DeepProgress(done.scanned, done.total))

        yield from deep_search(counted(), results.query, cancelled=cancelled)
        progress(DeepProgress(done.total, done.total))

    def place(
        self,
        results: SidebarResults,
        paths: Sequence[str],
        *,
        cancelled: Callable[[], bool] | None = None,
        deadline: float | None = None,
    ) -> Iterator[tuple[str, HitPlace]]:
        """Where the hits of `paths` sit (for a worker thread; the loop stores what it gets).
        A file is read once until it changes: where each of its messages is, is remembered.
        Stops at `deadline` (time.monotonic()); raises `SearchCancelled`."""
        for path in paths:
            if cancelled is not None and cancelled():
                raise SearchCancelled()
            if deadline is not None and time.monotonic() > deadline:
                return
            hit = results.hit(path)
            if hit is None:
                continue
            place = results.place(path) or self._place_in_file(path, hit, results.query)
            if place is not None:
                yield path, place

    def _place_in_file(self, path: str, hit: SearchHit[Any], query: ParsedQuery) -> HitPlace | None:
        pair = self._texts.get(path)
        segment = hit.segment
        if pair is None or segment is None:
            return None
        try:
            stamp = (pair[0].size, pair[0].mtime_ns, Stamp.of(os.stat(path)))
        except (OSError, ValueError):  # gone, or a NUL in the name
            return None
        known = self._files.get(path)
        session = None
        if known is None or known.stamp != stamp:
            session = _open(path)
            if session is None:
                return None
            known = self._remember(path, stamp, session)
        places = known.places
        if places is not None and len(places) == len(pair[1].message_texts) and segment < len(places):
            entry_id, on_path, fork = places[segment]
            return HitPlace(entry_id, FIELD_MESSAGE, on_path, fork)
        # A file too big to place every message, or not what the index read: this hit only.
        session = session or _open(path)
        return locate_hit(session, hit, query, TreePlaces(session)) if session is not None else None

    def _remember(self, path: str, stamp: _FileStamp, session: Session) -> _FilePlaces:
        places = None
        if session.end_offset <= PLACE_EVERY_MESSAGE_BYTES:
            tree = TreePlaces(session)
            places = []
            for owner in message_text(session).owners or ():
                place = tree.hit_place(owner.entry_id, owner.field)
                places.append((place.entry_id, place.on_active_path, place.branch_from))
        if len(self._files) >= FILES_PLACED:
            self._files = {}
        known = self._files[path] = _FilePlaces(stamp, places)
        return known

    def _items(
        self, summaries: Sequence[SessionSummary], known: dict[str, tuple[SessionSummary, SessionText]]
    ) -> list[SessionText]:
        fresh: dict[str, tuple[SessionSummary, SessionText]] = {}
        for summary in summaries:
            pair = known.get(summary.path)
            if pair is None or pair[0] is not summary:
                pair = (summary, SessionText.from_summary(summary, self.texts_of(summary.path)))
            fresh[summary.path] = pair
        if known is self._texts:
            self._texts = fresh
        return [text for _, text in fresh.values()]
