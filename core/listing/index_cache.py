"""The persistent index cache: where it lives, what it holds, and reading it safely.

Under `platformdirs.user_cache_path("pi-sessions")`, one file per sessions folder remembers,
per session file, its size, mtime, inode and ctime, its summary and the running state of the summary
(so a warm start is a stat per file). It is read only when it is a regular file of a sane
size, opened without blocking (a FIFO or a device where it belongs cannot hang us), written
atomically, and a corrupt, stale or unwritable cache is ignored and rebuilt.

The file is the magic, the length of the head, the head (msgpack: every file's stamp and
summary, and where its state is) and then the states, one after the other. A start reads the
head only: the states (with the search texts, most of the file: 150 MB at 30,000 sessions)
are read one at a time, when a file grew or its texts are searched, from the file as it was
loaded (its descriptor stays open, so a newer cache written meanwhile changes nothing).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
import weakref
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
from msgspec.structs import replace

from ..reading.growth import ReadMark
from .summary import SessionSummary, SummaryBuilder

CACHE_VERSION = (
    # 10: oh-my-pi's title slot; 9: ctimes; 8: the head's CRC-32; 7: in the listing's order;
    # 6: tool results' usage; 5: states apart
    10
)
MAGIC = b"pisx" + CACHE_VERSION.to_bytes(4, "big")  # the file's first bytes; then the head's length
_PREFIX = len(MAGIC) + 8 + 4  # then the head's CRC-32: a flipped bit is a rebuild, not a wrong list
# An index of 2,000 sessions with their texts is ~10 MiB: anything past this is not ours.
MAX_CACHE_BYTES = 1 << 30


class _States:
    """The states region of a loaded cache file, read a state at a time (positional reads
    on the descriptor it keeps open: safe from any thread)."""

    __slots__ = ("__weakref__", "end", "fd", "start")

    def __init__(self, fd: int, start: int, end: int) -> None:
        self.fd, self.start, self.end = fd, start, end
        weakref.finalize(self, os.close, fd)  # closed once no entry points here

    def read(self, at: int, length: int) -> bytes | None:
        """The state at `at` (None: the file no longer holds it)."""
        try:
            data = os.pread(self.fd, length, self.start + at)
        except OSError:
            return None
        return data if len(data) == length else None


class _Span:
    """Where an entry's encoded state is, in a loaded cache file."""

    __slots__ = ("at", "length", "states")

    def __init__(self, states: _States, at: int, length: int) -> None:
        self.states, self.at, self.length = states, at, length

    def read(self) -> bytes | None:
        return self.states.read(self.at, self.length)


