"""pi's session picker search (pi 1.6.0), plus which field matched and where.

A query is whitespace-separated tokens (all must match, each in any field), `"quoted
phrases"` (exact, whitespace-normalized), or `re:<pattern>` (one case-insensitive regular
expression). A token is looked for, in this order, in the name, the id, the message text and
the cwd; failing that it may match as a scattered subsequence of the name or the cwd. Scores
are pi's: lower is better, `tier * 1_000_000 + fuzzy score`, tiers name (0) / text (1) /
fuzzy (2).

`SearchIndex` prepares each session's message text once (lowercased, whitespace collapsed), so
a query over thousands of sessions only does substring scans and a few short fuzzy matches.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Generic, Literal, NamedTuple, Protocol, TypeVar

import regex

from .fuzzy import fuzzy_match
from .jsregex import JS_SPACE_CLASS, JS_SPACE_CLASS_BUT_SPACE, JsRegexError, compile_js_regex
from .jsvalues import JS_WHITESPACE, js_string, js_trim, utf16_units

if TYPE_CHECKING:
    from .listing import SessionSummary

__all__ = [
    "EXCERPT_WIDTH",
    "REGEX_TIME_LIMIT",
    "TIER_FUZZY",
    "TIER_NAME",
    "TIER_TEXT",
    "TIER_WEIGHT",
    "Excerpt",
    "ParsedQuery",
    "PatternTooSlow",
    "QueryToken",
    "SearchHit",
    "SearchIndex",
    "Searchable",
    "SessionText",
    "SortOrder",
    "TokenKind",
    "filter_sessions",
    "normalize_whitespace_lower",
    "parse_query",
]

TIER_NAME = 0  # the token appears in the session name
TIER_TEXT = 1  # ... in the id, the message text or the cwd
TIER_FUZZY = 2  # its characters appear scattered in the name or the cwd
TIER_WEIGHT = 1_000_000

EXCERPT_WIDTH = 60
_EXCERPT_WORD_SLACK = 12  # at most this many characters are dropped to cut at a space

# A regular expression may backtrack for ages (`(a|aa)+$`): a search gives up after this long.
REGEX_TIME_LIMIT = 2.0

SortOrder = Literal["recent", "relevance"]


class PatternTooSlow(Exception):
    """A `re:` pattern ran past its time limit (catastrophic backtracking, most likely)."""

    def __str__(self) -> str:
        return "pattern too slow: it backtracks too much to finish (simplify the regular expression)"


TokenKind = Literal["fuzzy", "phrase"]

_JS_SPACE_RUN = re.compile(f"[{JS_SPACE_CLASS}]+")
# Only the runs that are not a single space already (far fewer to replace).
_JS_SPACE_RUN_TO_COLLAPSE = re.compile(
    f"[{JS_SPACE_CLASS_BUT_SPACE}][{JS_SPACE_CLASS}]*|\\x20[{JS_SPACE_CLASS}]+"
)
_CONTROL_CHARS = re.compile("[\x00-\x1f\x7f]")


def normalize_whitespace_lower(text: str) -> str:
    """Lowercase, every whitespace run as one space, trimmed (pi's normalizeWhitespaceLower)."""
    return _collapse_whitespace(text.lower())


def _collapse_whitespace(text: str) -> str:
    return js_trim(_JS_SPACE_RUN_TO_COLLAPSE.sub(" ", text))


# ---------------------------------------------------------------------------- queries


@dataclass(frozen=True, slots=True)
class QueryToken:
    kind: TokenKind
    value: str


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    mode: Literal["tokens", "regex"]
    tokens: tuple[QueryToken, ...] = ()
    # Translated from JavaScript; it reads UTF-16 units (astral characters as surrogate pairs).
    regex: regex.Pattern[str] | None = None
    error: str | None = None
    text: str = ""  # the query, trimmed

    @property
    def is_blank(self) -> bool:
        """A blank query: every session, in the given order (`""` is not blank: it matches all
        with score 0, so "relevance" still sorts them newest first)."""
        return not self.text


def parse_query(text: str) -> ParsedQuery:
    """pi's parseSearchQuery: tokens and "quoted phrases", or `re:<pattern>`."""
    trimmed = js_trim(text)
    if not trimmed:
        return ParsedQuery("tokens")
    if trimmed.startswith("re:"):
        pattern = js_trim(trimmed[3:])
        if not pattern:
            return ParsedQuery("regex", error="Empty regex", text=trimmed)
        try:
            compiled = compile_js_regex(pattern)
        except JsRegexError as e:
            return ParsedQuery("regex", error=f"Invalid regular expression: /{pattern}/i: {e}", text=trimmed)
        return ParsedQuery("regex", regex=compiled, text=trimmed)

    tokens: list[QueryToken] = []
    buffer: list[str] = []
    in_quote = False

    def flush(kind: TokenKind) -> None:
        value = js_trim("".join(buffer))
        buffer.clear()
        if value:
            tokens.append(QueryToken(kind, value))

    for ch in trimmed:
        if ch == '"':
            flush("phrase" if in_quote else "fuzzy")
            in_quote = not in_quote
        elif not in_quote and ch in JS_WHITESPACE:
            flush("fuzzy")
        else:
            buffer.append(ch)
    if in_quote:  # unbalanced quotes: plain whitespace-separated tokens, quotes kept
        words = _JS_SPACE_RUN.split(trimmed)
        return ParsedQuery("tokens", tuple(QueryToken("fuzzy", w) for w in words if w), text=trimmed)
    flush("fuzzy")
    return ParsedQuery("tokens", tuple(tokens), text=trimmed)


# ---------------------------------------------------------------------------- sessions


class Searchable(Protocol):
    """What the search reads from one session."""

    @property
    def name(self) -> str | None: ...

    @property
    def id(self) -> str: ...

    @property
    def cwd(self) -> str: ...

    @property
    def message_text(self) -> str:
        """Every user/assistant message text, joined with " " (pi's allMessagesText)."""
        ...

    @property
    def modified_ms(self) -> float: ...


@dataclass(frozen=True, slots=True)
class SessionText:
    """A ready-made `Searchable`."""

    id: str
    cwd: str = ""
    name: str | None = None
    message_text: str = ""
    modified_ms: float = 0.0
    path: str = ""

    @classmethod
    def from_summary(cls, summary: SessionSummary, texts: Iterable[str] = ()) -> SessionText:
        return cls(
            id=js_string(summary.id),
            cwd=summary.cwd,
            name=summary.name,
            message_text=" ".join(texts),
            modified_ms=summary.modified_ms,
            path=summary.path,
        )


T = TypeVar("T", bound=Searchable)


class _MessageText:
    """One session's message text, prepared once."""

    __slots__ = ("_flat", "_utf16", "normalized", "original")

    def __init__(self, original: str) -> None:
        self.original = original
        # Lowercased, whitespace runs as one space, trimmed. A token without whitespace is
        # in pi's lowercased text exactly when it is in this one, so one copy serves both.
        self.normalized = normalize_whitespace_lower(original)
        self._flat: str | None = None
        self._utf16: str | None = None

    @property
    def utf16(self) -> str:
        """The original text as JavaScript's regular expressions see it (for `re:`)."""
        if self._utf16 is None:
            self._utf16 = utf16_units(self.original)
        return self._utf16

    @property
    def flat(self) -> str:
        """The original text with whitespace collapsed (what excerpts are cut from)."""
        if self._flat is None:
            self._flat = _collapse_whitespace(self.original)
        return self._flat

    def flat_index_of_normalized(self, index: int) -> int:
        flat = self.flat
        if len(flat) == len(self.normalized):
            return index
        # Lowercasing changed some lengths ("İ" is two characters lowercased): walk.
        consumed = 0
        for position, ch in enumerate(flat):
            if consumed >= index:
                return position
            consumed += len(ch.lower())
        return len(flat)

    def flat_index_of_utf16(self, index: int) -> int:
        head = self.utf16[:index]
        if self.utf16 is not self.original:
            head = head.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
        return min(len(self.flat), len(_collapse_whitespace(head + "x")) - 1)


class _Entry(Generic[T]):
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

    def __init__(self, item: T, text: _MessageText) -> None:
        self.item = item
        self.name = item.name or ""
        self.name_lower = self.name.lower()
        self.name_normalized = normalize_whitespace_lower(self.name)
        self.named = bool(js_trim(self.name))
        self.id = item.id
        self.id_lower = item.id.lower()
        self.cwd = item.cwd
        self.cwd_lower = item.cwd.lower()
        self.cwd_normalized = normalize_whitespace_lower(item.cwd)
        self.modified_ms = item.modified_ms
        self.text = text


def _tier_score(tier: int, score: float = 0.0) -> float:
    return tier * TIER_WEIGHT + score


_NAME_SCORE = _tier_score(TIER_NAME)
_TEXT_SCORE = _tier_score(TIER_TEXT)


class _TokenMatch(NamedTuple):
    score: float
    field: str
    start: int = -1  # a message match: where, in the normalized text (the UTF-16 one for a regex)
    end: int = -1


def _match_in(entry: _Entry[T], value: str, name: str, cwd: str) -> _TokenMatch | None:
    """pi's order for a plain value: name, id, message, cwd. `value` is lowercased; `name`
    and `cwd` are the entry's fields prepared the same way (lowercased, or also
    whitespace-normalized for a phrase). Messages and ids only match exactly."""
    if value in name:
        return _TokenMatch(_tier_score(TIER_NAME, fuzzy_match(value, name).score), "name")
    if value in entry.id_lower:
        return _TokenMatch(_TEXT_SCORE, "id")
    start = entry.text.normalized.find(value)
    if start >= 0:
        return _TokenMatch(_TEXT_SCORE, "message", start, start + len(value))
    if value in cwd:
        return _TokenMatch(_TEXT_SCORE, "cwd")
    return None


def _match_fuzzy(entry: _Entry[T], value: str) -> _TokenMatch | None:
    literal = _match_in(entry, value.lower(), entry.name_lower, entry.cwd_lower)
    if literal is not None:
        return literal
    best: _TokenMatch | None = None
    for field_name, text in (("name~", entry.name), ("cwd~", entry.cwd)):
        matched, score = fuzzy_match(value, text)
        if matched and (best is None or score < best.score):
            best = _TokenMatch(score, field_name)
    if best is None:
        return None
    return _TokenMatch(_tier_score(TIER_FUZZY, best.score), best.field)


def _match_regex(entry: _Entry[T], pattern: regex.Pattern[str], deadline: float) -> _TokenMatch | None:
    """`pattern` comes from `compile_js_regex`: it reads UTF-16 code units, as JavaScript does."""
    timeout = deadline - time.monotonic()
    try:
        if entry.name and pattern.search(utf16_units(entry.name), timeout=timeout):
            return _TokenMatch(_NAME_SCORE, "name")
        if pattern.search(utf16_units(entry.id), timeout=timeout):
            return _TokenMatch(_TEXT_SCORE, "id")
        found = pattern.search(entry.text.utf16, timeout=timeout)
        if found:
            return _TokenMatch(_TEXT_SCORE, "message", found.start(), found.end())
        if pattern.search(utf16_units(entry.cwd), timeout=timeout):
            return _TokenMatch(_TEXT_SCORE, "cwd")
    except TimeoutError:
        raise PatternTooSlow() from None
    return None


# ---------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class Excerpt:
    """A short stretch of message text (whitespace collapsed) around a match."""

    text: str
    match_start: int  # the match within `text`
    match_end: int

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class _MessageSpan:
    text: _MessageText
    start: int
    end: int
    in_utf16: bool  # a regex match indexes the UTF-16 text, a token the normalized one


def _cut_excerpt(flat: str, start: int, end: int, width: int) -> Excerpt:
    end = max(start, min(end, len(flat)))
    slack = width - (end - start)
    left = max(0, start - max(0, slack) // 2)
    right = min(len(flat), left + width)
    left = max(0, min(left, right - width))
    # Whole words at the edges, when a space is near enough.
    if left > 0:
        space = flat.find(" ", left - 1, min(start, left + _EXCERPT_WORD_SLACK))
        if space >= 0:
            left = space + 1
    if right < len(flat):
        space = flat.rfind(" ", max(end, right - _EXCERPT_WORD_SLACK), right + 1)
        if space >= 0:
            right = space
    body = _CONTROL_CHARS.sub(" ", flat[left:right])
    prefix = "…" if left > 0 else ""
    suffix = "…" if right < len(flat) else ""
    offset = len(prefix) - left
    return Excerpt(prefix + body + suffix, start + offset, min(end, right) + offset)


@dataclass(frozen=True)
class SearchHit(Generic[T]):
    """One session that matched, with pi's score and where its tokens matched."""

    item: T
    score: float = 0.0  # pi's score: lower is better
    # Where each token matched, in query order without repeats: "name", "id", "message",
    # "cwd", or "name~"/"cwd~" for a scattered (fuzzy) match. Empty for an empty query.
    fields: tuple[str, ...] = ()
    _message_span: _MessageSpan | None = field(default=None, repr=False, compare=False)

    @cached_property
    def excerpt(self) -> Excerpt | None:
        """About EXCERPT_WIDTH characters of message text around the earliest message match."""
        span = self._message_span
        if span is None:
            return None
        text = span.text
        if span.in_utf16:
            start, end = text.flat_index_of_utf16(span.start), text.flat_index_of_utf16(span.end)
        else:
            start, end = text.flat_index_of_normalized(span.start), text.flat_index_of_normalized(span.end)
        return _cut_excerpt(text.flat, start, end, EXCERPT_WIDTH)


def _match_entry(entry: _Entry[T], query: ParsedQuery, deadline: float) -> SearchHit[T] | None:
    if query.mode == "regex":
        if query.regex is None:
            return None
        found = _match_regex(entry, query.regex, deadline)
        if found is None:
            return None
        regex_span = _MessageSpan(entry.text, found.start, found.end, True) if found.start >= 0 else None
        return SearchHit(entry.item, found.score, (found.field,), regex_span)
    total = 0.0
    fields: list[str] = []
    span: _MessageSpan | None = None
    for token in query.tokens:
        if token.kind == "phrase":
            phrase = normalize_whitespace_lower(token.value)
            if not phrase:
                continue
            found = _match_in(entry, phrase, entry.name_normalized, entry.cwd_normalized)
        else:
            found = _match_fuzzy(entry, token.value)
        if found is None:
            return None
        total += found.score
        if found.field not in fields:
            fields.append(found.field)
        if found.start >= 0 and (span is None or found.start < span.start):
            span = _MessageSpan(entry.text, found.start, found.end, False)
    return SearchHit(entry.item, total, tuple(fields), span)


class SearchIndex(Generic[T]):
    """Sessions prepared for searching; keep it and call `update` when the list changes."""

    def __init__(self, items: Iterable[T] = ()) -> None:
        self._entries: list[_Entry[T]] = []
        self._texts: dict[str, _MessageText] = {}
        self.update(items)

    def update(self, items: Iterable[T]) -> None:
        """Take a new list (and order). Message texts seen before are not prepared again."""
        previous = self._texts
        texts: dict[str, _MessageText] = {}
        entries: list[_Entry[T]] = []
        for item in items:
            source = item.message_text
            text = texts.get(source) or previous.get(source)
            if text is None:
                text = _MessageText(source)
            texts[source] = text
            entries.append(_Entry(item, text))
        self._entries = entries
        self._texts = texts

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def items(self) -> list[T]:
        return [entry.item for entry in self._entries]

    def search(
        self,
        query: str | ParsedQuery,
        order: SortOrder = "recent",
        named_only: bool = False,
        time_limit: float = REGEX_TIME_LIMIT,
    ) -> list[SearchHit[T]]:
        """pi's filterAndSortSessions, as hits. "recent" keeps the index's order; "relevance"
        sorts by score, then newest first. A query with an error matches nothing. Raises
        `PatternTooSlow` when a regular expression runs past `time_limit` seconds in all."""
        parsed = parse_query(query) if isinstance(query, str) else query
        entries: Sequence[_Entry[T]] = self._entries
        if named_only:
            entries = [entry for entry in entries if entry.named]
        if parsed.is_blank:
            return [SearchHit(entry.item) for entry in entries]
        if parsed.error is not None:
            return []
        matched: list[tuple[SearchHit[T], float]] = []
        deadline = time.monotonic() + time_limit
        for entry in entries:
            hit = _match_entry(entry, parsed, deadline)
            if hit is not None:
                matched.append((hit, entry.modified_ms))
        if order == "relevance":
            matched.sort(key=lambda pair: (pair[0].score, -pair[1]))
        return [hit for hit, _ in matched]


def filter_sessions(
    items: Iterable[T], query: str, order: SortOrder = "recent", named_only: bool = False
) -> list[T]:
    """pi's filterAndSortSessions in one call (build a `SearchIndex` to search repeatedly)."""
    return [hit.item for hit in SearchIndex(items).search(query, order, named_only)]
