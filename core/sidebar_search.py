"""The sessions list's search as you type: the index over the listed sessions, and what it found.

The browser lists the store's summaries; this keeps a `SearchIndex` of them current (a summary
object is new exactly when its file changed, so a live batch prepares only those texts again)
and answers a query with where each session matched: `path -> "in name, message: excerpt"`,
what the sidebar shows under a hit (core/groups.py puts it into the rows).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .glyphs import UNICODE, Glyphs
from .hits import SearchHit
from .listing import SessionSummary
from .search import PatternTooSlow, SearchIndex, SessionText, parse_query

TextsOf = Callable[[str], Sequence[str]]  # path -> the store's message texts of that file


@dataclass(frozen=True, slots=True)
class SidebarMatches:
    """A query's answer: where each matching session matched, or why nothing could match."""

    found: dict[str, str] = field(default_factory=dict)  # path -> where it matched
    error: str | None = None


def where_matched(hit: SearchHit[SessionText], glyphs: Glyphs = UNICODE) -> str:
    """`in name, message: …the matched words…`: the fields a hit matched in, and an excerpt."""
    where = "in " + ", ".join(dict.fromkeys(f.rstrip("~") for f in hit.fields)) if hit.fields else ""
    excerpt = hit.excerpt() if hit.in_text else None
    if excerpt is not None:
        where += f": {excerpt.marked(glyphs.ellipsis).text}"
    return where


class SidebarSearch:
    """The index of the listed sessions. The event loop owns it; `prepare` (the costly part,
    for a worker thread) builds an index that `install` then takes on."""

    def __init__(self, texts_of: TextsOf) -> None:
        self.texts_of = texts_of
        self.index: SearchIndex[SessionText] | None = None
        # path -> (the summary it was made from, its search text)
        self._texts: dict[str, tuple[SessionSummary, SessionText]] = {}

    def prepare(self, summaries: Sequence[SessionSummary]) -> SearchIndex[SessionText]:
        """A new index of `summaries` (nothing else changes: fit for a worker thread)."""
        return SearchIndex(self._items(summaries, self._texts.copy()))

    def install(self, index: SearchIndex[SessionText], summaries: Sequence[SessionSummary]) -> None:
        """Use `index` (from `prepare`), brought up to the listing now, unless one is in use."""
        if self.index is None:
            index.update(self._items(summaries, self._texts))
            self.index = index

    def reset(self) -> None:
        """The listing was read again: the next search (or `install`) starts a new index."""
        self.index = None

    def update(self, summaries: Sequence[SessionSummary]) -> None:
        """The listing changed (a live batch)."""
        if self.index is not None:
            self.index.update(self._items(summaries, self._texts))

    def search(
        self, query: str, summaries: Sequence[SessionSummary], glyphs: Glyphs = UNICODE
    ) -> SidebarMatches:
        if self.index is None:
            # Typed before the background index was ready: build it now, once.
            self.index = SearchIndex(self._items(summaries, self._texts))
        parsed = parse_query(query)
        if parsed.error:
            return SidebarMatches(error=parsed.error)
        try:
            hits = self.index.search(parsed)
        except PatternTooSlow as e:
            return SidebarMatches(error=str(e))
        return SidebarMatches({hit.item.path: where_matched(hit, glyphs) for hit in hits})

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
