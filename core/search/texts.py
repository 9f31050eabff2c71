"""A session's searchable text: its segments (one per message or field), prepared once.

Two ways of joining segments:
- `MessageText` is pi's allMessagesText: every user/assistant text joined with " ", so a
  phrase or a pattern may run from one message into the next, exactly as in pi's picker.
- `SegmentedText` matches each segment on its own (deep search: a tool output, a thinking
  block, a label), and knows which entry and field every segment came from.

Both keep one normalized copy of the whole (lowercased, whitespace runs as one space) for
substring scans, and find out lazily, only for the hits that are shown, which segment a match
is in and what excerpt shows it. A match position is in one of two coordinate systems: the
normalized text (tokens and phrases) or the original text in UTF-16 code units (`re:`).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from ..common.jsvalues import utf16_units
from .excerpt import Excerpt, cut_excerpt
from .query import collapse_whitespace, normalize_whitespace_lower

if TYPE_CHECKING:
    import regex

__all__ = ["FIELD_MESSAGE", "MessageText", "Owner", "SegmentedText", "TextMatch"]

FIELD_MESSAGE = "message"  # user and assistant text (pi's allMessagesText)
_SEPARATOR = "\x00"  # between the segments of a SegmentedText: no token contains it


class Owner(NamedTuple):
    """Where a segment comes from: the entry (None when unknown) and the field."""

    entry_id: str | None
    field: str


class TextMatch(NamedTuple):
    """A match in a text: [start, end) in the normalized text, or in UTF-16 units."""

    start: int
    end: int
    utf16: bool = False


class _Segmented:
    __slots__ = ("_starts", "_utf16_starts", "count", "normalized", "owners", "segments")

    segments: Sequence[str]
    owners: Sequence[Owner] | None
    count: int  # segments taken so far (a growing session's list grows in place)
    normalized: str
    _starts: list[int] | None
    _utf16_starts: list[int] | None

    def find(self, value: str) -> TextMatch | None:
        raise NotImplementedError

    def search(self, pattern: regex.Pattern[str], timeout: float) -> TextMatch | None:
        raise NotImplementedError

    def _normalized_starts(self) -> list[int]:
        raise NotImplementedError

    # ------------------------------------------------------------------ where a match is
    def segment_starts(self, utf16: bool = False) -> list[int]:
        """Where each segment starts in the whole text (normalized, or in UTF-16 units)."""
        if utf16:
            if self._utf16_starts is None:
                sizes = (len(utf16_units(s)) for s in self.segments[: self.count])
                self._utf16_starts = _cumulative(sizes, 1)
            return self._utf16_starts
        if self._starts is None:
            self._starts = self._normalized_starts()
        return self._starts

    def locate(self, match: TextMatch) -> tuple[int, int, int]:
        """(segment, start, end) of a match, within that segment's own coordinates."""
        starts = self.segment_starts(match.utf16)
        k = max(0, bisect_right(starts, match.start) - 1)
        if k >= self.count:
            return k, 0, 0
        return k, match.start - starts[k], match.end - starts[k]

    def segment_text(self, segment: int) -> str | None:
        return self.segments[segment] if 0 <= segment < self.count else None

    def owner(self, segment: int) -> Owner | None:
        owners = self.owners
        return owners[segment] if owners is not None and segment < len(owners) else None

    def field_of(self, match: TextMatch) -> str:
        if self.owners is None:
            return FIELD_MESSAGE
        owner = self.owner(self.locate(match)[0])
        return owner.field if owner is not None else FIELD_MESSAGE

    def excerpt(self, match: TextMatch, width: int, needles: Iterable[str] = ()) -> Excerpt:
        """The segment holding `match`, cut around it to `width` cells."""
        k, start, end = self.locate(match)
        segment = self.segments[k] if k < self.count else ""
        flat = collapse_whitespace(segment)
        if match.utf16:
            flat_start, flat_end = _flat_of_utf16(segment, start), _flat_of_utf16(segment, end)
        else:
            normalized = normalize_whitespace_lower(segment)
            flat_start = _flat_of_normalized(flat, normalized, start)
            flat_end = _flat_of_normalized(flat, normalized, end)
        return cut_excerpt(flat, flat_start, flat_end, width, needles)


