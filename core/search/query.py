"""A search query as typed: pi's tokens, "phrases" and `re:` patterns, plus our time filters.

pi 1.6.0's parseSearchQuery: whitespace-separated tokens, `"quoted phrases"` (matched after
whitespace normalization), or `re:<pattern>` (one case-insensitive JavaScript regular
expression); unbalanced quotes fall back to plain words. On top of pi: a word `@7d` (`@<n>` then
`h`, `d`, `w`, `mo` or `y`) keeps only sessions active within that long before now. In a
`re:` query the time filters come first (`@2w re:fix(ed|es)`), since the pattern runs to the
end of the query. A query longer than MAX_QUERY_CHARS is cut to that (`ParsedQuery.cut`): the
cost of matching grows with its length, and a pasted page froze the browser at every key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from ..common.jsvalues import JS_WHITESPACE, js_trim
from .jsregex import JS_SPACE_CLASS, JS_SPACE_CLASS_BUT_SPACE, JsRegexError, compile_js_regex

if TYPE_CHECKING:
    import regex  # (the `regex` package costs 20 ms to import: loaded by the first regex query)

__all__ = [
    "DURATION_UNITS_MS",
    "MAX_QUERY_CHARS",
    "QUERY_CUT_NOTE",
    "ParsedQuery",
    "QueryToken",
    "TokenKind",
    "collapse_whitespace",
    "normalize_whitespace_lower",
    "parse_duration",
    "parse_query",
]

TokenKind = Literal["fuzzy", "phrase"]

HOUR_MS = 3_600_000.0
DAY_MS = 24 * HOUR_MS
DURATION_UNITS_MS = {"h": HOUR_MS, "d": DAY_MS, "w": 7 * DAY_MS, "mo": 30 * DAY_MS, "y": 365 * DAY_MS}
MAX_QUERY_CHARS = 256  # (a query of 3,000 took seconds per key over a few hundred sessions)
QUERY_CUT_NOTE = f"query cut to {MAX_QUERY_CHARS} characters"
_DURATION = re.compile(r"([0-9]{1,12})(h|d|w|mo|y)", re.IGNORECASE)
_WINDOW_WORD = re.compile(r"@([0-9]{1,12})(h|d|w|mo|y)", re.IGNORECASE)

_JS_SPACE_RUN = re.compile(f"[{JS_SPACE_CLASS}]+")
# Only the runs that are not a single space already (far fewer to replace).
_JS_SPACE_RUN_TO_COLLAPSE = re.compile(
    f"[{JS_SPACE_CLASS_BUT_SPACE}][{JS_SPACE_CLASS}]*|\\x20[{JS_SPACE_CLASS}]+"
)


def normalize_whitespace_lower(text: str) -> str:
    """Lowercase, every whitespace run as one space, trimmed (pi's normalizeWhitespaceLower)."""
    return collapse_whitespace(text.lower())


def collapse_whitespace(text: str) -> str:
    """Every whitespace run as one space, trimmed (JavaScript's `\\s`)."""
    return js_trim(_JS_SPACE_RUN_TO_COLLAPSE.sub(" ", text))


def parse_duration(text: str) -> float:
    """`7d`, `@2w`, `3mo`, `12h`, `1y` in milliseconds; raises ValueError with the reason."""
    spelled = text.strip()
    found = _DURATION.fullmatch(spelled.removeprefix("@"))
    if found is None:
        raise ValueError(f"not a duration: {spelled!r} (say 12h, 7d, 2w, 3mo or 1y)")
    count = int(found.group(1))
    if count <= 0:
        raise ValueError(f"not a duration: {spelled!r} (the count must be above 0)")
    return count * DURATION_UNITS_MS[found.group(2).lower()]


@dataclass(frozen=True, slots=True)
class QueryToken:
    kind: TokenKind
    value: str

    @property
    def matched_as(self) -> str:
        """What is looked for: the value lowercased (a phrase: also whitespace-normalized;
        an empty phrase matches nothing and is skipped, as in pi)."""
        return self.value.lower() if self.kind == "fuzzy" else normalize_whitespace_lower(self.value)


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    mode: Literal["tokens", "regex"]
    tokens: tuple[QueryToken, ...] = ()
    # Translated from JavaScript; it reads UTF-16 units (astral characters as surrogate pairs).
    regex: regex.Pattern[str] | None = None
    error: str | None = None
    text: str = ""  # the query, trimmed
    # Only sessions active (pi's `modified`) within this many milliseconds before now.
    window_ms: float | None = None
    cut: bool = False  # the query was longer than MAX_QUERY_CHARS: `text` is its start

    @property
    def is_blank(self) -> bool:
        """A blank query: every session, in the given order (`""` is not blank: it matches all
        with score 0, so "relevance" still sorts them newest first)."""
        return not self.text and self.window_ms is None

    @property
    def matches_everything(self) -> bool:
        """No token and no pattern: only the time window (if any) decides."""
        return self.mode == "tokens" and not self.tokens

    def within(self, window_ms: float | None) -> ParsedQuery:
        """The same query, limited to the narrower of its window and `window_ms`."""
        if window_ms is None:
            return self
        narrowest = window_ms if self.window_ms is None else min(self.window_ms, window_ms)
        return replace(self, window_ms=narrowest)


def parse_query(text: str, window_ms: float | None = None) -> ParsedQuery:
    """pi's parseSearchQuery, plus `@7d`-style time filters (and `window_ms` from elsewhere),
    on at most the first MAX_QUERY_CHARS characters of the trimmed query."""
    trimmed = js_trim(text)
    if len(trimmed) <= MAX_QUERY_CHARS:
        return _parse(trimmed).within(window_ms)
    return replace(_parse(js_trim(trimmed[:MAX_QUERY_CHARS])), cut=True).within(window_ms)


def _parse(trimmed: str) -> ParsedQuery:
    if not trimmed:
        return ParsedQuery("tokens")
    windows, rest = _leading_windows(trimmed)
    if rest.startswith("re:"):
        return _parse_regex(trimmed, rest[3:], windows)
    bad = ""
    kept: list[QueryToken] = []
    for token in _split_tokens(trimmed):
        window = _WINDOW_WORD.fullmatch(token.value) if token.kind == "fuzzy" else None
        if window is None:
            kept.append(token)
        elif int(window.group(1)) <= 0:
            bad = bad or token.value
        else:
            windows.append(int(window.group(1)) * DURATION_UNITS_MS[window.group(2).lower()])
    if bad:
        return ParsedQuery("tokens", error=f"{bad}: a time filter needs a count above 0", text=trimmed)
    return ParsedQuery("tokens", tuple(kept), text=trimmed, window_ms=min(windows, default=None))


def _leading_windows(trimmed: str) -> tuple[list[float], str]:
    """Time filters before a `re:` pattern, and the pattern part; ([], trimmed) otherwise."""
    windows: list[float] = []
    rest = trimmed
    while (found := _WINDOW_WORD.fullmatch(_split_first_word(rest)[0])) and int(found.group(1)) > 0:
        windows.append(int(found.group(1)) * DURATION_UNITS_MS[found.group(2).lower()])
        rest = _split_first_word(rest)[2]
    if windows and rest.startswith("re:"):
        return windows, rest
    return [], trimmed


def _split_first_word(text: str) -> tuple[str, str, str]:
    found = _JS_SPACE_RUN.search(text)
    if found is None:
        return text, "", ""
    return text[: found.start()], found.group(), text[found.end() :]


def _parse_regex(trimmed: str, source: str, windows: list[float]) -> ParsedQuery:
    window = min(windows, default=None)
    pattern = js_trim(source)
    if not pattern:
        return ParsedQuery("regex", error="Empty regex", text=trimmed, window_ms=window)
    try:
        compiled = compile_js_regex(pattern)
    except JsRegexError as e:
        error = f"Invalid regular expression: /{pattern}/i: {e}"
        return ParsedQuery("regex", error=error, text=trimmed, window_ms=window)
    return ParsedQuery("regex", regex=compiled, text=trimmed, window_ms=window)


def _split_tokens(trimmed: str) -> list[QueryToken]:
    """pi's tokenizer: words, "quoted phrases"; unbalanced quotes give plain words."""
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
        return [QueryToken("fuzzy", w) for w in _JS_SPACE_RUN.split(trimmed) if w]
    flush("fuzzy")
    return tokens
