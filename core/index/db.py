"""The SQLite file of the index: where it lives, its schema, and opening it safely.

One file per sessions folder, under the user cache folder (the index cache's own
`default_cache_dir`). It is a cache: deleting it loses nothing, the next run builds it again.
WAL mode, so a browser and a command can use it at once. The schema's version is in
`PRAGMA user_version`; a file of another version, another sessions folder, or not a
database at all (corrupt, or someone else's) is deleted and built again, with a notice. When
no file can be used (an unwritable cache folder, `--no-cache`), the index lives in memory
for the one run.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import zlib
from dataclasses import dataclass
from pathlib import Path

from ..listing.index_cache import default_cache_dir

__all__ = [
    "FTS_TABLE",
    "SCHEMA_VERSION",
    "IndexDb",
    "delete_index_file",
    "in_memory",
    "index_file_path",
    "is_busy",
    "open_index",
    "stored",
    "text_of",
]

SCHEMA_VERSION = 3
_APPLICATION_ID = 0x70697378  # "pisx": a database of ours, whatever its version
_BUSY_MS = 10_000  # another process writing: wait for it rather than fail

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sessions (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    session_id TEXT,
    cwd TEXT NOT NULL DEFAULT '',
    default_leaf TEXT,
    problem TEXT
);
CREATE TABLE touches (
    session INTEGER NOT NULL,
    path TEXT NOT NULL,
    entry_id TEXT NOT NULL,
    action TEXT NOT NULL,
    verb TEXT NOT NULL,
    tool TEXT NOT NULL,
    error INTEGER NOT NULL,
    timestamp TEXT,
    ts_ms REAL,
    seq INTEGER NOT NULL,
    on_active_path INTEGER NOT NULL,
    in_context INTEGER NOT NULL
);
CREATE INDEX touches_by_path ON touches (path);
CREATE INDEX touches_by_session ON touches (session);
CREATE INDEX changes_by_time ON touches (ts_ms) WHERE action = 'changed';
CREATE TABLE commands (
    session INTEGER NOT NULL,
    entry_id TEXT NOT NULL,
    call_id TEXT,
    command TEXT NOT NULL,
    timestamp TEXT,
    ts_ms REAL,
    seq INTEGER NOT NULL,
    on_active_path INTEGER NOT NULL
);
CREATE INDEX commands_by_session ON commands (session);
CREATE INDEX commands_by_time ON commands (ts_ms);
CREATE TABLE text_files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    exact INTEGER NOT NULL,
    chars TEXT NOT NULL DEFAULT ''
);
"""
# The sidebar's search texts (core/search/text_index.py): one row per file of `text_files`,
# pi's allMessagesText normalized as the matcher sees it. The trigram tokenizer (SQLite 3.34
# and later) makes a quoted phrase an exact substring test; case-sensitive, since the text
# and the query are lowercased by Python already (SQLite's own folding differs).
FTS_TABLE = "message_texts"
_FTS_SCHEMA = f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5(text, tokenize='trigram case_sensitive 1')"


@dataclass(slots=True)
class IndexDb:
    conn: sqlite3.Connection
    path: Path | None  # None: in memory, for this run only
    notice: str | None = None  # why the file was built again, or why it is not used

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.conn.close()


def index_file_path(root: str, base: Path | None = None) -> Path:
    raw = root.encode("utf-8", "surrogateescape")
    digest = f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}"
    return (base if base is not None else default_cache_dir()) / f"index-{digest}.sqlite3"


def open_index(root: str, use_file: bool = True, base: Path | None = None) -> IndexDb:
    """The index for sessions folder `root`, ready to use (never raises for a bad file)."""
    if not use_file:
        return IndexDb(in_memory(root), None)
    path = index_file_path(root, base)
    notice: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn, notice = _open_file(path, root)
    except (OSError, sqlite3.Error) as e:
        return IndexDb(in_memory(root), None, f"index {path} not usable ({e}); reading every file")
    return IndexDb(conn, path, notice)


def _open_file(path: Path, root: str) -> tuple[sqlite3.Connection, str | None]:
    notice: str | None = None
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        raise OSError(f"{path} is not a regular file")
    if mode is not None:
        try:
            conn = _connect(path)
            why = _unusable(conn, root)
        except sqlite3.DatabaseError as e:
            why = f"corrupt ({e})"
            conn = None
        if why is None and conn is not None:
            return conn, None
        if conn is not None:
            conn.close()
        notice = f"index {path} was {why}; rebuilt"
        delete_index_file(path)
    conn = _connect(path)
    _create(conn, root)
    return conn, notice


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=_BUSY_MS / 1000, isolation_level=None, check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout = {_BUSY_MS}")
    # A cache: a commit need not reach the disk before the next file (WAL keeps it whole; a
    # crash loses at most the last files, which are read again). Per connection, so here.
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def _unusable(conn: sqlite3.Connection, root: str) -> str | None:
    """Why this database cannot be used as the index of `root` (None: it can)."""
    (app_id,) = conn.execute("PRAGMA application_id").fetchone()
    if app_id == 0 and conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
        _create(conn, root)  # empty: another process has only just created the file
        return None
    if app_id != _APPLICATION_ID:
        return "not an index of ours"
    (version,) = conn.execute("PRAGMA user_version").fetchone()
    if version != SCHEMA_VERSION:
        return f"of schema version {version} (this is {SCHEMA_VERSION})"
    row = conn.execute("SELECT value FROM meta WHERE key = 'root'").fetchone()
    if row is None or text_of(row[0]) != root:
        return "the index of another sessions folder"
    (mode,) = conn.execute("PRAGMA journal_mode = WAL").fetchone()
    if str(mode).lower() != "wal":
        return "not in WAL mode"
    return None


def _create(conn: sqlite3.Connection, root: str) -> None:
    conn.execute("PRAGMA journal_mode = WAL")
    _fill_schema(conn, root)


def _fill_schema(conn: sqlite3.Connection, root: str) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        (version,) = conn.execute("PRAGMA user_version").fetchone()
        if version != SCHEMA_VERSION:  # (another process may have just created it)
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            with contextlib.suppress(sqlite3.OperationalError):  # (no FTS5 or no trigram: no search texts)
                conn.execute(_FTS_SCHEMA)
            conn.execute("INSERT INTO meta (key, value) VALUES ('root', ?)", (stored(root),))
            conn.execute(f"PRAGMA application_id = {_APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise


def in_memory(root: str) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    _fill_schema(conn, root)
    return conn


def delete_index_file(path: Path) -> None:
    """The file and its WAL companions (a missing one is fine)."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")


def is_busy(error: sqlite3.Error) -> bool:
    """Another process held the database past the busy timeout (not damage)."""
    return isinstance(error, sqlite3.OperationalError) and "locked" in str(error).lower()


def stored(value: str | None) -> str | bytes | None:
    """A string as the database takes it: SQLite text must be UTF-8, and session text (or a
    file name read with surrogateescape) may hold lone surrogates; those go in as the bytes
    of `surrogatepass` (a lookup converts its key the same way, so equal stays equal)."""
    if value is None:
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return value.encode("utf-8", "surrogatepass")
    return value


def text_of(value: object) -> str | None:
    """`stored`, undone."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogatepass")
    return value if isinstance(value, str) else None
