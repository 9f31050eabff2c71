"""The persistent index cache: where it lives, what it holds, and reading it safely.

Under `platformdirs.user_cache_path("pi-sessions")`, one file per sessions folder remembers,
per session file, its size, mtime and inode and the running state of its summary (so a warm
start is a stat per file). It is read only when it is a regular file of a sane size, opened
without blocking (a FIFO or a device where it belongs cannot hang us), written atomically,
and a corrupt, stale or unwritable cache is ignored and rebuilt.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
from collections.abc import Callable
from pathlib import Path

import msgspec

from .growth import ReadMark
from .listing import SessionSummary, SummaryBuilder

CACHE_VERSION = 3
# An index of 2,000 sessions with their texts is ~10 MiB: anything past this is not ours.
MAX_CACHE_BYTES = 1 << 30


class IndexEntry:
    """One session file as the index remembers it. Its summary's running state (`builder`)
    stays encoded, as the cache file holds it, until someone needs it: a warm start reads
    only the summaries."""

    __slots__ = ("_builder", "_state", "inode", "mtime_ns", "size", "skipped", "summary")

    def __init__(
        self,
        size: int,
        mtime_ns: int,
        inode: int,
        builder: SummaryBuilder | None = None,
        summary: SessionSummary | None = None,  # derived from `builder`, kept so a warm start is a stat
        skipped: str | None = None,  # why this file is not a session (left out of the list)
        state: bytes | None = None,  # `builder`, encoded (taken from the cache file)
    ) -> None:
        self.size = size
        self.mtime_ns = mtime_ns
        self.inode = inode
        self._builder = builder
        self._state = state
        self.summary = summary
        self.skipped = skipped

    @property
    def builder(self) -> SummaryBuilder | None:
        if self._state is not None:
            self._builder = _builder_decoder.decode(self._state)
            self._state = None  # it may change from now on: encoded again when saved
        return self._builder

    @builder.setter
    def builder(self, value: SummaryBuilder | None) -> None:
        self._builder, self._state = value, None

    def encoded_builder(self) -> bytes:
        """`builder` as the cache file holds it (msgpack; nil for none)."""
        if self._state is not None:
            return self._state
        return msgspec.msgpack.encode(self._builder)

    def matches(self, st: os.stat_result) -> bool:
        """The file is as it was when this entry was read (same inode, size and mtime)."""
        return st.st_ino == self.inode and st.st_size == self.size and st.st_mtime_ns == self.mtime_ns

    @property
    def mark(self) -> ReadMark | None:
        """Where the summary stopped reading (None: it has to read the file from the start)."""
        b = self.builder
        if b is None:
            return None
        return ReadMark(b.offset, b.head, b.tail, self.inode, self.size, self.mtime_ns)


_NIL = b"\xc0"  # msgpack's nil


class _StoredEntry(msgspec.Struct, kw_only=True, array_like=True, gc=False):
    """An IndexEntry in the cache file."""

    size: int
    mtime_ns: int
    inode: int
    builder: msgspec.Raw = msgspec.Raw(_NIL)  # a SummaryBuilder (or nil), decoded when needed
    summary: SessionSummary | None = None
    skipped: str | None = None


class IndexFile(msgspec.Struct, kw_only=True):
    version: int
    root: str
    entries: dict[str, _StoredEntry]


_builder_decoder = msgspec.msgpack.Decoder(SummaryBuilder | None)


def default_cache_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_path("pi-sessions"))


def cache_file_path(base: Path, root: str, keep_text: bool) -> Path:
    digest = hashlib.sha256(root.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    text = "-text" if keep_text else ""
    return base / f"index-v{CACHE_VERSION}{text}-{digest}.msgpack"


def load_index(path: Path, root: str) -> tuple[dict[str, IndexEntry] | None, str | None]:
    """The entries of the index for `root` (None when there is none to use) and, when the
    file was there but not usable, why."""
    try:
        data = read_cache_file(path)
    except FileNotFoundError:
        return None, None
    except OSError as e:
        return None, f"cache unreadable ({e.strerror or e}); rebuilt"
    try:
        index = msgspec.msgpack.decode(data, type=IndexFile)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None, "cache corrupt; rebuilt"
    if index.version != CACHE_VERSION or index.root != root:
        return None, "cache from another version; rebuilt"
    return {file: _entry(stored) for file, stored in index.entries.items()}, None


def save_index(path: Path, root: str, entries: dict[str, IndexEntry]) -> str | None:
    """Write the index atomically; returns a problem description instead of raising."""
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        data = _encode_index(root, entries)
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


class _Result(msgspec.Struct, array_like=True, gc=False):
    """One file read by a helper process: its path, its entry (none: it vanished), bytes read."""

    path: str
    entry: _StoredEntry | None
    read: int


def encode_results(results: list[tuple[str, IndexEntry | None, int]]) -> bytes:
    """Files read in another process, for `decode_results` here (their states stay encoded)."""
    rows = []
    for path, entry, read in results:
        try:
            rows.append(_Result(path, _stored(entry) if entry is not None else None, read))
        except _UNENCODABLE:
            rows.append(_Result(path, None, -1))  # (read again there: see decode_results)
    try:
        return msgspec.msgpack.encode(rows)
    except _UNENCODABLE:
        pass
    for i, row in enumerate(rows):
        try:
            msgspec.msgpack.encode(row)
        except _UNENCODABLE:
            rows[i] = _Result(row.path, None, -1)
    return msgspec.msgpack.encode(rows)


def decode_results(
    data: bytes, reread: Callable[[str], tuple[IndexEntry | None, int]]
) -> list[tuple[str, IndexEntry | None, int]]:
    """The files `encode_results` sent; one it could not encode is read again here (`reread`:
    the store's reader, passed in since the store imports this module)."""
    out: list[tuple[str, IndexEntry | None, int]] = []
    for row in msgspec.msgpack.decode(data, type=list[_Result]):
        if row.read < 0:
            out.append((row.path, *reread(row.path)))
        else:
            out.append((row.path, _entry(row.entry) if row.entry is not None else None, row.read))
    return out


def _stored(entry: IndexEntry) -> _StoredEntry:
    return _StoredEntry(
        size=entry.size,
        mtime_ns=entry.mtime_ns,
        inode=entry.inode,
        builder=msgspec.Raw(entry.encoded_builder()),
        summary=entry.summary,
        skipped=entry.skipped,
    )


def _entry(stored: _StoredEntry) -> IndexEntry:
    state = bytes(stored.builder)
    return IndexEntry(
        stored.size,
        stored.mtime_ns,
        stored.inode,
        summary=stored.summary,
        skipped=stored.skipped,
        state=None if state == _NIL else state,
    )


_UNENCODABLE = (msgspec.EncodeError, UnicodeEncodeError, OverflowError, ValueError, TypeError)


def _encode_index(root: str, entries: dict[str, IndexEntry]) -> bytes:
    # Something unencodable (a lone surrogate, a 400-digit number) leaves that file out of
    # the cache: it is simply read again next time.
    stored = {}
    for file, entry in entries.items():
        try:
            stored[file] = _stored(entry)
        except _UNENCODABLE:
            continue
    try:
        return msgspec.msgpack.encode(IndexFile(version=CACHE_VERSION, root=root, entries=stored))
    except _UNENCODABLE:
        pass
    keep = {}
    for file, row in stored.items():
        try:
            msgspec.msgpack.encode(row)
        except _UNENCODABLE:
            continue
        keep[file] = row
    return msgspec.msgpack.encode(IndexFile(version=CACHE_VERSION, root=root, entries=keep))


def read_cache_file(path: str | os.PathLike[str]) -> bytes:
    """The index cache's bytes, if it is a regular file of a sane size. Opened without
    blocking, so a FIFO (or a link to a device) where the cache belongs cannot hang us."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        if st.st_size > MAX_CACHE_BYTES:
            raise OSError(errno.EFBIG, f"over {MAX_CACHE_BYTES >> 20} MiB")
        chunks: list[bytes] = []
        left = st.st_size
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
