"""pi-tui's fuzzyMatch (pi 1.6.0): a query's characters in order in a text, scored like pi.

Lower scores are better: -5·k for the k-th consecutive matched character (index 0 counts as
following index -1, pi's quirk), +2 per skipped character, -10 at a word start, +0.1·index,
-100 for an exact match, +5 for retrying "v2" as "2v". Indices are UTF-16 code units, as in
JavaScript.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from ..common.jsvalues import JS_WHITESPACE, utf16_units

__all__ = ["FuzzyMatch", "fuzzy_match"]


class FuzzyMatch(NamedTuple):
    matches: bool
    score: float  # lower is better


_NO_MATCH = FuzzyMatch(False, 0.0)
_WORD_BOUNDARY_CHARS = frozenset(JS_WHITESPACE + "-_./:")
_LETTERS_THEN_DIGITS = re.compile(r"([a-z]+)([0-9]+)")
_DIGITS_THEN_LETTERS = re.compile(r"([0-9]+)([a-z]+)")


def _score_positions(text_lower: str, positions: Iterable[int]) -> float:
    score = 0.0
    last_index = -1
    consecutive = 0
    for i in positions:
        # pi's quirk: a match at index 0 counts as consecutive to the "previous" index -1.
        if last_index == i - 1:
            consecutive += 1
            score -= consecutive * 5
        else:
            consecutive = 0
            if last_index >= 0:
                score += (i - last_index - 1) * 2  # gap penalty
        if i == 0 or text_lower[i - 1] in _WORD_BOUNDARY_CHARS:
            score -= 10
        score += i * 0.1  # later matches cost slightly more
        last_index = i
    return score


def _match_query(query: str, text: str) -> FuzzyMatch:
    """`query` and `text` are already lowercased."""
    if not query:
        return FuzzyMatch(True, 0.0)
    if len(query) > len(text):
        return _NO_MATCH
    # Greedy alignment: each character at its first occurrence after the previous one.
    positions: list[int] = []
    last_index = -1
    for ch in query:
        last_index = text.find(ch, last_index + 1)
        if last_index < 0:
            return _NO_MATCH
        positions.append(last_index)
    score = _score_positions(text, positions)
    # A contiguous occurrence may score better than the greedy alignment.
    length = len(query)
    start = text.find(query)
    while start != -1:
        score = min(score, _score_positions(text, range(start, start + length)))
        start = text.find(query, start + 1)
    if query == text:
        score -= 100
    return FuzzyMatch(True, score)


def fuzzy_match(query: str, text: str) -> FuzzyMatch:
    """pi-tui's fuzzyMatch: `query`'s characters in order in `text`, case-insensitively.

    When that fails, a query of letters then digits ("v2") is retried as digits then letters
    ("2v"), and vice versa, at a cost of 5.
    """
    query_lower = utf16_units(query.lower())
    text_lower = utf16_units(text.lower())
    primary = _match_query(query_lower, text_lower)
    if primary.matches:
        return primary
    parts = _LETTERS_THEN_DIGITS.fullmatch(query_lower) or _DIGITS_THEN_LETTERS.fullmatch(query_lower)
    if parts is None:
        return primary
    swapped = _match_query(parts.group(2) + parts.group(1), text_lower)
    if not swapped.matches:
        return primary
    return FuzzyMatch(True, swapped.score + 5)
