"""pi's session picker search (pi 1.6.0) over sessions in memory: the index and its results.

Matching is pi's matchSession (`core.matching`); queries are parsed by `core.query` (which
adds `@7d` time filters). `SearchIndex` prepares each session's message text once (see
`core.searchtext`), so a query over thousands of sessions only does substring scans and a few
short fuzzy matches, and a keystroke that only narrows the previous query looks only at what
that query matched. Results make a `SearchHit` (`core.hits`) for a row when it is looked at;
its excerpt is cut then, at the width of the row.
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, NamedTuple, Protocol, TypeVar, overload

from ..common.jsvalues import js_string
from .excerpt import Excerpt
from .hits import EXCERPT_WIDTH, FIELD_CWD, FIELD_ID, FIELD_NAME, SearchHit
from .matching import (
    BLANK_MATCH,
    REGEX_TIME_LIMIT,
    TIER_FUZZY,
    TIER_NAME,
    TIER_TEXT,
    TIER_WEIGHT,
    PatternTooSlow,
    PreparedSession,
    RawMatch,
    SearchCancelled,
    Token,
    make_hit,
    match_prepared,
    match_session,
    scan_one_token,
)
from .query import ParsedQuery, QueryToken, parse_query
from .texts import FIELD_MESSAGE, MessageText

if TYPE_CHECKING:
    from ..listing.summary import SessionSummary

__all__ = [
    "EXCERPT_WIDTH",
    "FIELD_CWD",
    "FIELD_ID",
    "FIELD_MESSAGE",
    "FIELD_NAME",
    "REGEX_TIME_LIMIT",
    "TIER_FUZZY",
    "TIER_NAME",
    "TIER_TEXT",
    "TIER_WEIGHT",
    "Excerpt",
    "ParsedQuery",
    "PatternTooSlow",
    "QueryToken",
    "SearchCancelled",
    "SearchHit",
    "SearchIndex",
    "SearchResults",
    "Searchable",
    "SessionText",
    "SortOrder",
    "filter_sessions",
    "match_session",
    "parse_query",
]

SortOrder = Literal["recent", "relevance"]


# ---------------------------------------------------------------------------- what is searched


class Searchable(Protocol):
    """What the search reads from one session."""

    @property
    def name(self) -> str | None: ...

    @property
    def id(self) -> str: ...

    @property
    def cwd(self) -> str: ...

    @property
    def message_texts(self) -> Sequence[str]:
        """Every non-empty user/assistant text, in file order (pi's allMessagesText is
        these joined with " "). A list that grows in place is taken up incrementally."""
        ...

    @property
    def modified_ms(self) -> float: ...


@dataclass(frozen=True, slots=True)
class SessionText:
    """A ready-made `Searchable`."""

    id: str
    cwd: str = ""
    name: str | None = None
    message_texts: Sequence[str] = ()
    modified_ms: float = 0.0
    path: str = ""
    # the file's size, mtime_ns and inode as listed (which text row of the index is current)
    stamp: tuple[int, int, int] | None = field(default=None, compare=False)

    @classmethod
    def from_summary(cls, summary: SessionSummary, texts: Sequence[str] = ()) -> SessionText:
        """`texts`: the store's list for that file (kept as is: it grows in place)."""
        return cls(
            id=js_string(summary.id),
            cwd=summary.cwd,
            name=summary.name,
            message_texts=texts,
            modified_ms=summary.modified_ms,
            path=summary.path,
            stamp=(summary.size, summary.mtime_ns, summary.inode),
        )


T = TypeVar("T")
S = TypeVar("S", bound=Searchable)


# ---------------------------------------------------------------------------- the index


class _Narrowing(NamedTuple):
    """The last query and the entries it matched: a narrower query only looks at those."""

    query: ParsedQuery
    named_only: bool
    cutoff: float | None
    matched: list[int]


def _refines(new: ParsedQuery, old: ParsedQuery) -> bool:
    """Whatever `new` matches, `old` matches too: the same tokens, the last one maybe longer
    (a literal or a scattered match of it is one of its prefix too), maybe more tokens."""
    if new.mode != "tokens" or old.mode != "tokens" or new.error or old.error:
        return False
    before, after = old.tokens, new.tokens
    if not before or len(after) < len(before):
        return False
    last = len(before) - 1
    for i, (was, now) in enumerate(zip(before, after, strict=False)):
        if was.kind != now.kind:
            return False
        was_value, now_value = Token(was).value, Token(now).value
        if not now_value.startswith(was_value) if i == last else was_value != now_value:
            return False
    return True


