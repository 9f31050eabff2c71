"""Deep search: every session file read on demand, hits streamed as they are found.

The tool output of thousands of sessions does not fit in memory, so a deep query reads each
file when it gets to it (run it in a worker; pass `cancelled` so a stale query stops between
files). A file is first scanned as bytes: a token whose plain ASCII runs are not all in the
file cannot be in its text, and only the lines that hold such runs are decoded. The exact
match then runs on those entries (see `core.session_search`, scope "deep").

The bytes test is exact for what JSON can hold: runs exclude characters JSON escapes (`"`,
`\\`, `/`, controls) and whitespace (a phrase's whitespace matches any run of it), and a file
that spells ASCII letters as `\\u` escapes, or holds one of the two characters that lowercase
to ASCII letters (KELVIN SIGN, LATIN CAPITAL LETTER I WITH DOT ABOVE), is decoded in full.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from .jsvalues import js_string
from .listing import SessionSummary
from .problems import SessionError
from .query import ParsedQuery, QueryToken
from .records import EntryRecord
from .search import REGEX_TIME_LIMIT, SearchCancelled, SearchHit, match_session
from .searchtext import SegmentedText
from .session import Session
from .session_search import HitPlace, TreePlaces, deep_text

__all__ = ["DeepHit", "deep_search"]

_NOT_IN_A_RUN = re.compile(r'[^\x21-\x7e]|["\\/]')
_ESCAPED_ASCII = re.compile(rb"\\u(?:00[2-7][0-9a-fA-F]|212[aA]|0130)")
_LOWERING_TO_ASCII = (b"\xe2\x84\xaa", b"\xc4\xb0")  # U+212A, U+0130 in UTF-8


@dataclass(frozen=True, slots=True)
class DeepHit:
    """A session that matched in deep scope, and where."""

    hit: SearchHit[SessionSummary]
    place: HitPlace

    @property
    def summary(self) -> SessionSummary:
        return self.hit.item


def _runs(token: QueryToken) -> list[bytes] | None:
    """The ASCII runs every occurrence of the token's text must contain; None when there is
    no such run (nothing to test the bytes with)."""
    runs = [run.encode("ascii") for run in _NOT_IN_A_RUN.split(token.matched_as) if run]
    return runs or None


def _filterable(data: bytes) -> bool:
    if any(spelled in data for spelled in _LOWERING_TO_ASCII):
        return False
    return not (b"\\u" in data and _ESCAPED_ASCII.search(data))


def _lines_holding(lower: bytes, checks: list[list[bytes]]) -> Callable[[EntryRecord], bool]:
    """Records whose line (lowercased bytes) holds every run of at least one token."""

    def keep(record: EntryRecord) -> bool:
        start, end = record.offset, record.offset + record.length
        return any(all(lower.find(run, start, end) >= 0 for run in runs) for runs in checks)

    return keep


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def deep_search(
    summaries: Iterable[SessionSummary],
    query: ParsedQuery,
    *,
    now_ms: float | None = None,
    cancelled: Callable[[], bool] | None = None,
    time_limit: float = REGEX_TIME_LIMIT,
) -> Iterator[DeepHit]:
    """Sessions that match `query` in deep scope, in the order given, as found.

    Raises `SearchCancelled` when `cancelled()` says so (looked at before each file) and
    `PatternTooSlow` when one match of a regular expression runs past `time_limit`."""
    if query.error is not None or query.is_blank:
        return
    cutoff = None
    if query.window_ms is not None:
        cutoff = (time.time() * 1000 if now_ms is None else now_ms) - query.window_ms
    tokens = [t for t in query.tokens if t.matched_as]
    runs = [_runs(t) for t in tokens]
    empty = SegmentedText([], [])
    for summary in summaries:
        if cancelled is not None and cancelled():
            raise SearchCancelled()
        if cutoff is not None and summary.modified_ms < cutoff:
            continue
        session_id, name, cwd = js_string(summary.id), summary.name, summary.cwd
        if query.mode == "tokens" and not tokens:
            hit = match_session(query, summary, name, session_id, cwd, empty, time_limit)
            if hit is not None:
                yield DeepHit(hit, HitPlace(None, hit.field, None, None))
            continue
        found = _match_file(summary, query, tokens, runs, time_limit)
        if found is not None:
            yield found


def _match_file(
    summary: SessionSummary,
    query: ParsedQuery,
    tokens: list[QueryToken],
    runs: list[list[bytes] | None],
    time_limit: float,
) -> DeepHit | None:
    session_id, name, cwd = js_string(summary.id), summary.name, summary.cwd
    empty = SegmentedText([], [])
    # A match in the name or the id comes before the text (pi's order): no need to read.
    without_text = match_session(query, summary, name, session_id, cwd, empty, time_limit)
    if without_text is not None and all(f in ("name", "id") for f in without_text.fields):
        return DeepHit(without_text, HitPlace(None, without_text.field, None, None))
    data = _read(summary.path)
    if data is None:
        return None
    keep: Callable[[EntryRecord], bool] | None = None
    if query.mode == "tokens" and _filterable(data):
        lower = data.lower()
        possible = [r for r in runs if r is None or all(run in lower for run in r)]
        if not possible:  # no token can be in the text: the fields without it decide
            if without_text is None:
                return None
            return DeepHit(without_text, HitPlace(None, without_text.field, None, None))
        if all(r is not None for r in possible):
            keep = _lines_holding(lower, [r for r in possible if r is not None])
    try:
        session = Session.from_bytes(data, summary.path)
    except SessionError:
        return None
    text = deep_text(session, keep)
    hit = match_session(query, summary, name, session_id, cwd, text, time_limit)
    if hit is None:
        return None
    return DeepHit(hit, TreePlaces(session).hit_place(hit.entry_id, hit.field))
