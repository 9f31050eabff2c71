"""`push`: this machine's session files into the store, a transaction per file, only what it lacks."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec

from ..common.locations import iter_session_files
from .pushplan import Plan, Redact, RedactFor, Stored, lines_from, plan_push
from .schema import check_schema

if TYPE_CHECKING:
    from .connect import Connection

_UPSERT = """
    INSERT INTO pi_sessions.sessions (host, path) VALUES (%s, %s)
    ON CONFLICT (owner, host, path) DO UPDATE SET host = EXCLUDED.host
    RETURNING id, size, digest"""
_UPDATE = """
    UPDATE pi_sessions.sessions
    SET size = %s, digest = %s, mtime_ns = %s, inode = %s, session_id = %s, pushed_at = now()
    WHERE id = %s"""

# The arrays go in binary (%b): as text, every byte of a line is sent as two hex digits and
# parsed back (three times the time of the whole push).
_INSERT = """
    INSERT INTO pi_sessions.lines (session, byte_offset, raw)
    SELECT %s, o, r FROM unnest(%b::int8[], %b::bytea[]) AS t(o, r)"""
BATCH_BYTES = 4 << 20
BATCH_LINES = 10_000


@dataclass(slots=True)
class PushReport:
    files: int = 0  # session files found
    sent: int = 0  # files that sent lines (new or grown)
    replaced: int = 0  # (of `sent`) files sent again whole: rewritten or truncated
    unchanged: int = 0
    lines: int = 0
    bytes: int = 0
    unreadable: list[tuple[str, str]] = field(default_factory=list)  # (path, why)


@dataclass(frozen=True, slots=True)
class _Known:
    size: int
    mtime_ns: int
    inode: int


def push(
    connection: Connection,
    root: str,
    host: str,
    redact: Redact | None = None,
    paths: Iterable[str] | None = None,
    on_file: Callable[[str, Plan], None] | None = None,
    redact_for: RedactFor | None = None,
) -> PushReport:
    """Push every session file under `root` (or only `paths`) as host `host`.

    A file whose size, mtime and inode are what the store recorded is not even read. Each
    other file goes in one transaction: killed in the middle, the store keeps that file as
    the previous push left it, and the next push sends it again. Files gone from the disk
    stay in the store (it is an archive). `connection` is in autocommit (`connect` gives one):
    a new file goes in one statement, its own transaction. `redact` is called for each line
    sent (None: stored byte for byte); `redact_for(path, data)` makes each file's own."""
    check_schema(connection)
    known = {
        path: _Known(size, mtime_ns, inode)
        for path, size, mtime_ns, inode in connection.execute(
            "SELECT path, size, mtime_ns, inode FROM pi_sessions.sessions"
            " WHERE owner = current_user AND host = %s",
            (host,),
        )
    }
    report = PushReport()
    for path in iter_session_files(root) if paths is None else paths:
        report.files += 1
        if not path.isascii():
            try:
                path.encode("utf-8")
            except UnicodeEncodeError:
                report.unreadable.append((path, "its name is not UTF-8 (the store keeps paths as text)"))
                continue
        try:
            st = os.stat(path)
            was = known.get(path)
            if was is not None and (was.size, was.mtime_ns, was.inode) == (
                st.st_size,
                st.st_mtime_ns,
                st.st_ino,
            ):
                report.unchanged += 1
                continue
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            report.unreadable.append((path, e.strerror or str(e)))
            continue
        # A file that grew between the stat and the read: its stamp is not the bytes' one.
        mtime_ns = st.st_mtime_ns if len(data) == st.st_size else 0
        if redact_for is not None:
            redact = redact_for(path, data)
        pushed = None
        if was is None:  # (a file the store has not seen: one statement, if it is not big)
            pushed = push_new_file(connection, host, path, data, mtime_ns, st.st_ino, redact)
        if pushed is None:
            pushed = push_file(connection, host, path, data, mtime_ns, st.st_ino, redact)
        plan, lines = pushed
        if plan.sends_nothing:
            report.unchanged += 1
        else:
            report.sent += 1
            report.replaced += plan.replace
            report.bytes += plan.size - plan.start
            report.lines += lines
        if on_file is not None:
            on_file(path, plan)
    return report


