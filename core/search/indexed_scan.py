"""One plain token or phrase over the indexed sessions, field by field in bulk instead of
session by session: the commonest keystroke at 30,000 sessions.

`matching.scan_one_token` tries, per session, the name, the id, the text, the cwd and then the
letters scattered in the name or the cwd, and keeps the first that matches. Here each test runs
over every session at once: the few named sessions, all ids joined in one string (C's `find`),
the text rows the index gave, each distinct cwd once and each distinct (name, cwd) pair once
for the scattered letters; then the first test that matched decides, as there. The result is
the same list of positions and raw matches, in position order (tests/unit/search/
test_text_index.py runs both over the corpus).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence

from .fuzzy import fuzzy_match
from .hits import FIELD_CWD, FIELD_ID, FIELD_NAME
from .matching import (
    SINGLE_FIELDS,
    TEXT_SCORE,
    TIER_NAME,
    PreparedSession,
    RawMatch,
    Token,
    scattered_match,
    tier_score,
)
from .picker import SessionText
from .texts import FIELD_MESSAGE

__all__ = ["BULK_FROM", "Layout"]

BULK_FROM = 3  # a shorter value matches nearly every session: the loop is as good
_SEPARATOR = "\x00"


class Layout:
    """The indexed sessions' fields, arranged for tests in bulk (made with the index's
    entries; `positions` are theirs)."""

    __slots__ = (
        "_id_positions",
        "by_cwd_lower",
        "by_cwd_normalized",
        "by_name_cwd",
        "id_starts",
        "ids",
        "named",
        "of_row",
    )

    def __init__(
        self, entries: Sequence[PreparedSession[SessionText]], rowids: Sequence[tuple[int, int]]
    ) -> None:
        """`rowids`: (position, row id) of every indexed session, in position order."""
        self.of_row = {rowid: position for position, rowid in rowids}
        self.named: list[int] = []
        ids: list[str] = []
        self.id_starts: list[int] = []
        self.by_cwd_lower: dict[str, list[int]] = {}
        self.by_cwd_normalized: dict[str, list[int]] = {}
        self.by_name_cwd: dict[tuple[str, str], list[int]] = {}
        at = 0
        for position, _ in rowids:
            entry = entries[position]
            if entry.name:
                self.named.append(position)
            self.id_starts.append(at)
            ids.append(entry.id_lower)
            at += len(entry.id_lower) + 1
            self.by_cwd_lower.setdefault(entry.cwd_lower, []).append(position)
            self.by_cwd_normalized.setdefault(entry.cwd_normalized, []).append(position)
            self.by_name_cwd.setdefault((entry.name, entry.cwd), []).append(position)
        self.ids = _SEPARATOR.join(ids)
        self._id_positions = [position for position, _ in rowids]

    def fits(self, value: str) -> bool:
        return len(value) >= BULK_FROM and _SEPARATOR not in value

    def scan(
        self,
        entries: Sequence[PreparedSession[SessionText]],
        token: Token,
        rows: Iterable[int],
    ) -> dict[int, RawMatch]:
        """position -> raw match, for every indexed session `token` matches (`rows`: the
        index's rows whose text holds the token's value)."""
        value = token.value
        fuzzy = token.fuzzy
        found: dict[int, RawMatch] = {}
        name_field = SINGLE_FIELDS[FIELD_NAME]
        for position in self.named:
            entry = entries[position]
            name = entry.name_lower if fuzzy else entry.name_normalized
            if name and value in name:
                found[position] = (
                    tier_score(TIER_NAME, fuzzy_match(value, name).score),
                    name_field,
                    FIELD_NAME,
                    None,
                )
        id_raw: RawMatch = (TEXT_SCORE, SINGLE_FIELDS[FIELD_ID], FIELD_ID, None)
        ids, starts, id_positions = self.ids, self.id_starts, self._id_positions
        at = ids.find(value)
        while at >= 0:
            position = id_positions[bisect_right(starts, at) - 1]
            found.setdefault(position, id_raw)
            at = ids.find(value, at + 1)
        text_raw: RawMatch = (TEXT_SCORE, SINGLE_FIELDS[FIELD_MESSAGE], FIELD_MESSAGE, (0, len(value)))
        of_row = self.of_row
        setdefault = found.setdefault
        for rowid in rows:
            held = of_row.get(rowid)
            if held is not None:
                setdefault(held, text_raw)
        cwd_raw: RawMatch = (TEXT_SCORE, SINGLE_FIELDS[FIELD_CWD], FIELD_CWD, None)
        for cwd, positions in (self.by_cwd_lower if fuzzy else self.by_cwd_normalized).items():
            if value in cwd:
                for position in positions:
                    setdefault(position, cwd_raw)
        if fuzzy:
            for (name, cwd), positions in self.by_name_cwd.items():
                left = [p for p in positions if p not in found]
                if not left:
                    continue
                scattered = scattered_match(token, name, cwd)
                if scattered is not None:
                    raw: RawMatch = (scattered[0], SINGLE_FIELDS[scattered[1]], scattered[1], None)
                    for position in left:
                        found[position] = raw
        return found
