"""pi's picker search with the message texts left in the SQLite index: FTS5 says which sessions'
text holds each token, pi's matcher does the rest, and a hit's text is read only when its row is
looked at.

A session whose text row is current (`TextIndex.rowid`) gets a stand-in text: its `find`
answers from the sets the index gave for this query's tokens, so the matcher (name, id, text,
cwd, then scattered in the name or the cwd, the same code as ever) decides with no text in
memory. A hit on such a session is made by matching it again on its real text (the store's,
read then), so its place and excerpt are exactly those of a full scan. A `re:` pattern cannot be
looked up: each stand-in reads its real text for the one match and lets it go (slow, but no
whole-corpus copy stays). A session the index does not hold as listed (grown since, or its text
not storable) keeps its text in memory and is matched as before.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, cast

from .hits import SearchHit
from .indexed_scan import Layout
from .matching import (
    REGEX_TIME_LIMIT,
    PreparedSession,
    RawMatch,
    Token,
    make_hit,
    match_prepared,
    scan_one_token,
)
from .picker import SearchIndex, SearchResults, SessionText, SortOrder
from .query import ParsedQuery, parse_query
from .text_index import TextIndex
from .texts import MessageText, TextMatch

if TYPE_CHECKING:
    import regex

__all__ = ["IndexedSearchIndex", "IndexedText"]

TextsOf = Callable[[str], Sequence[str]]
REAL_TEXTS_KEPT = 256  # the texts of the last hits made, kept for the next keystrokes


class _Holding:
    """The stand-in's `normalized`: `find` says whether the session's text holds a value
    (0, a position that is not the real one: the hit is made again on the real text)."""

    __slots__ = ("owner", "rowid")

    def __init__(self, owner: IndexedSearchIndex, rowid: int) -> None:
        self.owner = owner
        self.rowid = rowid

    def find(self, value: str) -> int:
        found = self.owner.holding.get(value)
        return 0 if found is not None and self.rowid in found else -1


class IndexedText:
    """A session's text that lives in the index (see the module docstring)."""

    __slots__ = ("normalized", "owner", "owners", "path", "rowid")

    def __init__(self, owner: IndexedSearchIndex, rowid: int, path: str) -> None:
        self.owner = owner
        self.normalized = _Holding(owner, rowid)
        self.owners = None
        self.path = path
        self.rowid = rowid

    def real(self) -> MessageText:
        return self.owner.real_text(self.path)

    def search(self, pattern: regex.Pattern[str], timeout: float) -> TextMatch | None:
        return self.real().search(pattern, timeout)