class IndexEntry(msgspec.Struct, array_like=True, gc=False, eq=False):
    """One session file as the index remembers it. Its summary's running state (`builder`)
    stays encoded (in memory, or in the cache file it was loaded from) until someone needs
    it: a warm start reads only the summaries.

    Its first eight fields are a `_StoredEntry`'s: a cache file's head decodes into entries
    at C speed (making 30,000 of them one by one cost a warm start 30 ms)."""

    size: int
    mtime_ns: int
    inode: int
    state_at: int = -1  # where the loaded cache file has the state (with `_state` its `_States`)
    state_length: int = 0
    summary: SessionSummary | None = None  # derived from `builder`, kept so a warm start is a stat
    skipped: str | None = None  # why this file is not a session (left out of the list)
    ctime_ns: int = -1  # (-1: not known) a same-size rewrite with its mtime put back changes it
    _builder: Any = None  # SummaryBuilder | None
    _state: Any = None  # `builder`, encoded: bytes, or the `_States` that hold it (None: decoded)

    def _encoded(self, state: Any) -> bytes | None:
        """`state` (this entry's `_state`, read once by the caller), as bytes."""
        if isinstance(state, _States):
            return state.read(self.state_at, self.state_length)
        return state  # type: ignore[no-any-return]

    @property
    def builder(self) -> SummaryBuilder | None:
        """The running state (None: none, or its cache file lost it: the file is read again)."""
        if self._state is not None:
            self._builder = _decode_state(self._encoded(self._state))
            self._state = None  # it may change from now on: encoded again when saved
        return self._builder  # type: ignore[no-any-return]

    @builder.setter
    def builder(self, value: SummaryBuilder | None) -> None:
        self._builder, self._state = value, None

    @property
    def texts(self) -> list[str] | None:
        """The builder's texts, without keeping a builder decoded for them."""
        state, builder = self._state, self._builder  # (read once: the store may change them meanwhile)
        if state is not None:
            builder = _decode_state(self._encoded(state))
        return builder.texts if builder is not None else None

    def pack(self) -> None:
        """Keep the running state encoded from now on (it is decoded again when needed): a
        cold scan's second process and its first encode theirs while they read, not after."""
        if self._state is None and self._builder is not None:
            self._state, self._builder = msgspec.msgpack.encode(self._builder), None

    def matches(self, st: os.stat_result) -> bool:
        """The file is as it was when this entry was read (same inode, size, mtime and ctime)."""
        return (
            st.st_ino == self.inode
            and st.st_size == self.size
            and st.st_mtime_ns == self.mtime_ns
            and (st.st_ctime_ns == self.ctime_ns or self.ctime_ns == -1)
        )

    @property
    def mark(self) -> ReadMark | None:
        """Where the summary stopped reading (None: it has to read the file from the start)."""
        b = self.builder
        if b is None:
            return None
        return ReadMark(b.offset, b.head, b.tail, self.inode, self.size, self.mtime_ns, self.ctime_ns)


_NIL = b"\xc0"  # msgpack's nil


class _StoredEntry(msgspec.Struct, kw_only=True, array_like=True, gc=False):
    """An IndexEntry in the cache file's head."""

    size: int
    mtime_ns: int
    inode: int
    state_at: int = -1  # where its SummaryBuilder is in the states region (-1: none)
    state_length: int = 0
    summary: SessionSummary | None = None
    skipped: str | None = None
    ctime_ns: int = -1


class IndexFile(msgspec.Struct, kw_only=True):
    """The cache file's head."""

    version: int
    root: str
    entries: dict[str, _StoredEntry]


class _LoadedFile(msgspec.Struct, kw_only=True):
    """The cache file's head, as it is read: its entries are IndexEntry already."""

    version: int
    root: str
    entries: dict[str, IndexEntry]


_builder_decoder = msgspec.msgpack.Decoder(SummaryBuilder | None)
_head_decoder = msgspec.msgpack.Decoder(_LoadedFile)


def _decode_state(data: bytes | None) -> SummaryBuilder | None:
    if data is None:
        return None
    try:
        return _builder_decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None  # a damaged state: the file is read again


def default_cache_dir() -> Path:
    """`platformdirs.user_cache_path("pi-sessions")`; on Linux worked out here, by the XDG rule
    platformdirs follows (importing it cost 5-7 ms of a 90 ms `pi-sessions list`)."""
    if sys.platform == "linux":
        base = os.environ.get("XDG_CACHE_HOME", "")
        if not os.path.isabs(base):
            base = os.path.expanduser("~/.cache")
        if os.path.isabs(base):
            return Path(base, "pi-sessions")
    import platformdirs

    return Path(platformdirs.user_cache_path("pi-sessions"))


def cache_file_path(base: Path, root: str, keep_text: bool) -> Path:
    # A name per root (not a security measure: the file says which root it is for; a name
    # shared by two roots would only make them read their files again in turn).
    raw = root.encode("utf-8", "surrogateescape")
    digest = f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}"
    text = "-text" if keep_text else ""
    return base / f"index-v{CACHE_VERSION}{text}-{digest}.msgpack"


class _Unusable(Exception):
    """The cache file is there but not usable (the message says why)."""