class SearchIndex(Generic[S]):
    """Sessions prepared for searching; keep it and call `update` when the list changes.

    Items are `Searchable` (their `message_texts` are prepared once, and a list that grew is
    taken up where it stopped)."""

    def __init__(self, items: Iterable[S] = ()) -> None:
        self._entries: list[PreparedSession[S]] = []
        self._texts: dict[int, MessageText] = {}
        self._last: _Narrowing | None = None
        self.update(items)

    def update(self, items: Iterable[S]) -> None:
        """Take a new list (and order). Message texts seen before are not prepared again."""
        previous = self._texts
        texts: dict[int, MessageText] = {}
        entries: list[PreparedSession[S]] = []
        for item in items:
            segments = item.message_texts
            key = id(segments)
            text = texts.get(key) or previous.get(key)
            if text is None or text.segments is not segments:
                text = MessageText(segments)
            else:
                text.extend()
            texts[key] = text
            entries.append(PreparedSession(item, item.name, item.id, item.cwd, item.modified_ms, text))
        self._entries = entries
        self._texts = texts
        self._last = None

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def items(self) -> list[S]:
        return [entry.item for entry in self._entries]

    def search(
        self,
        query: str | ParsedQuery,
        order: SortOrder = "recent",
        named_only: bool = False,
        time_limit: float = REGEX_TIME_LIMIT,
        now_ms: float | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> SearchResults[S]:
        """pi's filterAndSortSessions, as hits. "recent" keeps the index's order; "relevance"
        sorts by score, then newest first. A query with an error matches nothing.

        Raises `PatternTooSlow` when a regular expression runs past `time_limit` seconds in
        all, and `SearchCancelled` as soon as `cancelled()` says so (looked at every few
        hundred sessions)."""
        parsed = parse_query(query) if isinstance(query, str) else query
        entries = self._entries
        positions: list[int] = []
        raws: list[RawMatch] = []
        if parsed.is_blank:
            positions = [i for i, e in enumerate(entries) if e.named or not named_only]
            return SearchResults(entries, positions, [BLANK_MATCH] * len(positions), ())
        if parsed.error is not None:
            return SearchResults(entries, [], [], ())
        cutoff = None
        if parsed.window_ms is not None:
            now = time.time() * 1000 if now_ms is None else now_ms
            cutoff = now - parsed.window_ms
        candidates: Iterable[int] = range(len(entries))
        last = self._last
        if (
            last is not None
            and last.named_only == named_only
            and (last.cutoff is None or (cutoff is not None and cutoff >= last.cutoff))
            and _refines(parsed, last.query)
        ):
            candidates = last.matched
        tokens = [Token(t) for t in parsed.tokens if t.matched_as]
        needles = tuple(t.value for t in tokens)
        accept = _acceptor(named_only, cutoff)
        with _gc_paused():
            if parsed.mode == "tokens" and len(tokens) == 1:
                self._scan_one_token(entries, candidates, tokens[0], accept, cancelled, positions, raws)
            else:
                deadline = time.monotonic() + time_limit
                for count, position in enumerate(candidates):
                    if cancelled is not None and not count & 255 and cancelled():
                        raise SearchCancelled()
                    entry = entries[position]
                    if accept is not None and not accept(entry):
                        continue
                    raw = match_prepared(entry, parsed, tokens, deadline)
                    if raw is not None:
                        positions.append(position)
                        raws.append(raw)
        if entries is self._entries:
            self._last = _Narrowing(parsed, named_only, cutoff, positions)
        if order == "relevance":
            ranked = sorted(
                range(len(positions)), key=lambda i: (raws[i][0], -entries[positions[i]].modified_ms)
            )
            positions = [positions[i] for i in ranked]
            raws = [raws[i] for i in ranked]
        return SearchResults(entries, positions, raws, needles)

    # `scan_one_token`, which an index whose texts live elsewhere may replace
    _scan_one_token = staticmethod(scan_one_token)


def _acceptor(named_only: bool, cutoff: float | None) -> Callable[[PreparedSession[Any]], bool] | None:
    if cutoff is not None:
        return lambda e: e.modified_ms >= cutoff and (e.named or not named_only)
    if named_only:
        return lambda e: bool(e.named)
    return None


class SearchResults(Sequence[SearchHit[T]]):
    """The hits of one search, in order. A hit object is made when it is first looked at,
    so a query matching 30,000 sessions costs little more than the matching itself."""

    __slots__ = ("_entries", "_hits", "_needles", "_positions", "_raws")

    def __init__(
        self,
        entries: list[PreparedSession[T]],
        positions: list[int],
        raws: list[RawMatch],
        needles: tuple[str, ...],
    ) -> None:
        self._entries = entries
        self._positions = positions
        self._raws = raws
        self._needles = needles
        self._hits: list[SearchHit[T] | None] = [None] * len(positions)

    def __len__(self) -> int:
        return len(self._positions)

    @overload
    def __getitem__(self, index: int) -> SearchHit[T]: ...

    @overload
    def __getitem__(self, index: slice) -> list[SearchHit[T]]: ...

    def __getitem__(self, index: int | slice) -> SearchHit[T] | list[SearchHit[T]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        hit = self._hits[index]
        if hit is None:
            hit = self._hits[index] = self._hit(index)
        return hit

    def _hit(self, index: int) -> SearchHit[T]:
        """The hit object of the `index`-th result, made the first time it is looked at."""
        return make_hit(self._entries[self._positions[index]], self._raws[index], self._needles)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SearchResults | list | tuple):
            return list(self) == list(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"SearchResults({len(self)} hits)"

    @property
    def items(self) -> list[T]:
        """The matching items, in order (no hit objects made)."""
        entries = self._entries
        return [entries[p].item for p in self._positions]

    def item(self, index: int) -> T:
        return self._entries[self._positions[index]].item

    @property
    def entries(self) -> list[PreparedSession[T]]:
        """The index's sessions this search went through (replaced whole by an update)."""
        return self._entries

    @property
    def positions(self) -> list[int]:
        """Where each hit's session is in `entries`, in hit order."""
        return self._positions


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Hits are never cyclic: collecting while thousands are made only burns time."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def filter_sessions(
    items: Iterable[S], query: str, order: SortOrder = "recent", named_only: bool = False
) -> list[S]:
    """pi's filterAndSortSessions in one call (build a `SearchIndex` to search repeatedly)."""
    return SearchIndex(items).search(query, order, named_only).items
