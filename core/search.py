"""pi's session picker search (pi 1.6.0) over sessions in memory, with hits that say where.

Every token must match, each in any field; a token is looked for, in this order, in the
name, the id, the message text and the cwd, and failing that as a scattered subsequence of
the name or the cwd; a `re:` pattern is tried on the same fields. Scores are pi's: lower is
better, `tier * 1_000_000 + fuzzy score`, tiers name (0) / text (1) / fuzzy (2). Queries
are parsed by `core.query` (which adds `@7d` time filters).

`SearchIndex` prepares each session's message text once (see `core.searchtext`), so a query
over thousands of sessions only does substring scans and a few short fuzzy matches, and a
keystroke that only narrows the previous query looks only at what that query matched. A hit
knows which message segment it is in; its excerpt is cut on demand, at any width, for the
rows that are shown.
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, NamedTuple, Protocol, TypeVar, overload

import regex

from .excerpt import Excerpt, cut_excerpt
from .fuzzy import FuzzyMatch, fuzzy_match
from .jsvalues import js_string, js_trim, utf16_units
from .query import ParsedQuery, QueryToken, normalize_whitespace_lower, parse_query
from .searchtext import FIELD_MESSAGE, MessageText, SegmentedText, TextMatch

if TYPE_CHECKING:
    from .listing import SessionSummary

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

TIER_NAME = 0  # the token appears in the session name
TIER_TEXT = 1  # ... in the id, the message text or the cwd
TIER_FUZZY = 2  # its characters appear scattered in the name or the cwd
TIER_WEIGHT = 1_000_000

FIELD_NAME = "name"
FIELD_ID = "id"
FIELD_CWD = "cwd"

EXCERPT_WIDTH = 60
# A regular expression may backtrack for ages (`(a|aa)+$`): a search gives up after this long.
REGEX_TIME_LIMIT = 2.0
_CANCEL_EVERY = 256  # sessions between two looks at the cancel flag

SortOrder = Literal["recent", "relevance"]
Text = MessageText | SegmentedText


class PatternTooSlow(Exception):
    """A `re:` pattern ran past its time limit (catastrophic backtracking, most likely)."""

    def __str__(self) -> str:
        return "pattern too slow: it backtracks too much to finish (simplify the regular expression)"


class SearchCancelled(Exception):
    """The caller's cancel callback said the query is stale."""


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
        )


T = TypeVar("T")
S = TypeVar("S", bound=Searchable)


class _Entry(Generic[T]):
    """One session, its fields prepared for matching."""

    __slots__ = (
        "cwd",
        "cwd_lower",
        "cwd_normalized",
        "id",
        "id_lower",
        "item",
        "modified_ms",
        "name",
        "name_lower",
        "name_normalized",
        "named",
        "text",
    )

    def __init__(self, item: T, name: str | None, id: str, cwd: str, modified_ms: float, text: Text) -> None:
        self.item = item
        self.name = name or ""
        self.name_lower = self.name.lower()
        self.name_normalized = normalize_whitespace_lower(self.name)
        self.named = bool(js_trim(self.name))
        self.id = id
        self.id_lower = id.lower()
        self.cwd = cwd
        self.cwd_lower = cwd.lower()
        self.cwd_normalized = normalize_whitespace_lower(cwd)
        self.modified_ms = modified_ms
        self.text = text


# ---------------------------------------------------------------------------- hits


