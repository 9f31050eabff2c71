"""The search texts in the SQLite index: one FTS5 (trigram) row per session file, kept in step
with the listing, and the sessions whose text holds a value.

Each row is pi's allMessagesText of one file, normalized exactly as the matcher sees it
(`MessageText.normalized`: lowercased, whitespace runs as one space), taken from the store's
texts (the very texts the in-memory search matched). A file's row is written again only when
its stamp (size, mtime, inode) changed; rows of files no longer listed are dropped. A value of
3 characters or more is looked up in the trigram index (a quoted phrase with the trigram
tokenizer is an exact substring test); one letter is looked up in each row's distinct
characters (kept in memory), two are an `instr` scan of the stored texts (in C, its answer
kept until the next write). A text SQLite cannot hold as it is (a NUL, a lone surrogate) is
not stored: its session is matched from memory, as before. One lock serializes the
connection: writes go in short batches, so a query waits for one batch at most.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from ..index.db import FTS_TABLE, IndexDb, delete_index_file, is_busy, open_index, stored, text_of
from ..listing.summary import SessionSummary
from .matching import SearchCancelled
from .texts import MessageText

__all__ = ["TRIGRAM", "TextIndex", "indexed_text", "open_text_index"]

TRIGRAM = 3  # values this long or longer are looked up in the trigram index
SHORT_KEPT = 8  # two-letter answers kept (each a set of up to every row id)
BATCH_SECONDS = 0.05  # a write transaction lasts about this long (a query waits at most that)

Stamp = tuple[int, int, int]  # size, mtime_ns, inode
TextsOf = Callable[[str], Sequence[str]]
SyncProgress = Callable[[int, int], None]  # (files written so far, files to write)


def _stamp(summary: SessionSummary) -> Stamp:
    return summary.size, summary.mtime_ns, summary.inode


def indexed_text(segments: Sequence[str]) -> str | None:
    """The text as stored (what `MessageText.normalized` is), or None when SQLite's FTS
    cannot hold it exactly (a NUL, or a lone surrogate that UTF-8 cannot carry)."""
    normalized = MessageText(list(segments)).normalized
    if "\x00" in normalized:
        return None
    try:
        normalized.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return normalized


def open_text_index(root: str, base: Path | None = None) -> tuple[TextIndex | None, str | None]:
    """The search texts of `root`'s index file, and a notice when the file was built again
    (corrupt inside, found on reading it: deleted and made anew). None when no file can be
    used (texts in an index in memory would be written again at every run) or without FTS5."""
    db = open_index(root, base=base)
    notice = db.notice
    if db.path is None:
        db.close()
        return None, notice
    try:
        texts = TextIndex(db)
    except sqlite3.DatabaseError as e:
        db.close()
        if is_busy(e):
            return None, notice
        delete_index_file(db.path)
        db = open_index(root, base=base)
        texts = TextIndex(db)
        notice = f"index {db.path} was corrupt ({e}); rebuilt"
    return (texts if texts.usable else None), notice


class TextIndex:
    """The search texts of one sessions folder in its index file (`IndexDb`)."""

    def __init__(self, db: IndexDb) -> None:
        self.db = db
        self.lock = threading.Lock()
        # path -> (row id, stamp, text stored): as committed
        self._rows: dict[str, tuple[int, Stamp, bool]] = {}
        # row id -> the distinct characters of its text (a one-letter value is answered from
        # these, exactly, without reading any text)
        self._chars: dict[int, str] = {}
        # a two-letter value -> its rows (an `instr` scan of every text: kept until a write)
        self._short: dict[str, set[int]] = {}
        self.usable = self._has_table()
        if self.usable:
            self._load()

    def _has_table(self) -> bool:
        row = self.db.conn.execute(
            "SELECT count(*) FROM sqlite_master WHERE name IN (?, 'text_files')", (FTS_TABLE,)
        ).fetchone()
        return bool(row and row[0] == 2)

    def _load(self) -> None:
        rows = self.db.conn.execute("SELECT path, id, size, mtime_ns, inode, exact, chars FROM text_files")
        self._rows, self._chars, self._short = {}, {}, {}
        for path, key, size, mtime_ns, inode, exact, chars in rows:
            self._rows[text_of(path) or ""] = (key, (size, mtime_ns, inode), bool(exact))
            if exact:
                self._chars[key] = text_of(chars) or ""

    # ------------------------------------------------------------------ keeping it current
    def rowid(self, summary: SessionSummary) -> int | None:
        """The row holding this session's text as the listing has it (None: stale, not
        indexed yet, or not storable: match it from memory)."""
        return self.rowid_of(summary.path, _stamp(summary))

    def rowid_of(self, path: str, stamp: Stamp | None) -> int | None:
        row = self._rows.get(path)
        if row is None or not row[2] or row[1] != stamp:
            return None
        return row[0]

    def stale(self, summaries: Iterable[SessionSummary]) -> list[SessionSummary]:
        rows = self._rows
        out = []
        for summary in summaries:
            row = rows.get(summary.path)
            if row is None or row[1] != _stamp(summary):
                out.append(summary)
        return out

    def sync(
        self,
        summaries: Sequence[SessionSummary],
        texts_of: TextsOf,
        *,
        cancelled: Callable[[], bool] | None = None,
        progress: SyncProgress | None = None,
        seconds: float | None = None,
    ) -> int:
        """Write the texts of the listed files whose stamp changed, drop the files no longer
        listed; the number of files written. Stops (keeping what it committed) when
        `cancelled()` says so, or after about `seconds`."""
        stop_at = None if seconds is None else time.monotonic() + seconds
        if not self.usable:
            return 0
        listed = {s.path for s in summaries}
        with self.lock:
            gone = [path for path in self._rows if path not in listed]
            if gone:
                with self._transaction():
                    for path in gone:
                        self._forget(path)
        stale = self.stale(summaries)
        done = 0
        while done < len(stale):
            if (cancelled is not None and cancelled()) or (
                stop_at is not None and time.monotonic() > stop_at
            ):
                break
            if progress is not None:
                progress(done, len(stale))
            with self.lock, self._transaction():
                end = time.monotonic() + BATCH_SECONDS
                while done < len(stale):
                    self._write(stale[done], texts_of)
                    done += 1
                    if time.monotonic() > end:
                        break
        if progress is not None and stale:
            progress(done, len(stale))
        return done

    @contextlib.contextmanager
    def _transaction(self):  # type: ignore[no-untyped-def]
        conn = self.db.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            conn.execute("ROLLBACK")
            self._load()  # (what was committed)
            raise
        conn.execute("COMMIT")

    def _forget(self, path: str) -> None:
        self._short = {}
        row = self._rows.pop(path, None)
        if row is not None:
            self.db.conn.execute(f"DELETE FROM {FTS_TABLE} WHERE rowid = ?", (row[0],))
            self.db.conn.execute("DELETE FROM text_files WHERE id = ?", (row[0],))

    def _write(self, summary: SessionSummary, texts_of: TextsOf) -> None:
        conn = self.db.conn
        self._short = {}
        text = indexed_text(texts_of(summary.path))
        chars = "".join(sorted(set(text))) if text is not None else ""
        size, mtime_ns, inode = stamp = _stamp(summary)
        row = self._rows.get(summary.path)
        if row is None:
            cursor = conn.execute(
                "INSERT INTO text_files (path, size, mtime_ns, inode, exact, chars)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (stored(summary.path), size, mtime_ns, inode, text is not None, chars),
            )
            key = int(cursor.lastrowid or 0)
        else:
            key = row[0]
            conn.execute(f"DELETE FROM {FTS_TABLE} WHERE rowid = ?", (key,))
            conn.execute(
                "UPDATE text_files SET size = ?, mtime_ns = ?, inode = ?, exact = ?, chars = ? WHERE id = ?",
                (size, mtime_ns, inode, text is not None, chars, key),
            )
        if text is not None:
            conn.execute(f"INSERT INTO {FTS_TABLE} (rowid, text) VALUES (?, ?)", (key, text))
        self._rows[summary.path] = (key, stamp, text is not None)
        if text is not None:
            self._chars[key] = chars
        else:
            self._chars.pop(key, None)

    # ------------------------------------------------------------------ asking it
    def holding(self, value: str, cancelled: Callable[[], bool] | None = None) -> set[int]:
        """The rows whose text contains `value` (a lowercased token or phrase). Raises
        `SearchCancelled` when `cancelled()` says so (looked at while SQLite works)."""
        if "\x00" in value:
            return set()  # (no stored text holds one)
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return set()
        if len(value) == 1:
            return {key for key, chars in list(self._chars.items()) if value in chars}
        known = self._short.get(value)
        if known is not None:
            return known
        if len(value) >= TRIGRAM:
            sql = f"SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?"
            args: tuple[str, ...] = ('"' + value.replace('"', '""') + '"',)
        else:
            sql = f"SELECT rowid FROM {FTS_TABLE} WHERE instr(text, ?) > 0"
            args = (value,)
        conn = self.db.conn
        with self.lock:
            if cancelled is not None:
                conn.set_progress_handler(lambda: 1 if cancelled() else 0, 20_000)
            try:
                found = {row[0] for row in conn.execute(sql, args)}
                if len(value) < TRIGRAM:
                    if len(self._short) >= SHORT_KEPT:
                        self._short = {}
                    self._short[value] = found
                return found
            except sqlite3.OperationalError as e:
                if "interrupt" in str(e):
                    raise SearchCancelled() from None
                raise
            finally:
                if cancelled is not None:
                    conn.set_progress_handler(None, 0)
