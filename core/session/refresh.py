"""Keeping an open session current: what its file gained read and decoded (`read_update`, fit
for a worker thread: the session is not changed), then taken in (`take_update`), or the whole
file read again when it was replaced or cut (`adopt`).

`Session.refresh`, `prepare` and `apply` (core/session/session.py) are the way in; each change
is one `SessionDelta` (core/session/delta.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from ..common.problems import ProblemKind, SessionError
from ..reading.growth import Growth, GrowthSource, ReadMark, Stamp, Verdict, look_at, read_growth
from ..reading.lines import FileSource, ReadResult, read_values
from ..reading.records import EntryRecord, HeaderLine, decode_entries, decode_entry_at
from .delta import SessionDelta
from .ingest import ingest_lines, take_header
from .state import SessionState


@dataclass(slots=True)
class SessionUpdate:
    """A refresh read and decoded but not applied yet (`Session.prepare`, then `apply`)."""

    based_on: tuple[int, int]  # (generation, end offset) of the session it was read for
    mark: ReadMark | None = None  # where the session stops reading once this is applied
    lines: ReadResult[EntryRecord | HeaderLine] | None = None  # appended lines, decoded
    fresh: SessionState | None = None  # the whole file read again (it was replaced or truncated)
    truncated: bool = False


def version_of(session: SessionState) -> tuple[int, int]:
    """What an update is read for: the session's reading (generation) and how far it got."""
    return session.generation, session.end_offset


# Reads a whole file again: (path, its bytes, their stamp) -> a session of it (`Session._reread`).
Reread = Callable[[str, bytes, Stamp], SessionState]


def read_update(
    session: SessionState, reread: Reread, growth: Growth | None = None, *, renamed: bool = False
) -> SessionUpdate:
    """`Session.prepare`: what the file gained since `session` read it, not taken in."""
    mark = session._mark
    if renamed and mark is not None:
        mark = replace(mark, ctime_ns=-1)
    if mark is None or not isinstance(session.source, FileSource):
        return SessionUpdate(version_of(session))
    path = session.source.path
    if growth is None:
        growth = look_at(path, [mark])
    try:
        verdict = growth.verdict(mark)
    except KeyError:  # that look did not read what this session needs to judge it
        return read_update(session, reread, read_growth(growth.path, [mark]), renamed=renamed)
    if verdict is Verdict.UNCHANGED:
        return SessionUpdate(version_of(session), mark=mark.advanced(b"", growth.stamp))
    if verdict is Verdict.GREW:
        lines = read_values(
            GrowthSource(growth),
            decode_entry_at,
            session.end_offset,
            session.end_line,
            growth.size,
            decode_chunk=decode_entries,
        )
        consumed = growth.span(session.end_offset, lines.end_offset)
        return SessionUpdate(version_of(session), mark.advanced(consumed, growth.stamp), lines)
    path = growth.path  # (the file may have been renamed since the session was opened)
    try:
        fresh = reread(path, growth.since(0), growth.stamp)
    except SessionError as e:
        raise SessionError(f"{e} ({path} was rewritten)") from None
    cut = growth.stamp.inode == mark.inode and growth.size < session.end_offset
    return SessionUpdate(version_of(session), fresh=fresh, truncated=cut)


def take_update(session: SessionState, update: SessionUpdate) -> SessionDelta:
    """Take in what `read_update` read: the records appended (the tree kept current, or built
    again), or the file read again."""
    delta = SessionDelta(previous_leaf=session.default_leaf)
    if update.fresh is not None:
        adopt(session, update.fresh)
        delta.reloaded, delta.truncated = True, update.truncated
        return delta
    if update.mark is not None:
        session._mark = update.mark
    result = update.lines
    if result is None:
        return delta
    session.end_offset, session.end_line, session.pending_bytes = (
        result.end_offset,
        result.end_line,
        result.pending_bytes,
    )
    session.problems = [p for p in session.problems if p.kind != ProblemKind.PARTIAL_LAST_LINE]
    session.problems.extend(result.problems)
    lines = iter(result.lines)
    if session.header is None:
        first = next(lines, None)
        if first is None:
            return delta
        take_header(session, first)
        delta.header_appeared = True
    rebuild = False
    for line in lines:
        added = ingest_lines(session, [line])
        if not added:
            continue
        record = added[0]
        delta.new_records.append(record)
        if not rebuild:
            attached, problem = (False, None) if session.last_was_duplicate else session.tree.attach(record)
            if problem is not None:
                session.problems.append(problem)
            rebuild = not attached
    if session._migration is not None and session._migration.has_pending:
        session._migration.finish(session.parsed_count)
    if rebuild:
        session.build_tree()
        delta.tree_rebuilt = True
    return delta


def adopt(session: SessionState, fresh: SessionState) -> None:
    """`session` becomes `fresh` (its file read again), staying the object everyone holds."""
    source, path, generation, tree_version = (
        session.source,
        session.path,
        session.generation,
        session.tree_version,
    )
    session.__dict__.update(fresh.__dict__)
    session.source, session.path = source, path
    session.generation = generation + 1
    session.tree_version = tree_version + 1  # what was derived from the old tree is stale
