"""A search hit: one session that matched, where it matched, and its excerpt on demand.

A hit in the text knows its place in the session's prepared text (`core.searchtext`): which
segment (message) holds it, which entry when the text knows its entries, and the excerpt that
shows it, cut at any width when a row is drawn. A hit in the name, id or cwd shows that field.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from .excerpt import Excerpt, cut_excerpt
from .texts import FIELD_MESSAGE, MessageText, SegmentedText, TextMatch

__all__ = ["EXCERPT_WIDTH", "FIELD_CWD", "FIELD_ID", "FIELD_MESSAGE", "FIELD_NAME", "SearchHit", "Text"]

FIELD_NAME = "name"
FIELD_ID = "id"
FIELD_CWD = "cwd"
EXCERPT_WIDTH = 60

Text = MessageText | SegmentedText
T = TypeVar("T")


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