class SearchHit(Generic[T]):
    """One session that matched, with pi's score and where its tokens matched."""

    __slots__ = (
        "_excerpts",
        "_field",
        "_match",
        "_needles",
        "_refined",
        "_text",
        "_value",
        "fields",
        "item",
        "score",
    )

    def __init__(
        self,
        item: T,
        score: float = 0.0,
        fields: tuple[str, ...] = (),
        field: str = "",
        text: Text | None = None,
        match: TextMatch | None = None,
        value: str = "",
        needles: tuple[str, ...] = (),
    ) -> None:
        self.item = item
        self.score = score  # pi's score: lower is better
        # Where each token matched, in query order without repeats: "name", "id", "message",
        # "cwd" (in a deep search: the entry's field), or "name~"/"cwd~" for a scattered match.
        self.fields = fields
        self._field = field  # where the hit is shown: the earliest text match, else the first field
        self._text = text if match is not None else None
        self._match = match  # where in `text` (the earliest text match)
        self._refined = False
        self._value = value  # the name, id or cwd shown when the hit is not in the text
        self._needles = needles
        self._excerpts: dict[int, Excerpt | None] | None = None

    def __repr__(self) -> str:
        return f"SearchHit({self.item!r}, score={self.score!r}, fields={self.fields!r})"

    @property
    def text_match(self) -> TextMatch | None:
        """Where in the text the hit is shown: for several tokens, the first place where
        the longest one occurs in a segment that holds all of them, else its first place,
        else the earliest match of any token (worked out once, for the hits shown)."""
        if not self._refined:
            self._refined = True
            if self._text is not None and self._match is not None and len(self._needles) > 1:
                self._match = _best_match(self._text, self._needles) or self._match
        return self._match

    @property
    def field(self) -> str:
        """The field the hit is shown for: "message" (a deep search: the entry's field),
        "name", "id" or "cwd"; "" for an empty query."""
        match = self.text_match
        if self._text is not None and match is not None:
            return self._text.field_of(match)
        return self._field.rstrip("~")

    @property
    def in_text(self) -> bool:
        return self._text is not None

    @property
    def segment(self) -> int | None:
        """Which segment of the session's text holds the hit (for the index: the n-th
        non-empty user/assistant text in file order); None when it is not in the text."""
        match = self.text_match
        return self._text.locate(match)[0] if self._text is not None and match is not None else None

    @property
    def segment_text(self) -> str | None:
        """The text of that segment (the message as the index has it)."""
        segment = self.segment
        return self._text.segment_text(segment) if self._text is not None and segment is not None else None

    @property
    def entry_id(self) -> str | None:
        """The entry the hit is in, when the text knows its entries (a deep search, or a
        text read from the session file); None otherwise."""
        segment = self.segment
        owner = self._text.owner(segment) if self._text is not None and segment is not None else None
        return owner.entry_id if owner is not None else None

    def excerpt(self, width: int = EXCERPT_WIDTH) -> Excerpt | None:
        """At most `width` cells around the hit (the message that matched, or the name, id or
        cwd), with every matched span marked; None for an empty query."""
        if self._excerpts is None:
            self._excerpts = {}
        if width not in self._excerpts:
            self._excerpts[width] = self._cut(width)
        return self._excerpts[width]

    def _cut(self, width: int) -> Excerpt | None:
        match = self.text_match
        if self._text is not None and match is not None:
            return self._text.excerpt(match, width, self._needles)
        if not self._field:
            return None
        value = self._value
        lower = value.lower()
        if len(lower) == len(value) and not self._field.endswith("~"):
            for needle in self._needles:
                at = lower.find(needle)
                if at >= 0:
                    return cut_excerpt(value, at, at + len(needle), width, self._needles)
        return cut_excerpt(value, 0, 0, width, self._needles)


def _best_match(text: Text, needles: tuple[str, ...], tries: int = 64) -> TextMatch | None:
    longest = max(needles, key=len)
    others = [n for n in needles if n != longest]
    normalized = text.normalized
    starts = text.segment_starts()
    first: TextMatch | None = None
    at = normalized.find(longest)
    while at >= 0 and tries > 0:
        tries -= 1
        match = TextMatch(at, at + len(longest))
        first = first or match
        segment = text.locate(match)[0]
        end = starts[segment + 1] - 1 if segment + 1 < len(starts) else len(normalized)
        if all(other in normalized[starts[segment] : end] for other in others):
            return match
        at = normalized.find(longest, max(at + 1, end))
    return first


# ---------------------------------------------------------------------------- matching


def _tier_score(tier: int, score: float = 0.0) -> float:
    return tier * TIER_WEIGHT + score


_NAME_SCORE = _tier_score(TIER_NAME)
_TEXT_SCORE = _tier_score(TIER_TEXT)
_FUZZY_SCORE = _tier_score(TIER_FUZZY)


class _Token:
    """A token ready to match: its lowercased (phrase: normalized) value."""

    __slots__ = ("fuzzy", "memo", "raw", "value")

    def __init__(self, token: QueryToken) -> None:
        self.fuzzy = token.kind == "fuzzy"
        self.raw = token.value
        self.value = token.matched_as
        self.memo: dict[str, FuzzyMatch] = {}  # field text -> fuzzyMatch(raw, text)

    def scattered(self, text: str) -> FuzzyMatch:
        found = self.memo.get(text)
        if found is None:
            found = self.memo[text] = fuzzy_match(self.raw, text)
        return found


# A token's match: (score, field, where in the text or -1)
_TokenMatch = tuple[float, str, int]


