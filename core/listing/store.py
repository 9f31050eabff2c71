"""Every session under a sessions folder, listed as pi lists them, kept current cheaply.

A persistent index (core/listing/index_cache.py) remembers, per file, its size, mtime and inode and
the running state of its summary. Opening the store then costs a stat per file: an unchanged
file is taken from the index, a file that only grew is read from where the index stopped
(after checking the bytes before that point are unchanged), and anything else is read again
(core/reading/growth.py: one look per file). A scan and the watcher change the store from worker
threads, one at a time (`lock`). Nothing in the sessions folder is ever written.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import partial
from itertools import compress, count, islice
from operator import attrgetter, eq, ge, gt
from pathlib import Path

from ..common.gcpause import paused_gc
from ..common.locations import folders_changed_since, iter_session_files
from ..reading.growth import Growth, Pieces, ReadMark, Stamp, Verdict, read_growth, read_whole
from .index_cache import UNENCODABLE, IndexEntry, cache_file_path, default_cache_dir, load_index, save_index
from .summary import NotASession, SessionSummary, SummaryBuilder

# Below this many bytes to read, a second process costs more than it saves.
PARALLEL_MIN_BYTES = 48 * 1024 * 1024
# A file's and a folder's times come from the kernel's coarse clock, up to a tick behind ours.
CLOCK_SLACK_NS = 50_000_000


class FileChange(StrEnum):
    APPEARED = "appeared"
    GREW = "grew"
    REPLACED = "replaced"  # truncated, rewritten or a new inode: read again from the start
    VANISHED = "vanished"
    UNCHANGED = "unchanged"


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
    restamped: int = 0  # (of `unchanged`) a new size or mtime, nothing more to list: saved
    bytes_read: int = 0
    cache_loaded: bool = False
    cache_problem: str | None = None

    @property
    def listing_changed(self) -> bool:
        """Whether a session was read, grew or vanished: what was listed before is not current."""
        return bool(self.read or self.grown or self.vanished)


def sort_newest_first(summaries: list[SessionSummary]) -> None:
    """pi's order: `modified` newest first; ties by file mtime, then file name, both descending.

    Two sorts at C speed, mtime then `modified` (stable: the mtime order stays within a tie;
    a key function making three-part keys cost 50 ms at 30,000 sessions); only when two
    sessions tie on both is the file name needed."""
    times = list(map(_TIMES, summaries))
    if all(map(gt, times, islice(times, 1, None))):
        return  # in order already, no two tie (a warm start: the index cache keeps this order)
    if _in_order_with_ties(summaries, times):
        return  # (the same, with ties: copies of a session; sorting again would change nothing)
    summaries.sort(key=_MTIME, reverse=True)
    summaries.sort(key=_MODIFIED, reverse=True)
    if len(set(times)) != len(summaries):
        summaries.sort(key=lambda s: (s.modified_ms, s.mtime_ns, os.path.basename(s.path)), reverse=True)


def _in_order_with_ties(summaries: list[SessionSummary], times: list[tuple[float, int]]) -> bool:
    """Whether the summaries are newest first already, ties (equal `times`) by file name
    descending (the three sorts are stable: they would leave such a list as it is; at 30,000
    sessions with copies among them they cost a listing 35 ms)."""
    if not all(map(ge, times, islice(times, 1, None))):
        return False
    basename = os.path.basename
    for i in compress(count(), map(eq, times, islice(times, 1, None))):
        if basename(summaries[i].path) < basename(summaries[i + 1].path):
            return False
    return True


_MTIME = attrgetter("mtime_ns")
_MODIFIED = attrgetter("modified_ms")
_TIMES = attrgetter("modified_ms", "mtime_ns")
_SUMMARY = attrgetter("summary")
_PATH = attrgetter("path")


def read_file_state(path: str, keep_text: bool = False) -> tuple[IndexEntry | None, int]:
    """Read one file from the start: its index entry (None if it vanished) and bytes read."""
    try:
        entry = read_whole(path, partial(_summarize, path, keep_text))
    except FileNotFoundError:
        return None, 0
    except OSError as e:
        return _unreadable(e), 0
    return entry, entry.size


def _summarize(
    path: str, keep_text: bool, pieces: Pieces | list[tuple[bytes, bool]], stamp: Callable[[], Stamp]
) -> IndexEntry:
    """The index entry of a file read in `pieces` (each with whether it is the last)."""
    builder = SummaryBuilder(texts=[] if keep_text else None)
    try:
        for data, final in pieces:
            before = builder.offset
            builder.feed_bytes(data, final)
            if isinstance(pieces, Pieces):
                pieces.taken = builder.offset - before  # (the rest comes again, with what follows)
    except NotASession as e:
        seen = stamp()
        return IndexEntry(seen.size, seen.mtime_ns, seen.inode, skipped=str(e), ctime_ns=seen.ctime_ns)
    return _entry_of(path, builder, stamp())


def entry_from_bytes(path: str, data: bytes, stamp: Stamp, keep_text: bool = False) -> IndexEntry:
    """The index entry of a file whose bytes, all of them, are `data`."""
    return _summarize(path, keep_text, [(data, True)], lambda: stamp)


def _entry_of(path: str, builder: SummaryBuilder, stamp: Stamp) -> IndexEntry:
    entry = IndexEntry(stamp.size, stamp.mtime_ns, stamp.inode, ctime_ns=stamp.ctime_ns)
    entry.builder = builder
    if builder.header is None:
        entry.skipped = "empty file (no session header yet)"
    else:
        entry.summary = builder.summary(path, stamp.size, stamp.mtime_ns, stamp.inode)
    return entry


def take_growth(
    path: str, entry: IndexEntry | None, growth: Growth, keep_text: bool = False
) -> tuple[FileChange, IndexEntry | None, int]:
    """Bring `entry` (None: a file not known yet) up to date from one look at its file
    (`read_growth` given `entry.mark`): (what changed, the entry now, bytes it consumed)."""
    mark = entry.mark if entry is not None else None
    verdict = growth.verdict(mark)
    if verdict in (Verdict.FRESH, Verdict.REPLACED) or entry is None or entry.builder is None:
        fresh = entry_from_bytes(path, growth.since(0), growth.stamp, keep_text)
        return (FileChange.APPEARED if entry is None else FileChange.REPLACED), fresh, growth.size
    builder = entry.builder
    before = builder.offset
    if verdict is Verdict.GREW:
        try:
            builder.feed_bytes(growth.since(before))
        except NotASession as e:
            seen = growth.stamp
            skipped = IndexEntry(seen.size, seen.mtime_ns, seen.inode, skipped=str(e), ctime_ns=seen.ctime_ns)
            return FileChange.REPLACED, skipped, growth.size
    seen = growth.stamp
    entry.size, entry.mtime_ns, entry.inode, entry.ctime_ns = (
        seen.size,
        seen.mtime_ns,
        seen.inode,
        seen.ctime_ns,
    )
    if builder.offset == before:
        return FileChange.UNCHANGED, entry, 0
    entry.summary = None
    if builder.header is not None:
        entry.skipped = None
    return FileChange.GREW, entry, builder.offset - before


def _unreadable(error: OSError) -> IndexEntry:
    return IndexEntry(0, 0, 0, skipped=f"cannot read: {error.strerror or error}")


def _read_many(
    paths: Sequence[str], keep_text: bool = False, pack: bool = False
) -> list[tuple[str, IndexEntry | None, int]]:
    """Each file read from the start; with `pack`, each entry's state encoded at once (the
    two processes of a cold scan do that while they share the work, not one of them after)."""
    with paused_gc():
        read = [(p, *read_file_state(p, keep_text)) for p in paths]
        if pack:
            for _, entry, _ in read:
                if entry is not None:
                    with contextlib.suppress(*UNENCODABLE):
                        entry.pack()  # (else encoded when saved, and left out then)
        return read


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
        # The entries change in worker threads (a scan, the watcher's reading): one at a time.
        self.lock = threading.RLock()
        # A cache loaded by a scan that gave up (read_limit), with what the load reported:
        # the scan that follows starts from it instead of reading and decoding it again.
        self._loaded: tuple[dict[str, IndexEntry], bool, str | None] | None = None
        # The time the cache loaded by `load_cached` says its scan started (its mtime), and
        # whether `stale` found a folder changed since (the scan then says it looked again).
        self._cached_at: int | None = None
        self._folders_newer = False

    # ------------------------------------------------------------------ the cache file
    @property
    def cache_path(self) -> Path:
        base = self.cache_dir if self.cache_dir is not None else default_cache_dir()
        return cache_file_path(base, self.root, self.keep_text)

    def _load_cache(self, report: ScanReport) -> dict[str, IndexEntry]:
        if not self.use_cache:
            return {}
        entries, report.cache_problem = load_index(self.cache_path, self.root)
        report.cache_loaded = entries is not None
        return entries or {}

    def save_cache(self, scanned_at: int | None = None) -> str | None:
        """Write the index atomically; returns a problem description instead of raising.
        `scanned_at`: when the scan it holds started (see `_stamp_cache`)."""
        if not self.use_cache:
            return None
        # In the listing's order: the next warm start then finds its sessions sorted already,
        # and so does the next listing of this store (`pi-sessions list` sorted twice).
        with self.lock:
            entries = self.entries
            paths = list(map(_PATH, self.listing().summaries))
            try:
                ordered = dict(zip(paths, map(entries.__getitem__, paths), strict=True))
            except KeyError:  # (a summary under another name than its file's: never, but not fatal)
                ordered = {p: entries[p] for p in paths if p in entries}
            ordered.update(entries)  # (the rest, files that are not sessions, after them)
            self.entries = ordered
        problem = save_index(self.cache_path, self.root, ordered)
        if problem is None and scanned_at is not None:
            self._stamp_cache(scanned_at)
        return problem

    def _stamp_cache(self, scanned_at: int) -> None:
        """The cache file's mtime is when the scan it holds started (a little before): a
        folder changed since then has a newer mtime (`stale`), whatever the scan saw of it."""
        stamp = scanned_at - CLOCK_SLACK_NS
        with contextlib.suppress(OSError):  # (then a folder looks newer: the next start scans)
            os.utime(self.cache_path, ns=(stamp, stamp))

    # ------------------------------------------------------------------ scanning
    def load_cached(self) -> bool:
        """Take the entries as the index cache has them, before any file is looked at (False:
        there is no usable cache, or entries are there already). Nothing is known to be
        current then: `stale` checks the sessions to show first, and a `scan` must follow."""
        with self.lock:
            if self.entries or not self.use_cache:
                return False
            try:  # (before the load: a cache written meanwhile only looks older than it is)
                cached_at = os.stat(self.cache_path).st_mtime_ns
            except OSError:
                return False
            report = ScanReport()
            with paused_gc():
                entries = self._load_cache(report)
            if not entries or report.cache_problem:
                return False
            self.entries = entries
            self._loaded = (entries, True, None)  # (the scan that follows saves only what changed)
            self._cached_at = cached_at
            return True

    def stale(self, paths: Sequence[str]) -> bool:
        """Whether the entries `load_cached` took may not be the disk's for `paths` and what
        lists above them: a session created, deleted or renamed since the cache's scan (its
        folder is newer than the cache: a stat per folder), or one of `paths` not on disk as
        its entry says (changed, gone, or unknown). (A session elsewhere that only grew is
        not seen: the scan that must follow finds it.)"""
        if self._cached_at is not None and folders_changed_since(self.root, self._cached_at):
            self._folders_newer = True
            return True
        entries = self.entries
        for path in paths:
            entry = entries.get(path)
            try:
                if entry is None or not entry.matches(os.stat(path)):
                    return True
            except OSError:
                return True
        return False

    def scan(
        self, workers: int | None = None, save: bool = True, read_limit: int | None = None
    ) -> ScanReport | None:
        """Bring every file up to date (from the cache when possible) and save the index.

        With `read_limit`, give up (None, nothing changed) when more than that many bytes
        would have to be read: the caller can then scan in the background instead."""
        with self.lock:
            return self._scan(workers, save, read_limit)

    def _scan(self, workers: int | None, save: bool, read_limit: int | None) -> ScanReport | None:
        report = ScanReport()
        started = time.time_ns()
        with paused_gc():
            if self._loaded is not None:  # (loaded by `load_cached`, or by a scan that gave up)
                cached, report.cache_loaded, report.cache_problem = self._loaded
            elif self.entries:
                cached = self.entries
            else:
                cached = self._load_cache(report)
            self._loaded = None
            fresh: dict[str, IndexEntry] = {}
            to_read: list[str] = []
            changed: list[tuple[str, IndexEntry]] = []
            stats: dict[str, os.stat_result] = {}  # (of the files to read only)
            unchanged = 0
            stat, get = os.stat, cached.get
            # One pass, a stat per file: this loop runs once per session at every start.
            for path in iter_session_files(self.root):
                try:
                    st = stat(path)
                except OSError:
                    st = None
                old = get(path)
                if old is None:
                    to_read.append(path)
                elif (  # (IndexEntry.matches, inlined)
                    st is not None
                    and st.st_mtime_ns == old.mtime_ns
                    and st.st_size == old.size
                    and st.st_ino == old.inode
                    and (st.st_ctime_ns == old.ctime_ns or old.ctime_ns == -1)
                ):
                    fresh[path] = old
                    unchanged += 1
                    continue
                else:
                    fresh[path] = old  # (keeps its place: brought up to date below)
                    changed.append((path, old))
                if st is not None:
                    stats[path] = st
            report.unchanged = unchanged
            gone = 0  # known files that vanished while the scan looked
            if read_limit is not None and _bytes_to_read(changed, to_read, stats) > read_limit:
                self._loaded = (cached, report.cache_loaded, report.cache_problem)
                return None
            for path, old in changed:
                # Changed, gone, or not even stat-able (a symlink loop: skipped, with why).
                change, entry, read = self._refresh(path, old)
                if entry is None:
                    del fresh[path]
                    gone += 1
                    continue
                fresh[path] = entry
                report.bytes_read += read
                if change is FileChange.GREW:
                    report.grown += 1
                elif change is FileChange.UNCHANGED:  # (its stamp changed: the cache must say so)
                    report.unchanged += 1
                    report.restamped += 1
                else:
                    report.read += 1
            for path, entry, read in self._read_all(to_read, stats, workers):
                if entry is None:
                    continue
                fresh[path] = entry
                report.read += 1
                report.bytes_read += read
            # (known files not listed, or gone since: counted, not a set of 30,000 keys made)
            report.vanished = len(cached) - (unchanged + len(changed) - gone)
            # Nothing changed: keep the cache's order (the listing's, see save_cache).
            self.entries = cached if unchanged == len(cached) == len(fresh) else fresh
        for path, entry in self.entries.items():
            if entry.summary is None and entry.builder is not None and entry.builder.header is not None:
                entry.summary = entry.builder.summary(path, entry.size, entry.mtime_ns, entry.inode)
        folders_newer, self._folders_newer, self._cached_at = self._folders_newer, False, None
        if not save:
            return report
        if report.listing_changed or report.restamped or not report.cache_loaded:
            problem = self.save_cache(started)
            if problem:
                report.cache_problem = problem
        elif folders_newer:  # (a folder changed, not its sessions: else every start would scan)
            self._stamp_cache(started)
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
        from .index_cache import decode_results, encode_results
        from .sharedwork import share_work

        # fork is cheap but unsafe with other threads running (the app's workers): spawn then.
        method = "fork" if threading.active_count() == 1 and hasattr(os, "fork") else "spawn"
        work = partial(_read_many, keep_text=self.keep_text, pack=True)
        decode = partial(decode_results, reread=partial(read_file_state, keep_text=self.keep_text))
        return share_work(_pieces(paths, sizes), work, encode_results, decode, method)

    def _refresh(self, path: str, entry: IndexEntry) -> tuple[FileChange, IndexEntry | None, int]:
        """One known file brought up to date, reading only what it gained."""
        try:
            growth = read_growth(path, [entry.mark])
        except FileNotFoundError:
            return FileChange.VANISHED, None, 0
        except OSError as e:  # a symlink loop, a lost permission: listed as skipped, with why
            return FileChange.REPLACED, _unreadable(e), 0
        return take_growth(path, entry, growth, self.keep_text)

    def update(self, path: str) -> FileChange:
        """Re-check one file after a change on disk."""
        path = os.path.abspath(path)
        with self.lock:
            old = self.entries.get(path)
            try:
                growth = read_growth(path, [old.mark if old is not None else None])
            except OSError as e:
                return self.lost(path, e)
            return self.take(path, growth)

    def take(self, path: str, growth: Growth) -> FileChange:
        """Apply one look at `path` (`read_growth` given `mark_for(path)`) to its entry."""
        with self.lock:
            self._loaded = None  # (the entries are no longer the cache file's)
            change, entry, _ = take_growth(path, self.entries.get(path), growth, self.keep_text)
            if entry is not None:
                self.entries[path] = entry
            return change

    def mark_for(self, path: str) -> ReadMark | None:
        entry = self.entries.get(path)
        return entry.mark if entry is not None else None

    def lost(self, path: str, error: OSError) -> FileChange:
        """`path` could not be looked at: gone (or unreadable: listed as skipped, with why)."""
        with self.lock:
            self._loaded = None
            if isinstance(error, FileNotFoundError):
                return (
                    FileChange.VANISHED if self.entries.pop(path, None) is not None else FileChange.UNCHANGED
                )
            known = path in self.entries
            self.entries[path] = _unreadable(error)
            return FileChange.REPLACED if known else FileChange.APPEARED

    # ------------------------------------------------------------------ results
    def summary(self, path: str) -> SessionSummary | None:
        with self.lock:
            return self._summary(path)

    def _summary(self, path: str) -> SessionSummary | None:
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
        with self.lock:
            summaries = list(map(_SUMMARY, self.entries.values()))  # (at C speed: the usual case)
            if None in summaries:
                summaries = self._slow_summaries(listing.skipped)
        listing.summaries = summaries
        sort_newest_first(summaries)
        return listing

    def _slow_summaries(self, skipped: list[tuple[str, str]]) -> list[SessionSummary]:
        """The summaries, made where missing; the files that are not sessions go to `skipped`."""
        summaries = []
        for path, entry in self.entries.items():
            summary = entry.summary if entry.summary is not None else self._summary(path)
            if summary is not None:
                summaries.append(summary)
            elif entry.skipped:
                skipped.append((path, entry.skipped))
        return summaries

    def texts(self, path: str) -> list[str]:
        """The file's message texts (kept with `keep_text`), read from the cache file if they
        are still there (and not kept decoded: the search index has its own copy)."""
        entry = self.entries.get(path)
        texts = entry.texts if entry is not None else None
        return texts if texts is not None else []


def _bytes_to_read(
    changed: list[tuple[str, IndexEntry]], new: list[str], stats: dict[str, os.stat_result]
) -> int:
    """What a scan would read: whole new or replaced files, the appended part of grown ones."""
    total = sum(st.st_size for path in new if (st := stats.get(path)) is not None)
    for path, entry in changed:
        st = stats.get(path)
        if st is None:
            continue
        if (
            entry.builder is None
            or st.st_ino != entry.inode
            or st.st_size < entry.builder.offset
            or st.st_size == entry.size  # changed without growing: rewritten in place, read again
        ):
            total += st.st_size
        else:
            total += st.st_size - entry.builder.offset
    return total


# The work of a cold scan comes in this many pieces or so (the biggest files one each).
PIECES = 64


def _pieces(paths: list[str], sizes: dict[str, int]) -> list[list[str]]:
    """Groups of files of about the same cost, the costliest first (so the last pieces to
    share out are small ones)."""
    ordered = sorted(paths, key=lambda p: _read_cost(sizes[p]), reverse=True)
    share = sum(_read_cost(sizes[p]) for p in paths) / PIECES
    pieces: list[list[str]] = []
    piece: list[str] = []
    cost = 0.0
    for path in ordered:
        piece.append(path)
        cost += _read_cost(sizes[path])
        if cost >= share:
            pieces.append(piece)
            piece, cost = [], 0.0
    if piece:
        pieces.append(piece)
    return pieces


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
    "IndexEntry",
    "Listing",
    "ScanReport",
    "SessionStore",
    "list_sessions",
    "sort_newest_first",
]
