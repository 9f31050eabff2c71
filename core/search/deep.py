"""Deep search: every session file read on demand, hits streamed as they are found.

The tool output of thousands of sessions does not fit in memory, so a deep query reads each
file when it gets to it (run it in a worker; pass `cancelled` so a stale query stops between
files). The file's bytes are screened first (`core.bytefilter`): a file that cannot hold a
token's text is not decoded, and of the others only the lines that may hold one are. The
exact match then runs on those entries (`core.session_search`, scope "deep").
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from ..common.jsvalues import js_string
from ..common.problems import SessionError
from ..listing.summary import SessionSummary
from ..session.session import Session
from .bytefilter import ByteFilter
from .hits import SearchHit
from .in_session import HitPlace, TreePlaces, deep_text
from .matching import REGEX_TIME_LIMIT, SearchCancelled, match_session
from .query import ParsedQuery
from .texts import SegmentedText

__all__ = ["DeepHit", "deep_search"]


@dataclass(frozen=True, slots=True)
class DeepHit:
    """A session that matched in deep scope, and where."""

    hit: SearchHit[SessionSummary]
    place: HitPlace

    @property
    def summary(self) -> SessionSummary:
        return self.hit.item


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
    byte_filter = ByteFilter(query)
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
        found = _match_file(summary, query, byte_filter, time_limit)
        if found is not None:
            yield found


def _match_file(
    summary: SessionSummary,
    query: ParsedQuery,
    byte_filter: ByteFilter,
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
    screen = byte_filter.screen(data)
    if screen.nothing_in_text:  # the fields without the text decide
        if without_text is None:
            return None
        return DeepHit(without_text, HitPlace(None, without_text.field, None, None))
    try:
        session = Session.from_bytes(data, summary.path)
    except SessionError:
        return None
    text = deep_text(session, screen.keep)
    hit = match_session(query, summary, name, session_id, cwd, text, time_limit)
    if hit is None:
        return None
    return DeepHit(hit, TreePlaces(session).hit_place(hit.entry_id, hit.field))
