"""Excerpts: a stretch of text around a match, cut to fit a width, with the matched spans marked.

The width is in terminal cells (East Asian wide characters take two, combining marks none),
so a widget can show the excerpt whole and highlight `spans` without cutting the match off.
Control characters become spaces; everything else is left for the drawing layer to make
visible.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..common.glyphs import UNICODE

__all__ = ["ELLIPSIS", "Excerpt", "cell_width", "cut_excerpt"]

ELLIPSIS = UNICODE.ellipsis  # where an excerpt was cut (`Excerpt.marked` for another set)
WORD_SLACK = 12  # at most this many characters are dropped to cut at a space
_CONTROL_CHARS = re.compile("[\x00-\x1f\x7f]")


def _cells(ch: str) -> int:
    code = ord(ch)
    if code < 0x300:
        return 1
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def cell_width(text: str) -> int:
    """Terminal cells `text` takes (a close estimate: wide characters 2, combining marks 0)."""
    if text.isascii():
        return len(text)
    return sum(_cells(ch) for ch in text)


@dataclass(frozen=True, slots=True)
class Excerpt:
    """A stretch of text (whitespace collapsed) around a match."""

    text: str
    # Matched stretches of `text` as (start, end) offsets, the hit itself first.
    spans: tuple[tuple[int, int], ...] = ()
    # Where it was cut (`text` starts or ends with ELLIPSIS there); what `marked` replaces.
    cut_start: bool = field(default=False, compare=False)
    cut_end: bool = field(default=False, compare=False)

    def marked(self, ellipsis: str) -> Excerpt:
        """The same excerpt with `ellipsis` (ASCII `...`, say) where it was cut."""
        if ellipsis == ELLIPSIS or not (self.cut_start or self.cut_end):
            return self
        head = len(ELLIPSIS) if self.cut_start else 0
        body = self.text[head : len(self.text) - (len(ELLIPSIS) if self.cut_end else 0)]
        shift = len(ellipsis) - head if self.cut_start else 0
        text = (ellipsis if self.cut_start else "") + body + (ellipsis if self.cut_end else "")
        spans = tuple((start + shift, end + shift) for start, end in self.spans)
        return Excerpt(text, spans, self.cut_start, self.cut_end)

    @property
    def match_start(self) -> int:
        return self.spans[0][0] if self.spans else 0

    @property
    def match_end(self) -> int:
        return self.spans[0][1] if self.spans else 0

    def __str__(self) -> str:
        return self.text


def cut_excerpt(flat: str, start: int, end: int, width: int, also: Iterable[str] = ()) -> Excerpt:
    """At most `width` cells of `flat` around `flat[start:end]`, the match centred when it
    fits, whole words at the edges when a space is near, "…" where text was cut. `also`:
    more (lowercase) strings to mark where they occur in the excerpt."""
    n = len(flat)
    start = max(0, min(start, n))
    end = max(start, min(end, n))
    if width < 3:  # no room for an ellipsis: the first cells of the match
        right = start
        while right < n and cell_width(flat[start : right + 1]) <= width:
            right += 1
        body = _CONTROL_CHARS.sub(" ", flat[start:right])
        return Excerpt(body, ((0, min(end, right) - start),) if right > start else ())
    slack = min(WORD_SLACK, width // 6)
    left = right = start
    used = 0

    def fits(extra: int, new_left: int, new_right: int) -> bool:
        return used + extra + (new_left > 0) + (new_right < n) <= width

    while right < end and fits(_cells(flat[right]), left, right + 1):
        used += _cells(flat[right])
        right += 1
    # Left context: up to half of what is left, starting at a word when a space is near.
    budget = used + (width - used) // 2
    while (
        left > 0 and used + _cells(flat[left - 1]) <= budget and fits(_cells(flat[left - 1]), left - 1, right)
    ):
        left -= 1
        used += _cells(flat[left])
    left, used = _word_start(flat, left, start, slack, used)
    if right == end:  # the whole match fits: the rest of the width goes to the right context
        while right < n and fits(_cells(flat[right]), left, right + 1):
            used += _cells(flat[right])
            right += 1
        if right < n:
            space = flat.rfind(" ", max(end, right - slack), right + 1)
            if space >= 0:
                used -= cell_width(flat[space:right])
                right = space
    if right == n:  # the text ended first: give what is left to the left side
        moved = False
        while left > 0 and fits(_cells(flat[left - 1]), left - 1, right):
            left -= 1
            used += _cells(flat[left])
            moved = True
        if moved:
            left, used = _word_start(flat, left, start, slack, used)
    body = _CONTROL_CHARS.sub(" ", flat[left:right])
    prefix = ELLIPSIS if left > 0 else ""
    suffix = ELLIPSIS if right < n else ""
    offset = len(prefix) - left
    spans = [(start + offset, min(end, right) + offset)]
    spans.extend(_occurrences(body, also, len(prefix), spans))
    return Excerpt(prefix + body + suffix, tuple(spans), left > 0, right < n)


def _word_start(flat: str, left: int, start: int, slack: int, used: int) -> tuple[int, int]:
    """Move a cut `left` edge to the next word start, when one is within `slack` (not past
    the match at `start`)."""
    if left == 0:
        return left, used
    space = flat.find(" ", left - 1, min(start, left + slack))
    if space < 0:
        return left, used
    return space + 1, used - cell_width(flat[left : space + 1])


def _occurrences(
    body: str, needles: Iterable[str], offset: int, taken: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """Where `needles` occur in `body` (case-insensitively), outside the spans already taken."""
    lower = body.lower()
    if len(lower) != len(body):
        return []  # lowercasing changed lengths ("İ"): offsets would not line up
    found: list[tuple[int, int]] = []
    for needle in needles:
        if not needle:
            continue
        at = lower.find(needle)
        while at >= 0:
            span = (at + offset, at + offset + len(needle))
            if not any(s < span[1] and span[0] < e for s, e in taken + found):
                found.append(span)
            at = lower.find(needle, at + len(needle))
    found.sort()
    return found