def load_index(path: Path, root: str) -> tuple[dict[str, IndexEntry] | None, str | None]:
    """The entries of the index for `root` (None when there is none to use) and, when the
    file was there but not usable, why. Their states stay in the file (see `_States`)."""
    try:
        fd, size = open_cache_file(path)
    except FileNotFoundError:
        return None, None
    except OSError as e:
        return None, f"cache unreadable ({e.strerror or e}); rebuilt"
    try:
        index, start = _read_head(fd, size, root)
    except _Unusable as e:
        os.close(fd)
        return None, str(e)
    room = size - start
    states = _States(fd, start, size)  # the descriptor is the states' from now on
    entries = index.entries
    for file, entry in entries.items():
        at, length = entry.state_at, entry.state_length
        if at >= 0 and length > 0:
            if at + length > room:
                return None, "cache corrupt (cut short); rebuilt"  # (`states` closes the file)
            entry._state = states
        summary = entry.summary
        if summary is not None:
            summary.path = file  # (one string for the key and the summary)
    return entries, None


def _read_head(fd: int, size: int, root: str) -> tuple[_LoadedFile, int]:
    """The head of the cache file and where its states start; raises `_Unusable`."""
    try:
        prefix = os.pread(fd, _PREFIX, 0)
        if len(prefix) < _PREFIX or prefix[:4] != MAGIC[:4]:
            raise _Unusable("cache corrupt; rebuilt")
        if prefix[: len(MAGIC)] != MAGIC:
            raise _Unusable("cache from another version; rebuilt")
        head_length = int.from_bytes(prefix[len(MAGIC) : len(MAGIC) + 8], "little")
        if head_length > size - _PREFIX:
            raise _Unusable("cache corrupt; rebuilt")
        head = _read_exactly(fd, head_length, _PREFIX)
    except OSError as e:
        raise _Unusable(f"cache unreadable ({e.strerror or e}); rebuilt") from e
    if zlib.crc32(head) != int.from_bytes(prefix[len(MAGIC) + 8 :], "little"):
        raise _Unusable("cache corrupt (checksum); rebuilt")
    try:
        index = _head_decoder.decode(head)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as e:
        raise _Unusable("cache corrupt; rebuilt") from e
    if index.version != CACHE_VERSION or index.root != root:
        raise _Unusable("cache from another version; rebuilt")
    return index, _PREFIX + head_length