def _match_token(entry: _Entry[T], token: _Token) -> _TokenMatch | None:
    """pi's matchFuzzyToken / matchPhraseToken: name, id, message text, cwd; then scattered
    in the name or the cwd (plain tokens only)."""
    value = token.value
    name = entry.name_lower if token.fuzzy else entry.name_normalized
    if value in name:
        return _tier_score(TIER_NAME, fuzzy_match(value, name).score), FIELD_NAME, -1
    if value in entry.id_lower:
        return _TEXT_SCORE, FIELD_ID, -1
    at = entry.text.normalized.find(value)
    if at >= 0 and not (_SEPARATOR in value and isinstance(entry.text, SegmentedText)):
        return _TEXT_SCORE, FIELD_MESSAGE, at
    if value in (entry.cwd_lower if token.fuzzy else entry.cwd_normalized):
        return _TEXT_SCORE, FIELD_CWD, -1
    if not token.fuzzy:
        return None
    in_name = token.scattered(entry.name) if entry.name else _NO_MATCH
    in_cwd = token.scattered(entry.cwd)
    if in_name.matches and (not in_cwd.matches or in_name.score <= in_cwd.score):
        return _FUZZY_SCORE + in_name.score, "name~", -1
    if in_cwd.matches:
        return _FUZZY_SCORE + in_cwd.score, "cwd~", -1
    return None


_NO_MATCH = FuzzyMatch(False, 0.0)
_SEPARATOR = "\x00"


def _field_value(entry: _Entry[T], field: str) -> str:
    if field.startswith(FIELD_NAME):
        return entry.name
    if field == FIELD_ID:
        return entry.id
    return entry.cwd


# What matching one session gives, before a hit is made of it (hits are made for the rows
# that are looked at): (score, fields, the field shown, where in the text)
_Raw = tuple[float, tuple[str, ...], str, TextMatch | None]


def _match_regex(entry: _Entry[T], pattern: regex.Pattern[str], deadline: float) -> _Raw | None:
    """`pattern` comes from `compile_js_regex`: it reads UTF-16 code units, as JavaScript does."""
    timeout = deadline - time.monotonic()
    try:
        if entry.name and pattern.search(utf16_units(entry.name), timeout=timeout):
            return _NAME_SCORE, _SINGLE_FIELDS[FIELD_NAME], FIELD_NAME, None
        if pattern.search(utf16_units(entry.id), timeout=timeout):
            return _TEXT_SCORE, _SINGLE_FIELDS[FIELD_ID], FIELD_ID, None
        found = entry.text.search(pattern, timeout)
        if found is not None:
            return _TEXT_SCORE, _SINGLE_FIELDS[FIELD_MESSAGE], FIELD_MESSAGE, found
        if pattern.search(utf16_units(entry.cwd), timeout=timeout):
            return _TEXT_SCORE, _SINGLE_FIELDS[FIELD_CWD], FIELD_CWD, None
    except TimeoutError:
        raise PatternTooSlow() from None
    return None


_SINGLE_FIELDS = {f: (f,) for f in (FIELD_NAME, FIELD_ID, FIELD_MESSAGE, FIELD_CWD, "name~", "cwd~")}


def _match_entry(
    entry: _Entry[T], query: ParsedQuery, tokens: Sequence[_Token], deadline: float
) -> _Raw | None:
    """pi's matchSession. `tokens`: the query's tokens without empty phrases."""
    if query.mode == "regex":
        return None if query.regex is None else _match_regex(entry, query.regex, deadline)
    total = 0.0
    fields: list[str] = []
    shown = ""  # the field the hit is shown for
    text_match: TextMatch | None = None  # the earliest text match
    for token in tokens:
        found = _match_token(entry, token)
        if found is None:
            return None
        score, field, at = found
        total += score
        if at >= 0:
            match = TextMatch(at, at + len(token.value))
            if text_match is None or at < text_match.start:
                text_match = match
            if entry.text.owners is not None:
                field = entry.text.field_of(match)
        if field not in fields:
            fields.append(field)
        if not shown:
            shown = field
    return total, _fields(fields), FIELD_MESSAGE if text_match is not None else shown, text_match


def _hit(entry: _Entry[T], raw: _Raw, needles: tuple[str, ...]) -> SearchHit[T]:
    score, fields, shown, match = raw
    if match is not None:
        return SearchHit(entry.item, score, fields, shown, entry.text, match, "", needles)
    value = _field_value(entry, shown) if shown else ""
    return SearchHit(entry.item, score, fields, shown, None, None, value, needles)