class MessageText(_Segmented):
    """pi's allMessagesText: the segments joined with " " (matches may cross segments)."""

    def __init__(self, segments: Sequence[str], owners: Sequence[Owner] | None = None) -> None:
        self.segments = segments
        self.owners = owners
        self.count = 0
        self.normalized = ""
        self._starts = self._utf16_starts = None
        self.extend()

    def extend(self) -> bool:
        """Take the segments appended since the last look; True if there were any."""
        count = len(self.segments)
        if count <= self.count:
            return False
        # Normalizing the parts and joining them with " " gives exactly pi's normalized join:
        # the joining space merges with the whitespace at the edges of each part.
        added = normalize_whitespace_lower(" ".join(self.segments[self.count : count]))
        if added:
            self.normalized = f"{self.normalized} {added}" if self.normalized else added
        self.count = count
        self._starts = self._utf16_starts = None
        return True

    def original(self) -> str:
        return " ".join(self.segments[: self.count])

    def find(self, value: str) -> TextMatch | None:
        start = self.normalized.find(value)
        return TextMatch(start, start + len(value)) if start >= 0 else None

    def search(self, pattern: regex.Pattern[str], timeout: float) -> TextMatch | None:
        """Raises TimeoutError past `timeout` seconds."""
        found = pattern.search(utf16_units(self.original()), timeout=timeout)
        return TextMatch(found.start(), found.end(), True) if found else None

    def _normalized_starts(self) -> list[int]:
        starts: list[int] = []
        position = 0
        for segment in self.segments[: self.count]:
            starts.append(position)
            size = len(normalize_whitespace_lower(segment))
            if size:
                position += size + 1
        return starts


class SegmentedText(_Segmented):
    """Segments matched one at a time, each with its owner (entry and field)."""

    def __init__(self, segments: Sequence[str], owners: Sequence[Owner]) -> None:
        self.segments = segments
        self.owners = owners
        self.count = len(segments)
        parts = [normalize_whitespace_lower(s) for s in segments]
        self.normalized = _SEPARATOR.join(parts)
        self._starts = _cumulative((len(p) for p in parts), 1)
        self._utf16_starts = None

    def find(self, value: str) -> TextMatch | None:
        if _SEPARATOR in value:
            return None
        start = self.normalized.find(value)
        return TextMatch(start, start + len(value)) if start >= 0 else None

    def search(self, pattern: regex.Pattern[str], timeout: float) -> TextMatch | None:
        """Each segment on its own (`^` and `$` are its edges); raises TimeoutError."""
        position = 0
        for segment in self.segments:
            units = utf16_units(segment)
            found = pattern.search(units, timeout=timeout)
            if found:
                return TextMatch(position + found.start(), position + found.end(), True)
            position += len(units) + 1
        return None

    def _normalized_starts(self) -> list[int]:
        # Built with the text already; made again the same way should it ever be dropped.
        return _cumulative((len(normalize_whitespace_lower(s)) for s in self.segments), 1)


def _cumulative(sizes: Iterable[int], separator: int) -> list[int]:
    starts: list[int] = []
    position = 0
    for size in sizes:
        starts.append(position)
        position += size + separator
    return starts


def _flat_of_normalized(flat: str, normalized: str, index: int) -> int:
    """An index into the normalized (lowercased) text as an index into the flat one."""
    if len(flat) == len(normalized):
        return min(index, len(flat))
    # Lowercasing changed some lengths ("İ" is two characters lowercased): walk.
    consumed = 0
    for position, ch in enumerate(flat):
        if consumed >= index:
            return position
        consumed += len(ch.lower())
    return len(flat)


def _flat_of_utf16(segment: str, index: int) -> int:
    """An index into `segment` in UTF-16 units as an index into its flat text."""
    units = utf16_units(segment)
    head = units[:index]
    if units is not segment:
        head = head.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return max(0, len(collapse_whitespace(head + "x")) - 1)
