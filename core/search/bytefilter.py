"""Which lines of a session file may hold a query's tokens, decided on the file's raw bytes.

A token's text can only be in a line whose bytes hold every plain ASCII run of the token (in
any ASCII case), so a file without them needs no decoding, and of a file with them only those
lines do. This is exact for what JSON can hold: runs exclude what JSON escapes (`"`, `\\`,
`/`, controls) and whitespace (a phrase's whitespace matches any run of it); a file that
spells one of the runs' characters as a `\\u` escape, or holds one of the two characters that
lowercase to ASCII letters (KELVIN SIGN for k, LATIN CAPITAL LETTER I WITH DOT ABOVE for i),
is not filtered at all. A `re:` pattern is never filtered.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..reading.records import EntryRecord
from .query import ParsedQuery, QueryToken

if TYPE_CHECKING:
    import regex

__all__ = ["ByteFilter", "Screen"]

_NOT_IN_A_RUN = re.compile(r'[^\x21-\x7e]|["\\/]')
# Characters whose lowercase is an ASCII letter, in UTF-8 and as JSON escapes.
_LOWERING_TO = {ord("k"): (b"\xe2\x84\xaa", "212a"), ord("i"): (b"\xc4\xb0", "0130")}
# ASCII case-insensitive bytes patterns: as fast as a plain search, and no lowercased copy.
_Runs = list["regex.Pattern[bytes]"]


def _runs(token: QueryToken) -> list[bytes] | None:
    """The ASCII runs every occurrence of the token's text contains; None when it has none."""
    runs = [run.encode("ascii") for run in _NOT_IN_A_RUN.split(token.matched_as) if run]
    return runs or None


def _pattern(run: bytes) -> regex.Pattern[bytes]:
    import regex

    return regex.compile(regex.escape(run), regex.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Screen:
    """What the bytes say about one file."""

    nothing_in_text: bool  # no token can be in the file's text
    keep: Callable[[EntryRecord], bool] | None  # the lines worth decoding; None: every line


_EVERYTHING = Screen(False, None)


class ByteFilter:
    """A query's pre-filter, prepared once and applied to many files."""

    def __init__(self, query: ParsedQuery) -> None:
        self.active = query.mode == "tokens" and query.error is None
        runs = [_runs(t) for t in query.tokens if t.matched_as]
        self._patterns: list[_Runs | None] = [
            None if r is None else [_pattern(run) for run in r] for r in runs
        ]
        self.active = self.active and bool(runs)
        chars = {c for r in runs if r is not None for run in r for c in run}
        chars |= {ord(chr(c).upper()) for c in chars}
        escapes = [f"00{c:02x}" for c in sorted(chars)]
        self._raw: list[bytes] = []
        for lower, (utf8, escape) in _LOWERING_TO.items():
            if lower in chars:
                self._raw.append(utf8)
                escapes.append(escape)
        hexes = "|".join("".join(f"[{h}{h.upper()}]" if h.isalpha() else h for h in e) for e in escapes)
        self._escaped = re.compile(rb"\\u(?:" + hexes.encode() + rb")") if escapes else None

    def _hidden(self, data: bytes) -> bool:
        """The file may spell a run's characters in a way a bytes search does not see."""
        if any(spelled in data for spelled in self._raw):
            return True
        return self._escaped is not None and self._escaped.search(data) is not None

    def screen(self, data: bytes) -> Screen:
        if not self.active or self._hidden(data):
            return _EVERYTHING
        possible = [r for r in self._patterns if r is None or all(p.search(data) for p in r)]
        if not possible:
            return Screen(True, None)
        if any(r is None for r in possible):
            return _EVERYTHING  # a token without a run: any line may hold it
        checks = [r for r in possible if r is not None]

        def keep(record: EntryRecord) -> bool:
            start, end = record.offset, record.offset + record.length
            return any(all(p.search(data, start, end) for p in runs) for runs in checks)

        return Screen(False, keep)
