"""Keeping the index current with the session files: a stat per file, and only the files
that changed are read.

A file whose size, mtime and inode are what the index remembers is not opened. A new, grown
or rewritten file is read again whole (an appended line costs a re-read of that file: simple,
and exact whatever changed); a file no longer there is removed. Each file is one
transaction: its rows are replaced together, so a reader never sees half a session, and a run
stopped half-way keeps every file it finished.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..common.locations import iter_session_files
from ..common.problems import SessionError
from ..session.session import Session
from .db import IndexDb, delete_index_file, in_memory, is_busy, open_index, stored, text_of
from .facts import SessionFacts, session_facts

__all__ = ["Progress", "RefreshReport", "refresh_index", "updated_index"]

# (files read so far, files to read, whether the index was empty before this run)
Progress = Callable[[int, int, bool], None]

_Stamp = tuple[int, int, int]  # size, mtime_ns, inode


@dataclass(slots=True)
class RefreshReport:
    sessions: int = 0  # files in the folder
    read: int = 0  # files read (new, grown or rewritten)
    removed: int = 0  # files gone from the folder, dropped from the index
    first_build: bool = False


def updated_index(
    root: str, use_file: bool = True, base: Path | None = None, progress: Progress | None = None
) -> tuple[IndexDb, RefreshReport]:
    """The index of `root`, brought up to date. Damage found on the way (a file that opened
    but is corrupt inside) means one more build from nothing; a file another process keeps
    locked past the timeout means an index in memory for this run. Both say so in `notice`."""
    db = open_index(root, use_file, base)
    try:
        return db, refresh_index(db, root, progress)
    except sqlite3.Error as e:
        db.close()
        file = db.path
        if file is None:
            raise
        if is_busy(e):
            db = IndexDb(in_memory(root), None, f"index {file} is busy ({e}); reading every file")
        else:
            delete_index_file(file)
            db = open_index(root, use_file, base)
            db.notice = f"index {db.path} was corrupt ({e}); rebuilt"
    return db, refresh_index(db, root, progress)


def refresh_index(db: IndexDb, root: str, progress: Progress | None = None) -> RefreshReport:
    conn = db.conn
    present: dict[str, _Stamp] = {}
    for path in iter_session_files(root):
        stamp = _stamp(path)
        if stamp is not None:
            present[path] = stamp
    known = {
        text_of(row[0]) or "": (row[1], row[2], row[3])
        for row in conn.execute("SELECT path, size, mtime_ns, inode FROM sessions")
    }
    report = RefreshReport(sessions=len(present), first_build=not known)
    gone = [path for path in known if path not in present]
    if gone:
        with _transaction(conn):
            _remove(conn, gone)
        report.removed = len(gone)
    stale = sorted(path for path, stamp in present.items() if known.get(path) != stamp)
    for done, path in enumerate(stale):
        if progress is not None:
            progress(done, len(stale), report.first_build)
        stamp, facts, problem = _read(path, present[path])
        with _transaction(conn):
            _store(conn, path, stamp, facts, problem)
        report.read += 1
    if progress is not None and stale:
        progress(len(stale), len(stale), report.first_build)
    return report


def _stamp(path: str) -> _Stamp | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ino


def _read(path: str, stamp: _Stamp) -> tuple[_Stamp, SessionFacts | None, str | None]:
    """The facts of one file, with the stamp taken before reading it (a file that changes
    while it is read then looks changed to the next run, and is read again)."""
    stamp = _stamp(path) or stamp
    try:
        return stamp, session_facts(Session.open(path)), None
    except (SessionError, OSError, ValueError, RecursionError) as e:
        return stamp, None, str(e) or type(e).__name__


@contextlib.contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _remove(conn: sqlite3.Connection, paths: list[str]) -> None:
    for path in paths:
        row = conn.execute("SELECT id FROM sessions WHERE path = ?", (stored(path),)).fetchone()
        if row is not None:
            _forget_rows(conn, row[0])
            conn.execute("DELETE FROM sessions WHERE id = ?", (row[0],))


def _forget_rows(conn: sqlite3.Connection, session: int) -> None:
    conn.execute("DELETE FROM touches WHERE session = ?", (session,))
    conn.execute("DELETE FROM commands WHERE session = ?", (session,))


def _store(
    conn: sqlite3.Connection, path: str, stamp: _Stamp, facts: SessionFacts | None, problem: str | None
) -> None:
    size, mtime_ns, inode = stamp
    session_id = stored(facts.session_id) if facts else None
    cwd = stored(facts.cwd) if facts else ""
    leaf = stored(facts.default_leaf) if facts else None
    key_path, problem_text = stored(path), stored(problem)
    row = conn.execute("SELECT id FROM sessions WHERE path = ?", (key_path,)).fetchone()
    if row is None:
        cursor = conn.execute(
            "INSERT INTO sessions (path, size, mtime_ns, inode, session_id, cwd, default_leaf, problem)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (key_path, size, mtime_ns, inode, session_id, cwd, leaf, problem_text),
        )
        key = cursor.lastrowid
    else:
        key = row[0]
        _forget_rows(conn, key)
        conn.execute(
            "UPDATE sessions SET size = ?, mtime_ns = ?, inode = ?, session_id = ?, cwd = ?,"
            " default_leaf = ?, problem = ? WHERE id = ?",
            (size, mtime_ns, inode, session_id, cwd, leaf, problem_text, key),
        )
    if facts is None:
        return
    conn.executemany(
        "INSERT INTO touches (session, path, entry_id, action, verb, tool, error, timestamp, ts_ms,"
        " seq, on_active_path, in_context) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                key,
                stored(t.path),
                stored(t.entry_id),
                t.action,
                stored(t.verb),
                stored(t.tool),
                t.error,
                stored(t.timestamp),
                t.ts_ms,
                t.seq,
                t.on_active_path,
                t.in_context,
            )
            for t in facts.touches
        ],
    )
    conn.executemany(
        "INSERT INTO commands (session, entry_id, call_id, command, timestamp, ts_ms, seq, on_active_path)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                key,
                stored(c.entry_id),
                stored(c.call_id),
                stored(c.command),
                stored(c.timestamp),
                c.ts_ms,
                c.seq,
                c.on_active_path,
            )
            for c in facts.commands
        ],
    )
