"""Reading a session's entry bodies back from its file: one at a time through the session's
cache (`BodyCache`, core/reading/bodies.py), many at a time in runs read together around the
bodies the cache holds (uncached: a walk over a whole path would push out what the panes keep).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import compress, count
from operator import attrgetter
from typing import Any

from ..reading.bodies import read_body, read_body_runs, read_message_runs
from ..reading.records import EntryRecord
from .state import SessionState

_index_of = attrgetter("index")


def entry_dict(session: SessionState, record: EntryRecord) -> dict[str, Any]:
    """The full entry as pi holds it (after migration), read back by byte offset."""
    # Cached by index: only a record of this reading may use it (one kept from before a
    # reload has the index of some other entry now).
    current = record.index < len(session.records) and session.records[record.index] is record
    cached = session._bodies.get(record.index) if current else None
    if cached is not None:
        return cached
    value = read_body(session.source, record, session._migration)
    if current:
        session._bodies.put(record.index, value, record.length)
        session._bodies_kept = True
    return value


def entry_message_runs(session: SessionState, records: Sequence[EntryRecord]) -> Iterator[list[Any]]:
    """The `message` of each of `records` (message entries), in order, a read at a time
    as `entry_dict_runs` gives bodies; uncached, only the messages are decoded."""
    if session._migration is not None:
        for bodies in entry_dict_runs(session, records):
            yield [body.get("message") for body in bodies]
        return
    for run, cached in split_at_cached(session, records):
        if cached is not None:
            yield [cached.get("message")]
        else:
            yield from read_message_runs(session.source, run)


def entry_dict_runs(session: SessionState, records: Sequence[EntryRecord]) -> Iterator[list[dict[str, Any]]]:
    """`entry_dicts`, a read at a time: lists that together hold the bodies of `records`,
    in order (for callers that take a run in one step)."""
    for run, cached in split_at_cached(session, records):
        if cached is not None:
            yield [cached]
        else:
            yield from read_body_runs(session.source, run, session._migration)


def split_at_cached(
    session: SessionState, records: Sequence[EntryRecord]
) -> Iterator[tuple[Sequence[EntryRecord], dict[str, Any] | None]]:
    """`records` in order, as (a run of them whose bodies are not cached, None) and
    ((), the cached body of one). The cache holds a few hundred bodies at most: they are
    found among the records without a Python step per record (a context of 100,000
    entries whose last few bodies were read)."""
    kept = session._bodies.indexes() if session._bodies_kept else None
    start = 0
    if kept:
        own = session.records
        for at in compress(count(), map(kept.__contains__, map(_index_of, records))):
            record = records[at]
            current = record.index < len(own) and own[record.index] is record
            cached = session._bodies.get(record.index) if current else None
            if cached is None:
                continue
            if at > start:
                yield records[start:at], None
            yield (), cached
            start = at + 1
    if start < len(records):
        yield (records[start:] if start else records), None