def save_index(path: Path, root: str, entries: dict[str, IndexEntry]) -> str | None:
    """Write the index atomically; returns a problem description instead of raising."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        head, states = _encode_index(root, entries)
        fd, temp = _new_file(path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(MAGIC + len(head).to_bytes(8, "little") + zlib.crc32(head).to_bytes(4, "little"))
                f.write(head)
                f.writelines(map(_state_bytes, states))
            os.replace(temp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
    except OSError as e:
        return f"cannot write the cache in {path.parent}: {e.strerror or e}"
    return None


def _new_file(folder: Path) -> tuple[int, str]:
    """A new file of our own in `folder` (as `tempfile.mkstemp` makes one: importing that
    was 4 ms of a cold listing)."""
    for _ in range(100):
        name = os.path.join(folder, f".index-{os.urandom(6).hex()}")
        try:
            return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600), name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free name for a new cache file", str(folder))


# One file read by a helper process: its path, its entry (None: it vanished; the state inside
# it encoded, see `IndexEntry.pack`) and the bytes read (-1: it could not be sent).
_Result = tuple[str, IndexEntry | None, int]
_results_decoder = msgspec.msgpack.Decoder(list[_Result])


def encode_results(results: list[tuple[str, IndexEntry | None, int]]) -> bytes:
    """Files read in another process, for `decode_results` here (their states stay encoded)."""
    rows: list[_Result] = []
    for path, entry, read in results:
        if entry is not None:
            try:
                entry.pack()
            except UNENCODABLE:
                rows.append((path, None, -1))  # (read again there: see decode_results)
                continue
        rows.append((path, entry, read))  # (read just now, packed: its state is bytes)
    try:
        return msgspec.msgpack.encode(rows)
    except UNENCODABLE:
        pass
    for i, row in enumerate(rows):
        try:
            msgspec.msgpack.encode(row)
        except UNENCODABLE:
            rows[i] = (row[0], None, -1)
    return msgspec.msgpack.encode(rows)


def decode_results(
    data: bytes, reread: Callable[[str], tuple[IndexEntry | None, int]]
) -> list[tuple[str, IndexEntry | None, int]]:
    """The files `encode_results` sent (decoded at C speed, straight into entries); one it
    could not encode is read again here (`reread`: the store's reader, passed in since the
    store imports this module)."""
    rows = _results_decoder.decode(data)
    for i, (path, _, read) in enumerate(rows):
        if read < 0:
            rows[i] = (path, *reread(path))
    return rows


# What msgspec raises for a value msgpack cannot hold (a lone surrogate, a 400-digit number).
UNENCODABLE = (msgspec.EncodeError, UnicodeEncodeError, OverflowError, ValueError, TypeError)


def _encode_index(root: str, entries: dict[str, IndexEntry]) -> tuple[bytes, list[bytes | _Span]]:
    """The head and the states of the cache file (a state still in the loaded file is read
    when it is written, not before). Something unencodable (a lone surrogate, a 400-digit
    number) leaves that file out: it is simply read again next time."""
    encode = msgspec.msgpack.encode
    stored: dict[str, _StoredEntry] = {}
    states: list[bytes | _Span] = []
    at = 0
    for file, entry in entries.items():  # (once per session at every save: kept lean)
        state = entry._state
        if state is None:
            try:
                state = encode(entry._builder)
            except UNENCODABLE:
                continue
        elif state.__class__ is _States:
            state = _Span(state, entry.state_at, entry.state_length)
        summary = entry.summary
        if state == _NIL:
            at_length = (-1, 0)
        else:
            length = len(state) if state.__class__ is bytes else state.length
            at_length = (at, length)
            states.append(state)
            at += length
        stored[file] = _StoredEntry(
            size=entry.size,
            mtime_ns=entry.mtime_ns,
            inode=entry.inode,
            state_at=at_length[0],
            state_length=at_length[1],
            # the path is the entry's key: not stored twice (a quarter of the head at 30k)
            summary=replace(summary, path="") if summary is not None else None,
            skipped=entry.skipped,
            ctime_ns=entry.ctime_ns,
        )
    try:
        head = encode(IndexFile(version=CACHE_VERSION, root=root, entries=stored))
    except UNENCODABLE:
        keep = {}
        for file, row in stored.items():
            try:
                encode(file)  # the key too: a file name that is not UTF-8
                encode(row)
            except UNENCODABLE:
                continue  # (its state stays in the file, unused)
            keep[file] = row
        head = encode(IndexFile(version=CACHE_VERSION, root=root, entries=keep))
    return head, states


def _state_bytes(state: bytes | _Span) -> bytes:
    if isinstance(state, bytes):
        return state
    # Lost from the loaded file meanwhile: bytes that decode as no state (read again).
    return state.read() or bytes(state.length)


def _read_exactly(fd: int, length: int, offset: int) -> bytes:
    chunks: list[bytes] = []
    while length > 0:
        chunk = os.pread(fd, length, offset)
        if not chunk:
            raise OSError(errno.EIO, "the cache file is shorter than it says")
        chunks.append(chunk)
        length -= len(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def open_cache_file(path: str | os.PathLike[str]) -> tuple[int, int]:
    """A descriptor of the index cache and its size, if it is a regular file of a sane size.
    Opened without blocking, so a FIFO (or a link to a device) where the cache belongs cannot
    hang us."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        if st.st_size > MAX_CACHE_BYTES:
            raise OSError(errno.EFBIG, f"over {MAX_CACHE_BYTES >> 20} MiB")
    except BaseException:
        os.close(fd)
        raise
    return fd, st.st_size
