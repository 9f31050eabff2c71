"""Every session under a sessions folder, listed as pi lists them, kept current cheaply.

A persistent index (under `platformdirs.user_cache_path("pi-sessions")`) remembers, per file,
its size, mtime and inode and the running state of its summary. Opening the store then costs
a stat per file: an unchanged file is taken from the index, a file that only grew is read
from where the index stopped (after checking the bytes before that point are unchanged), and
anything else is read again. A corrupt, stale or unwritable cache is ignored and rebuilt.
Nothing in the sessions folder is ever written.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

import msgspec

from .lines import only_grew
from .listing import NotASession, SessionSummary, SummaryBuilder
from .locations import iter_session_files

CACHE_VERSION = 3
# Below this many bytes to read, a second process costs more than it saves.
PARALLEL_MIN_BYTES = 48 * 1024 * 1024


class FileChange(StrEnum):
    APPEARED = "appeared"
    GREW = "grew"
    REPLACED = "replaced"  # truncated, rewritten or a new inode: read again from the start
    VANISHED = "vanished"
    UNCHANGED = "unchanged"


class IndexEntry(msgspec.Struct, kw_only=True, array_like=True, gc=False):
    size: int
    mtime_ns: int
    inode: int
    builder: SummaryBuilder | None = None
    summary: SessionSummary | None = None  # derived from `builder`, kept so a warm start is a stat
    skipped: str | None = None  # why this file is not a session (left out of the list)

    def matches(self, st: os.stat_result) -> bool:
        """The file is as it was when this entry was read (same inode, size and mtime)."""
        return st.st_ino == self.inode and st.st_size == self.size and st.st_mtime_ns == self.mtime_ns


class IndexFile(msgspec.Struct, kw_only=True):
    version: int
    root: str
    entries: dict[str, IndexEntry]


@dataclass(slots=True)
class Listing:
    summaries: list[SessionSummary] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why it is not a session)


@dataclass(slots=True)
class ScanReport:
    """What one scan of the folder did (for benchmarks, tests and the status line)."""

    unchanged: int = 0
    grown: int = 0
    read: int = 0
    vanished: int = 0
    bytes_read: int = 0
    cache_loaded: bool = False
    cache_problem: str | None = None


def default_cache_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_path("pi-sessions"))


def sort_newest_first(summaries: list[SessionSummary]) -> None:
    """pi's order: `modified` newest first; ties by file mtime, then file name, both descending."""
    summaries.sort(key=lambda s: (s.modified_ms, s.mtime_ns, os.path.basename(s.path)), reverse=True)


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Bulk reads allocate many small objects that are never cyclic: collecting during them
    only burns time (measured: 40% of a cold listing)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def read_file_state(path: str, keep_text: bool = False) -> tuple[IndexEntry | None, int]:
    """Read one file from the start: its index entry (None if it vanished) and bytes read."""
    try:
        st = os.stat(path)
    except OSError:
        return None, 0
    entry = IndexEntry(size=st.st_size, mtime_ns=st.st_mtime_ns, inode=st.st_ino)
    builder = SummaryBuilder(texts=[] if keep_text else None)
    try:
        builder.feed_file(path)
    except NotASession as e:
        entry.skipped = str(e)
        return entry, st.st_size
    except OSError as e:
        entry.skipped = f"cannot read: {e.strerror or e}"
        return entry, 0
    entry.builder = builder
    if builder.header is None:
        entry.skipped = "empty file (no session header yet)"
    else:
        entry.summary = builder.summary(path, st.st_size, st.st_mtime_ns, st.st_ino)
    return entry, st.st_size


def _read_many(paths: Sequence[str], keep_text: bool) -> list[tuple[str, IndexEntry | None, int]]:
    with paused_gc():
        return [(p, *read_file_state(p, keep_text)) for p in paths]


