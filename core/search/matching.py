"""pi's matchSession (pi 1.6.0) on one prepared session, and the scores it gives.

Every token must match, each in any field; a token is looked for, in this order, in the
name, the id, the message text and the cwd, and failing that as a scattered subsequence of
the name or the cwd; a `re:` pattern is tried on the same fields. Scores are pi's: lower is
better, `tier * 1_000_000 + fuzzy score`, tiers name (0) / text (1) / fuzzy (2). Matching
gives a `RawMatch`; a `SearchHit` is made of it only for the rows someone looks at.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Container, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ..common.jsvalues import js_trim, utf16_units
from .fuzzy import FuzzyMatch, fuzzy_match
from .hits import FIELD_CWD, FIELD_ID, FIELD_NAME, SearchHit, Text
from .query import ParsedQuery, QueryToken, normalize_whitespace_lower
from .texts import FIELD_MESSAGE, SegmentedText, TextMatch

if TYPE_CHECKING:
    import regex

__all__ = [
    "BLANK_MATCH",
    "REGEX_TIME_LIMIT",
    "SINGLE_FIELDS",
    "TEXT_SCORE",
    "TIER_FUZZY",
    "TIER_NAME",
    "TIER_TEXT",
    "TIER_WEIGHT",
    "PatternTooSlow",
    "PreparedSession",
    "RawMatch",
    "SearchCancelled",
    "Token",
    "make_hit",
    "match_prepared",
    "match_session",
    "match_token",
    "scan_one_token",
    "scattered_match",
    "tier_score",
]

TIER_NAME = 0  # the token appears in the session name
TIER_TEXT = 1  # ... in the id, the message text or the cwd
TIER_FUZZY = 2  # its characters appear scattered in the name or the cwd
TIER_WEIGHT = 1_000_000

# A regular expression may backtrack for ages (`(a|aa)+$`): a search gives up after this long.
REGEX_TIME_LIMIT = 2.0

T = TypeVar("T")


class PatternTooSlow(Exception):
    """A `re:` pattern ran past its time limit (catastrophic backtracking, most likely)."""

    def __str__(self) -> str:
        return "pattern too slow: it backtracks too much to finish (simplify the regular expression)"


class SearchCancelled(Exception):
    """The caller's cancel callback said the query is stale."""


class PreparedSession(Generic[T]):
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


def _tier_score(tier: int, score: float = 0.0) -> float:
    return tier * TIER_WEIGHT + score


_NAME_SCORE = _tier_score(TIER_NAME)
_TEXT_SCORE = _tier_score(TIER_TEXT)
_FUZZY_SCORE = _tier_score(TIER_FUZZY)
TEXT_SCORE = _TEXT_SCORE


class Token:
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


def _match_token(entry: PreparedSession[T], token: Token) -> _TokenMatch | None:
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
    return scattered_match(token, entry.name, entry.cwd)


def scattered_match(token: Token, name: str, cwd: str) -> _TokenMatch | None:
    """The last resort of a plain token: its letters in order in the name or the cwd."""
    in_name = token.scattered(name) if name else _NO_MATCH
    in_cwd = token.scattered(cwd)
    if in_name.matches and (not in_cwd.matches or in_name.score <= in_cwd.score):
        return _FUZZY_SCORE + in_name.score, "name~", -1
    if in_cwd.matches:
        return _FUZZY_SCORE + in_cwd.score, "cwd~", -1
    return None


match_token = _match_token
_NO_MATCH = FuzzyMatch(False, 0.0)
_SEPARATOR = "\x00"


def _field_value(entry: PreparedSession[T], field: str) -> str:
    if field.startswith(FIELD_NAME):
        return entry.name
    if field == FIELD_ID:
        return entry.id
    return entry.cwd


# What matching one session gives, before a hit is made of it (hits are made for the rows
# that are looked at): (score, fields, the field shown, where in the text)
# (score, fields, the field shown, where in the text: a TextMatch, or (start, end) in the
# normalized text)
RawMatch = tuple[float, tuple[str, ...], str, TextMatch | tuple[int, int] | None]