class IndexedSearchIndex(SearchIndex[SessionText]):
    """A `SearchIndex` whose items' texts are, where it can, in `text_index` (items with
    an empty `message_texts` whose row is current)."""

    def __init__(self, items: Iterable[SessionText], text_index: TextIndex, texts_of: TextsOf) -> None:
        self.text_index = text_index
        self.texts_of = texts_of
        self.holding: dict[str, set[int]] = {}  # this query's: value -> rows whose text holds it
        self._asking = threading.Lock()  # one query at a time uses `holding`
        self._rowids: dict[str, int] = {}
        self._layout: tuple[object, Layout, list[int]] = (None, Layout([], []), [])
        # path -> its real text, for the last hits made (kept across keystrokes: a hit shown
        # again costs nothing, as when every text was in memory)
        self._real: OrderedDict[str, MessageText] = OrderedDict()
        self._real_lock = threading.Lock()
        super().__init__(items)

    def real_text(self, path: str) -> MessageText:
        """The session's text as the store has it (for a hit; remembered for the last ones)."""
        with self._real_lock:
            text = self._real.get(path)
            if text is not None:
                self._real.move_to_end(path)
                return text
        text = MessageText(self.texts_of(path))
        text.segment_starts()  # (what every excerpt needs: worked out here, in the worker)
        with self._real_lock:
            self._real[path] = text
            while len(self._real) > REAL_TEXTS_KEPT:
                self._real.popitem(last=False)
        return text

    def update(self, items: Iterable[SessionText]) -> None:
        listed = list(items)
        super().update(listed)  # (every text as before; the indexed ones replaced below)
        rowids: dict[str, int] = {}
        placed: list[tuple[int, int]] = []  # (position, row id) of the indexed sessions
        in_memory: list[int] = []
        entries = self._entries
        for position, entry in enumerate(entries):
            item = entry.item
            rowid = self.text_index.rowid_of(item.path, item.stamp) if not item.message_texts else None
            if rowid is not None:
                # (a stand-in the matcher reads as a text: `normalized.find`, `owners`, `search`)
                entry.text = cast(MessageText, IndexedText(self, rowid, item.path))
                rowids[item.path] = rowid
                placed.append((position, rowid))
            else:
                in_memory.append(position)
        self._rowids = rowids
        self._layout = (entries, Layout(entries, placed), in_memory)
        with self._real_lock:  # (an indexed row is as listed: its text is what was read for it)
            self._real = OrderedDict((p, t) for p, t in self._real.items() if p in rowids)
        self._texts = {k: t for k, t in self._texts.items() if t.segments}

    @property
    def indexed(self) -> int:
        """How many sessions are matched from the index."""
        return len(self._rowids)

    def search(
        self,
        query: str | ParsedQuery,
        order: SortOrder = "recent",
        named_only: bool = False,
        time_limit: float = REGEX_TIME_LIMIT,
        now_ms: float | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> SearchResults[SessionText]:
        parsed = parse_query(query) if isinstance(query, str) else query
        with self._asking:
            holding: dict[str, set[int]] = {}
            if parsed.mode == "tokens" and parsed.error is None and self._rowids:
                for token in parsed.tokens:
                    value = token.matched_as
                    if value and value not in holding:
                        holding[value] = self.text_index.holding(value, cancelled)
            self.holding = holding
            try:
                results = super().search(parsed, order, named_only, time_limit, now_ms, cancelled)
            finally:
                self.holding = {}  # (thousands of row ids: not kept past the query)
        return IndexedResults(results, parsed, self.real_text)

    def _scan_one_token(  # type: ignore[override]
        self,
        entries: list[PreparedSession[SessionText]],
        candidates: Iterable[int],
        token: Token,
        accept: Callable[[PreparedSession[SessionText]], bool] | None,
        cancelled: Callable[[], bool] | None,
        positions: list[int],
        raws: list[RawMatch],
    ) -> None:
        """`matching.scan_one_token` with the text test asked of the index's rows (a set
        lookup, not a call per session: a keystroke over 30,000 sessions runs this loop
        30,000 times). Keep the two alike."""
        value = token.value
        rows = self.holding.get(value, set())
        laid_out, layout, in_memory = self._layout
        if laid_out is entries and layout.fits(value):
            found = layout.scan(entries, token, rows)
            more_positions: list[int] = []
            more_raws: list[RawMatch] = []
            self._scan_each(entries, in_memory, token, None, cancelled, more_positions, more_raws)
            found.update(zip(more_positions, more_raws, strict=True))
            ordered = sorted(found)
            if not isinstance(candidates, range):  # (a narrower query: what the last one matched)
                kept = set(candidates)
                ordered = [p for p in ordered if p in kept]
            if accept is not None:
                ordered = [p for p in ordered if accept(entries[p])]
            positions.extend(ordered)
            raws.extend(map(found.__getitem__, ordered))
            return
        self._scan_each(entries, candidates, token, accept, cancelled, positions, raws)

    def _scan_each(
        self,
        entries: list[PreparedSession[SessionText]],
        candidates: Iterable[int],
        token: Token,
        accept: Callable[[PreparedSession[SessionText]], bool] | None,
        cancelled: Callable[[], bool] | None,
        positions: list[int],
        raws: list[RawMatch],
    ) -> None:
        """Session by session (a value too short for the bulk tests, or sessions matched
        from memory): pi's matcher, an indexed text answered by the index's rows."""
        held = (IndexedText, self.holding.get(token.value, set()))
        scan_one_token(entries, candidates, token, accept, cancelled, positions, raws, held)


class IndexedResults(SearchResults[SessionText]):
    """`SearchResults` whose hits on indexed sessions are made on their real texts."""

    __slots__ = ("_query", "_real_text")

    def __init__(
        self, results: SearchResults[SessionText], query: ParsedQuery, real_text: Callable[[str], MessageText]
    ) -> None:
        super().__init__(results.entries, results.positions, results._raws, results._needles)
        self._query = query
        self._real_text = real_text

    def _hit(self, index: int) -> SearchHit[SessionText]:
        entry = self._entries[self._positions[index]]
        raw = self._raws[index]
        if isinstance(entry.text, IndexedText):
            entry, raw = self._on_real_text(entry, raw)
        return make_hit(entry, raw, self._needles)

    def _on_real_text(
        self, entry: PreparedSession[SessionText], raw: RawMatch
    ) -> tuple[PreparedSession[SessionText], RawMatch]:
        """The entry with its real text, and pi's match on it (the index's answer if the
        file changed meanwhile and no longer matches: the hit then shows no excerpt)."""
        item = entry.item
        text = self._real_text(item.path)
        item = replace(item, message_texts=text.segments)
        real = PreparedSession(item, item.name, item.id, item.cwd, item.modified_ms, text)
        tokens = [Token(t) for t in self._query.tokens if t.matched_as]
        again = match_prepared(real, self._query, tokens, time.monotonic() + REGEX_TIME_LIMIT)
        if again is None:
            score, fields, shown, _ = raw
            return real, (score, fields, shown if shown != "message" else "", None)
        return real, again