class SessionStore:
    """The sessions under one root, with their summaries, kept current by `update()`."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        cache_dir: str | os.PathLike[str] | None = None,
        use_cache: bool = True,
        keep_text: bool = False,
    ) -> None:
        self.root = os.path.abspath(os.fspath(root))
        self.use_cache = use_cache
        self.keep_text = keep_text
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.entries: dict[str, IndexEntry] = {}
        # A cache loaded by a scan that gave up (read_limit), with what the load reported:
        # the scan that follows starts from it instead of reading and decoding it again.
        self._loaded: tuple[dict[str, IndexEntry], bool, str | None] | None = None

    # ------------------------------------------------------------------ the cache file
    @property
    def cache_path(self) -> Path:
        base = self.cache_dir if self.cache_dir is not None else default_cache_dir()
        digest = hashlib.sha256(self.root.encode("utf-8", "surrogateescape")).hexdigest()[:16]
        text = "-text" if self.keep_text else ""
        return base / f"index-v{CACHE_VERSION}{text}-{digest}.msgpack"

    def _load_cache(self, report: ScanReport) -> dict[str, IndexEntry]:
        if not self.use_cache:
            return {}
        try:
            data = self.cache_path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError as e:
            report.cache_problem = f"cache unreadable ({e.strerror}); rebuilt"
            return {}
        try:
            index = msgspec.msgpack.decode(data, type=IndexFile)
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            report.cache_problem = "cache corrupt; rebuilt"
            return {}
        if index.version != CACHE_VERSION or index.root != self.root:
            report.cache_problem = "cache from another version; rebuilt"
            return {}
        report.cache_loaded = True
        return index.entries

    def save_cache(self) -> str | None:
        """Write the index atomically; returns a problem description instead of raising."""
        if not self.use_cache:
            return None
        path = self.cache_path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            data = self._encode_index()
            fd, temp = tempfile.mkstemp(prefix=".index-", dir=path.parent)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.replace(temp, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
                raise
        except OSError as e:
            return f"cannot write the cache in {path.parent}: {e.strerror or e}"
        return None

    def _encode_index(self) -> bytes:
        try:
            return msgspec.msgpack.encode(
                IndexFile(version=CACHE_VERSION, root=self.root, entries=self.entries)
            )
        except (msgspec.EncodeError, UnicodeEncodeError, OverflowError, ValueError, TypeError):
            pass
        # Something unencodable (a lone surrogate, a 400-digit number): leave those files out
        # of the cache; they are simply read again next time.
        keep = {}
        for file, entry in self.entries.items():
            try:
                msgspec.msgpack.encode(entry)
            except (msgspec.EncodeError, UnicodeEncodeError, OverflowError, ValueError, TypeError):
                continue
            keep[file] = entry
        return msgspec.msgpack.encode(IndexFile(version=CACHE_VERSION, root=self.root, entries=keep))

    # ------------------------------------------------------------------ scanning
    def scan(
        self, workers: int | None = None, save: bool = True, read_limit: int | None = None
    ) -> ScanReport | None:
        """Bring every file up to date (from the cache when possible) and save the index.

        With `read_limit`, give up (None, nothing changed) when more than that many bytes
        would have to be read: the caller can then scan in the background instead."""
        report = ScanReport()
        with paused_gc():
            if self.entries:
                cached = self.entries
            elif self._loaded is not None:
                cached, report.cache_loaded, report.cache_problem = self._loaded
            else:
                cached = self._load_cache(report)
            self._loaded = None
            paths = list(iter_session_files(self.root))
            stats = _stat_all(paths)
            if read_limit is not None and _bytes_to_read(cached, stats) > read_limit:
                self._loaded = (cached, report.cache_loaded, report.cache_problem)
                return None
            fresh: dict[str, IndexEntry] = {}
            to_read: list[str] = []
            for path in paths:
                old = cached.get(path)
                if old is None:
                    to_read.append(path)
                    continue
                change, read = self._refresh(path, old, stats.get(path))
                if change is FileChange.VANISHED:
                    continue
                if change is FileChange.REPLACED:
                    to_read.append(path)
                    continue
                fresh[path] = old
                report.bytes_read += read
                if change is FileChange.GREW:
                    report.grown += 1
                else:
                    report.unchanged += 1
            for path, entry, read in self._read_all(to_read, stats, workers):
                if entry is None:
                    continue
                fresh[path] = entry
                report.read += 1
                report.bytes_read += read
            report.vanished = sum(1 for p in cached if p not in fresh)
            self.entries = fresh
        for path, entry in self.entries.items():
            if entry.summary is None and entry.builder is not None and entry.builder.header is not None:
                entry.summary = entry.builder.summary(path, entry.size, entry.mtime_ns, entry.inode)
        if save and (report.read or report.grown or report.vanished or not report.cache_loaded):
            problem = self.save_cache()
            if problem:
                report.cache_problem = problem
        return report

    def _read_all(
        self, paths: list[str], stats: dict[str, os.stat_result], workers: int | None
    ) -> list[tuple[str, IndexEntry | None, int]]:
        if workers is None:
            workers = min(2, os.cpu_count() or 1)
        sizes = {p: st.st_size if (st := stats.get(p)) is not None else 0 for p in paths}
        total = sum(sizes.values())
        if workers < 2 or total < PARALLEL_MIN_BYTES or len(paths) < 8:
            return _read_many(paths, self.keep_text)
        # Two halves of about the same cost: one here, one in a second process.
        ordered = sorted(paths, key=lambda p: _read_cost(sizes[p]), reverse=True)
        mine: list[str] = []
        theirs: list[str] = []
        mine_cost = theirs_cost = 0.0
        for p in ordered:
            if mine_cost <= theirs_cost:
                mine.append(p)
                mine_cost += _read_cost(sizes[p])
            else:
                theirs.append(p)
                theirs_cost += _read_cost(sizes[p])
        import multiprocessing
        import threading
        from concurrent.futures import ProcessPoolExecutor

        # fork is cheap but unsafe with other threads running (the app's workers): spawn then.
        method = "fork" if threading.active_count() == 1 and hasattr(os, "fork") else "spawn"
        try:
            pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context(method))
        except (OSError, ValueError):
            return _read_many(paths, self.keep_text)
        with pool:
            future = pool.submit(_read_many, theirs, self.keep_text)
            results = _read_many(mine, self.keep_text)
            try:
                results.extend(future.result())
            except Exception:  # a broken worker must not break the listing
                results.extend(_read_many(theirs, self.keep_text))
        return results

    def _refresh(
        self, path: str, entry: IndexEntry, st: os.stat_result | None = None
    ) -> tuple[FileChange, int]:
        """Bring one known entry up to date in place, reading only appended bytes."""
        if st is None:
            try:
                st = os.stat(path)
            except OSError:
                return FileChange.VANISHED, 0
        if entry.matches(st):
            return FileChange.UNCHANGED, 0
        builder = entry.builder
        if builder is None or st.st_ino != entry.inode or st.st_size < builder.offset:
            return FileChange.REPLACED, 0
        if st.st_size == entry.size:
            return FileChange.REPLACED, 0  # changed, yet nothing was appended: rewritten in place
        if not only_grew(path, builder.offset, builder.head, builder.tail):
            return FileChange.REPLACED, 0
        before = builder.offset
        try:
            builder.feed_file(path)
        except NotASession:
            return FileChange.REPLACED, 0
        except OSError:
            return FileChange.VANISHED, 0
        entry.size, entry.mtime_ns, entry.inode = st.st_size, st.st_mtime_ns, st.st_ino
        entry.summary = None
        if builder.header is not None:
            entry.skipped = None
        return (FileChange.GREW if builder.offset > before else FileChange.UNCHANGED), builder.offset - before

    def update(self, path: str) -> FileChange:
        """Re-check one file after a change on disk (the watcher calls this)."""
        path = os.path.abspath(path)
        old = self.entries.get(path)
        if old is not None:
            change, _ = self._refresh(path, old)
            if change is FileChange.VANISHED:
                del self.entries[path]
                return change
            if change is not FileChange.REPLACED:
                return change
        entry, _ = read_file_state(path, self.keep_text)
        if entry is None:
            if old is not None:
                del self.entries[path]
                return FileChange.VANISHED
            return FileChange.UNCHANGED
        self.entries[path] = entry
        return FileChange.REPLACED if old is not None else FileChange.APPEARED

    # ------------------------------------------------------------------ results
    def summary(self, path: str) -> SessionSummary | None:
        entry = self.entries.get(path)
        if entry is None:
            return None
        if entry.summary is None:
            if entry.builder is None or entry.builder.header is None:
                return None
            entry.summary = entry.builder.summary(path, entry.size, entry.mtime_ns, entry.inode)
        return entry.summary

    def listing(self) -> Listing:
        listing = Listing()
        for path, entry in self.entries.items():
            summary = self.summary(path)
            if summary is not None:
                listing.summaries.append(summary)
            elif entry.skipped:
                listing.skipped.append((path, entry.skipped))
        sort_newest_first(listing.summaries)
        return listing

    def texts(self, path: str) -> list[str]:
        entry = self.entries.get(path)
        if entry is None or entry.builder is None or entry.builder.texts is None:
            return []
        return entry.builder.texts


def _stat_all(paths: list[str]) -> dict[str, os.stat_result]:
    stats = {}
    for path in paths:
        try:
            stats[path] = os.stat(path)
        except OSError:
            continue
    return stats


def _bytes_to_read(cached: dict[str, IndexEntry], stats: dict[str, os.stat_result]) -> int:
    """What a scan would read: whole new or replaced files, the appended part of grown ones."""
    total = 0
    for path, st in stats.items():
        entry = cached.get(path)
        if (
            entry is None
            or entry.builder is None
            or st.st_ino != entry.inode
            or st.st_size < entry.builder.offset
            or (st.st_size == entry.size and not entry.matches(st))
        ):
            total += st.st_size
        elif not entry.matches(st):
            total += st.st_size - entry.builder.offset
    return total


def _read_cost(size: int) -> float:
    """Relative cost of summarizing a file: small files are mostly many small entries (Python
    work per entry), big ones mostly long tool outputs that msgspec skips (measured ~3.5x)."""
    return size * 3.5 if size < 4 * 1024 * 1024 else float(size)


def list_sessions(root: str, use_cache: bool = True, cache_dir: str | None = None) -> Listing:
    """The listing of a folder (used by `pi-sessions list`)."""
    store = SessionStore(root, cache_dir=cache_dir, use_cache=use_cache)
    store.scan()
    return store.listing()


__all__ = [
    "FileChange",
    "Listing",
    "ScanReport",
    "SessionStore",
    "list_sessions",
    "sort_newest_first",
]