def _match_regex(entry: PreparedSession[T], pattern: regex.Pattern[str], deadline: float) -> RawMatch | None:
    """`pattern` comes from `compile_js_regex`: it reads UTF-16 code units, as JavaScript does."""
    timeout = deadline - time.monotonic()
    try:
        if entry.name and pattern.search(utf16_units(entry.name), timeout=timeout):
            return _NAME_SCORE, SINGLE_FIELDS[FIELD_NAME], FIELD_NAME, None
        if pattern.search(utf16_units(entry.id), timeout=timeout):
            return _TEXT_SCORE, SINGLE_FIELDS[FIELD_ID], FIELD_ID, None
        found = entry.text.search(pattern, timeout)
        if found is not None:
            return _TEXT_SCORE, SINGLE_FIELDS[FIELD_MESSAGE], FIELD_MESSAGE, found
        if pattern.search(utf16_units(entry.cwd), timeout=timeout):
            return _TEXT_SCORE, SINGLE_FIELDS[FIELD_CWD], FIELD_CWD, None
    except TimeoutError:
        raise PatternTooSlow() from None
    return None


SINGLE_FIELDS = {f: (f,) for f in (FIELD_NAME, FIELD_ID, FIELD_MESSAGE, FIELD_CWD, "name~", "cwd~")}


def match_prepared(
    entry: PreparedSession[T], query: ParsedQuery, tokens: Sequence[Token], deadline: float
) -> RawMatch | None:
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


tier_score = _tier_score  # (for the index's bulk scan, core/search/indexed_scan.py)


def make_hit(entry: PreparedSession[T], raw: RawMatch, needles: tuple[str, ...]) -> SearchHit[T]:
    score, fields, shown, match = raw
    if match is not None:
        if type(match) is not TextMatch:
            match = TextMatch(match[0], match[1])
        return SearchHit(entry.item, score, fields, shown, entry.text, match, "", needles)
    value = _field_value(entry, shown) if shown else ""
    return SearchHit(entry.item, score, fields, shown, None, None, value, needles)


def scan_one_token(
    entries: list[PreparedSession[T]],
    candidates: Iterable[int],
    token: Token,
    accept: Callable[[PreparedSession[T]], bool] | None,
    cancelled: Callable[[], bool] | None,
    positions: list[int],
    raws: list[RawMatch],
    held: tuple[type[Any], Container[int]] | None = None,
) -> None:
    """`match_prepared` for the commonest query, one plain token or phrase, with the literal
    tests inlined (a keystroke over 30,000 sessions runs this loop 30,000 times). `held`:
    texts of that type are not in memory; whether one holds the value is whether its `rowid`
    is among the rows (core/search/indexed.py: the index's answer, a set lookup)."""
    held_type, rows = held if held is not None else (None, ())
    value = token.value
    size = len(value)
    fuzzy = token.fuzzy
    name_field, id_field = SINGLE_FIELDS[FIELD_NAME], SINGLE_FIELDS[FIELD_ID]
    message_field, cwd_field = SINGLE_FIELDS[FIELD_MESSAGE], SINGLE_FIELDS[FIELD_CWD]
    for count, position in enumerate(candidates):
        if cancelled is not None and not count & 255 and cancelled():
            raise SearchCancelled()
        entry = entries[position]
        if accept is not None and not accept(entry):
            continue
        name = entry.name_lower if fuzzy else entry.name_normalized
        if name and value in name:
            score = _tier_score(TIER_NAME, fuzzy_match(value, name).score)
            raw: RawMatch = (score, name_field, FIELD_NAME, None)
        elif value in entry.id_lower:
            raw = (_TEXT_SCORE, id_field, FIELD_ID, None)
        else:
            text: Any = entry.text  # (a held text is asked by its row: see `held`)
            at = (0 if text.rowid in rows else -1) if type(text) is held_type else text.normalized.find(value)
            if at >= 0:
                # A plain tuple, not a TextMatch: the collector stops tracking it (and the raw
                # match around it), so 30,000 live results cost nothing at each collection.
                raw = (_TEXT_SCORE, message_field, FIELD_MESSAGE, (at, at + size))
            elif value in (entry.cwd_lower if fuzzy else entry.cwd_normalized):
                raw = (_TEXT_SCORE, cwd_field, FIELD_CWD, None)
            elif not fuzzy:
                continue
            else:
                found = _match_token(entry, token)
                if found is None:
                    continue
                raw = (found[0], SINGLE_FIELDS[found[1]], found[1], None)
        positions.append(position)
        raws.append(raw)


def _fields(fields: list[str]) -> tuple[str, ...]:
    if len(fields) == 1:
        return SINGLE_FIELDS.get(fields[0]) or (fields[0],)
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
    entry = PreparedSession(item, name, id, cwd, 0.0, text)
    tokens = [Token(t) for t in query.tokens if t.matched_as]
    raw = match_prepared(entry, query, tokens, time.monotonic() + time_limit)
    return None if raw is None else make_hit(entry, raw, tuple(t.value for t in tokens))


BLANK_MATCH: RawMatch = (0.0, (), "", None)