def _scan_one_token(
    entries: list[_Entry[T]],
    candidates: Iterable[int],
    token: _Token,
    accept: Callable[[_Entry[T]], bool] | None,
    cancelled: Callable[[], bool] | None,
    positions: list[int],
    raws: list[_Raw],
) -> None:
    """`_match_entry` for the commonest query, one plain token or phrase, with the literal
    tests inlined (a keystroke over 30,000 sessions runs this loop 30,000 times)."""
    value = token.value
    size = len(value)
    fuzzy = token.fuzzy
    name_field, id_field = _SINGLE_FIELDS[FIELD_NAME], _SINGLE_FIELDS[FIELD_ID]
    message_field, cwd_field = _SINGLE_FIELDS[FIELD_MESSAGE], _SINGLE_FIELDS[FIELD_CWD]
    for count, position in enumerate(candidates):
        if cancelled is not None and not count & 255 and cancelled():
            raise SearchCancelled()
        entry = entries[position]
        if accept is not None and not accept(entry):
            continue
        name = entry.name_lower if fuzzy else entry.name_normalized
        if name and value in name:
            raw: _Raw = (_tier_score(TIER_NAME, fuzzy_match(value, name).score), name_field, FIELD_NAME, None)
        elif value in entry.id_lower:
            raw = (_TEXT_SCORE, id_field, FIELD_ID, None)
        else:
            at = entry.text.normalized.find(value)
            if at >= 0:
                raw = (_TEXT_SCORE, message_field, FIELD_MESSAGE, TextMatch(at, at + size))
            elif value in (entry.cwd_lower if fuzzy else entry.cwd_normalized):
                raw = (_TEXT_SCORE, cwd_field, FIELD_CWD, None)
            elif not fuzzy:
                continue
            else:
                found = _match_token(entry, token)
                if found is None:
                    continue
                raw = (found[0], _SINGLE_FIELDS[found[1]], found[1], None)
        positions.append(position)
        raws.append(raw)


def _fields(fields: list[str]) -> tuple[str, ...]:
    if len(fields) == 1:
        return _SINGLE_FIELDS.get(fields[0]) or (fields[0],)
    return tuple(fields)


def match_session(
    query: ParsedQuery,
    item: T,
    name: str | None,
    id: str,
    cwd: str,
    text: Text,
    time_limit: float = REGEX_TIME_LIMIT,
) -> SearchHit[T] | None:
    """Match one session given its fields and a prepared text (no time window applied)."""
    entry = _Entry(item, name, id, cwd, 0.0, text)
    tokens = [_Token(t) for t in query.tokens if t.matched_as]
    raw = _match_entry(entry, query, tokens, time.monotonic() + time_limit)
    return None if raw is None else _hit(entry, raw, tuple(t.value for t in tokens))


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
        was_value, now_value = _Token(was).value, _Token(now).value
        if not now_value.startswith(was_value) if i == last else was_value != now_value:
            return False
    return True


class SearchIndex(Generic[S]):
    """Sessions prepared for searching; keep it and call `update` when the list changes.

    Items are `Searchable` (their `message_texts` are prepared once, and a list that grew is
    taken up where it stopped)."""

    def __init__(self, items: Iterable[S] = ()) -> None:
        self._entries: list[_Entry[S]] = []
        self._texts: dict[int, MessageText] = {}
        self._last: _Narrowing | None = None
        self.update(items)

    def update(self, items: Iterable[S]) -> None:
        """Take a new list (and order). Message texts seen before are not prepared again."""
        previous = self._texts
        texts: dict[int, MessageText] = {}
        entries: list[_Entry[S]] = []
        for item in items:
            segments = item.message_texts
            key = id(segments)
            text = texts.get(key) or previous.get(key)
            if text is None or text.segments is not segments:
                text = MessageText(segments)
            else:
                text.extend()
            texts[key] = text
            entries.append(_Entry(item, item.name, item.id, item.cwd, item.modified_ms, text))
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
        raws: list[_Raw] = []
        if parsed.is_blank:
            positions = [i for i, e in enumerate(entries) if e.named or not named_only]
            return SearchResults(entries, positions, [_BLANK] * len(positions), ())
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
        tokens = [_Token(t) for t in parsed.tokens if t.matched_as]
        needles = tuple(t.value for t in tokens)
        accept = _acceptor(named_only, cutoff)
        with _gc_paused():
            if parsed.mode == "tokens" and len(tokens) == 1:
                _scan_one_token(entries, candidates, tokens[0], accept, cancelled, positions, raws)
            else:
                deadline = time.monotonic() + time_limit
                for count, position in enumerate(candidates):
                    if cancelled is not None and not count & 255 and cancelled():
                        raise SearchCancelled()
                    entry = entries[position]
                    if accept is not None and not accept(entry):
                        continue
                    raw = _match_entry(entry, parsed, tokens, deadline)
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


_BLANK: _Raw = (0.0, (), "", None)


def _acceptor(named_only: bool, cutoff: float | None) -> Callable[[_Entry[Any]], bool] | None:
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
        self, entries: list[_Entry[T]], positions: list[int], raws: list[_Raw], needles: tuple[str, ...]
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
            position = self._positions[index]
            hit = self._hits[index] = _hit(self._entries[position], self._raws[index], self._needles)
        return hit

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