_NEW = """
    WITH s AS (
        INSERT INTO pi_sessions.sessions (host, path, session_id, size, digest, mtime_ns, inode)
        VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING id)
    INSERT INTO pi_sessions.lines (session, byte_offset, raw)
    SELECT s.id, o, r FROM s, unnest(%b::int8[], %b::bytea[]) AS t(o, r)"""


def push_new_file(
    connection: Connection,
    host: str,
    path: str,
    data: bytes,
    mtime_ns: int,
    inode: int,
    redact: Redact | None = None,
) -> tuple[Plan, int] | None:
    """A file not in the store, row and lines in one statement (its own transaction: most
    files of a first push are small, and a round trip each was most of its time). None when
    the file is too big for one statement or a push elsewhere stored it meanwhile."""
    import psycopg

    if len(data) > BATCH_BYTES:
        return None
    plan = plan_push(data, None)
    lines = list(lines_from(data, 0))
    if len(lines) > BATCH_LINES:
        return None
    offsets = [offset for offset, _ in lines]
    raws = [raw if redact is None else redact(raw) for _, raw in lines]
    row = (host, path, _session_id(data), plan.size, plan.digest, mtime_ns, inode, offsets, raws)
    try:
        connection.execute(_NEW, row)
    except psycopg.errors.UniqueViolation:
        return None
    return plan, len(lines)


def push_file(
    connection: Connection,
    host: str,
    path: str,
    data: bytes,
    mtime_ns: int,
    inode: int,
    redact: Redact | None = None,
) -> tuple[Plan, int]:
    """One file's push, in one transaction (the plan and the lines sent); the row is locked
    meanwhile, so two pushes of one file wait for each other."""
    with connection.transaction():
        row = connection.execute(_UPSERT, (host, path)).fetchone()
        assert row is not None
        stored = Stored(int(row[0]), int(row[1]), bytes(row[2]))
        plan = plan_push(data, stored)
        lines = 0
        if not plan.sends_nothing:
            if plan.replace or plan.start < stored.size:
                connection.execute(
                    "DELETE FROM pi_sessions.lines WHERE session = %s AND byte_offset >= %s",
                    (stored.id, plan.start),
                )
            lines = _insert_lines(connection, stored.id, data, plan.start, redact)
        connection.execute(_UPDATE, (plan.size, plan.digest, mtime_ns, inode, _session_id(data), stored.id))
    return plan, lines


def _insert_lines(
    connection: Connection, session: int, data: bytes, start: int, redact: Redact | None
) -> int:
    """The lines from `start` on, a batch per statement (COPY is refused under row-level
    security: arrays unnested instead)."""
    count = 0
    offsets: list[int] = []
    raws: list[bytes] = []
    size = 0
    for offset, raw in lines_from(data, start):
        offsets.append(offset)
        raws.append(raw if redact is None else redact(raw))
        size += len(raw)
        if size >= BATCH_BYTES or len(offsets) >= BATCH_LINES:
            connection.execute(_INSERT, (session, offsets, raws))
            count += len(offsets)
            offsets, raws, size = [], [], 0
    if offsets:
        connection.execute(_INSERT, (session, offsets, raws))
        count += len(offsets)
    return count


_HEADER = msgspec.json.Decoder(dict[str, Any])


def _session_id(data: bytes) -> str | None:
    """The id in the file's header line (None: no header yet, or not one)."""
    end = data.find(b"\n")
    try:
        header = _HEADER.decode(data if end < 0 else data[:end])
    except (msgspec.DecodeError, UnicodeDecodeError):
        return None
    value = header.get("id")
    return value if header.get("type") == "session" and isinstance(value, str) else None
