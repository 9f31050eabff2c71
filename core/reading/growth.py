"""What a file gained since it was last read: one open, one guard, one read for all its readers.

A reader of a file (the store's summary of it, a session open in the browser) remembers where
it stopped and the bytes around that point: a `ReadMark`. `read_growth` opens the file once
(without blocking: a FIFO cannot hang it), judges every mark (same inode, not shorter, the
first bytes and the bytes just before the mark unchanged) and reads, in one go, what is new to
any of them; readers of the same file share that read, so an appended byte is read once.
A mark that no longer holds (the file was truncated, rewritten or replaced) makes the whole
file be read, still once, and that reader starts again from it.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TypeVar

from ..common.problems import SessionError
from .lines import HEAD_BYTES, TAIL_BYTES


class Verdict(StrEnum):
    FRESH = "fresh"  # a reader that has read nothing yet: the whole file is new to it
    UNCHANGED = "unchanged"
    GREW = "grew"  # what was read is still there; bytes follow it
    REPLACED = "replaced"  # truncated, rewritten or another inode: read it again from the start


@dataclass(frozen=True, slots=True)
class ReadMark:
    """Where a reader stopped in a file, and what it saw there."""

    offset: int  # the first byte not read
    head: bytes  # the file's first bytes (up to HEAD_BYTES, and not past `offset`)
    tail: bytes  # the TAIL_BYTES before `offset`
    inode: int | None = None  # None: not known
    # The file's size and mtime when it was read: a file that still has both is unchanged...
    size: int = -1
    mtime_ns: int = -1
    # ...and its ctime (-1: not known): a same-size rewrite whose mtime was put back has a new
    # one (nobody can set it back). A rename or a chmod gives one too: read again, to be safe.
    ctime_ns: int = -1

    def advanced(self, consumed: bytes, stamp: Stamp) -> ReadMark:
        """The mark after `consumed` (the bytes at `offset`) were read."""
        end = self.offset + len(consumed)
        head = self.head
        if len(head) < HEAD_BYTES:
            head = (head + consumed)[: min(HEAD_BYTES, end)]
        tail = (self.tail + consumed)[-TAIL_BYTES:] if consumed else self.tail
        return ReadMark(end, head, tail, stamp.inode, stamp.size, stamp.mtime_ns, stamp.ctime_ns)


def mark_of(data: bytes, end: int, stamp: Stamp) -> ReadMark:
    """The mark of a reader that read `data` (a whole file) up to `end`."""
    head, tail = data[: min(HEAD_BYTES, end)], data[max(0, end - TAIL_BYTES) : end]
    return ReadMark(end, head, tail, stamp.inode, stamp.size, stamp.mtime_ns, stamp.ctime_ns)


def look_at(path: str, marks: Sequence[ReadMark]) -> Growth:
    """`read_growth`, its failures said as one SessionError (the file gone, or unreadable)."""
    try:
        return read_growth(path, list(marks))
    except FileNotFoundError:
        raise SessionError(f"the file is gone: {path}") from None
    except OSError as e:
        raise SessionError(f"cannot read {path}: {e.strerror or e}") from None


def mark_read_back(read: Callable[[int, int], bytes], end: int, stamp: Stamp) -> ReadMark:
    """The mark of a reader that read up to `end` of a file it can read again (`read(offset, size)`)."""
    head = read(0, min(HEAD_BYTES, end)) if end else b""
    tail = read(max(0, end - TAIL_BYTES), min(end, TAIL_BYTES)) if end else b""
    return ReadMark(end, head, tail, stamp.inode, stamp.size, stamp.mtime_ns, stamp.ctime_ns)


@dataclass(frozen=True, slots=True)
class Stamp:
    """The file as `fstat` saw it when it was read."""

    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int = -1  # (-1: not known)

    @classmethod
    def of(cls, st: os.stat_result) -> Stamp:
        return cls(st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


@dataclass(slots=True)
class Growth:
    """One look at a file: its stamp, the bytes read (from `start` to `stamp.size`), and a
    verdict per mark."""

    path: str
    stamp: Stamp
    start: int
    data: bytes
    head: bytes  # the file's first bytes as they are now (what was needed of them)
    marks: list[ReadMark | None] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)  # one per mark

    @property
    def size(self) -> int:
        return self.stamp.size

    def verdict(self, mark: ReadMark | None) -> Verdict:
        """The verdict on `mark` (one given to `read_growth`, or an equal one, or another one
        that what was read can judge; KeyError when it cannot)."""
        for known, given in zip(self.marks, self.verdicts, strict=True):
            if known == mark:
                return given
        verdict = self._judge(mark)
        if verdict is None:
            raise KeyError("this look at the file cannot judge that mark")
        return verdict

    def since(self, offset: int) -> bytes:
        """The file's bytes from `offset` to the size seen (what was read covers them)."""
        if offset < self.start:
            raise ValueError(f"bytes before {self.start} were not read")
        return self.data[offset - self.start :] if offset > self.start else self.data

    def span(self, offset: int, end: int) -> bytes:
        return self.data[offset - self.start : end - self.start]

    def _judge(self, mark: ReadMark | None) -> Verdict | None:
        """What the stamp and the bytes read say about `mark`; None when they do not cover
        the bytes it needs."""
        if mark is None:
            return Verdict.FRESH
        stamp = self.stamp
        if (mark.inode is not None and mark.inode != stamp.inode) or stamp.size < mark.offset:
            return Verdict.REPLACED
        if (mark.size, mark.mtime_ns, mark.inode) == (stamp.size, stamp.mtime_ns, stamp.inode):
            if mark.ctime_ns in (-1, stamp.ctime_ns) or stamp.ctime_ns == -1:
                return Verdict.UNCHANGED
            return Verdict.REPLACED  # the same size and mtime, a new ctime: maybe rewritten
        if stamp.size == mark.size:
            return Verdict.REPLACED  # a new mtime but not one byte more: rewritten in place
        tail_start = mark.offset - len(mark.tail)
        head = self.data if self.start == 0 else self.head
        if tail_start < self.start or len(head) < len(mark.head):
            return None
        if head[: len(mark.head)] != mark.head or self.span(tail_start, mark.offset) != mark.tail:
            return Verdict.REPLACED
        if not mark.tail and mark.offset:
            return Verdict.REPLACED  # bytes were read but none remembered: cannot tell
        return Verdict.GREW if stamp.size > mark.offset else Verdict.UNCHANGED


def read_growth(path: str, marks: Sequence[ReadMark | None]) -> Growth:
    """Look at `path` once for every reader in `marks` (None: a reader that wants the whole
    file). Raises OSError (FileNotFoundError once it is gone; EINVAL for what is not a regular
    file)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        stamp = Stamp.of(st)
        look = Growth(path, stamp, stamp.size, b"", b"")
        # What the stamp alone decides, and where the bytes the others need begin.
        first: list[Verdict | None] = [look._judge(mark) for mark in marks]
        start = stamp.size
        head_needed = 0
        for mark, verdict in zip(marks, first, strict=True):
            if verdict in (Verdict.FRESH, Verdict.REPLACED):
                start = 0
            elif verdict is None and mark is not None:
                start = min(start, mark.offset - len(mark.tail))
                head_needed = max(head_needed, len(mark.head))
        if start < stamp.size:
            look.start, look.data = start, _pread_all(fd, start, stamp.size)
        if head_needed:
            look.head = look.data[:head_needed] if start == 0 else _pread_all(fd, 0, head_needed)
        for mark, verdict in zip(marks, first, strict=True):
            if verdict is None:
                verdict = look._judge(mark) or Verdict.REPLACED
                if verdict is Verdict.REPLACED and look.start > 0:
                    # This reader starts again from the beginning: read what is before, once.
                    look.data = _pread_all(fd, 0, look.start) + look.data
                    look.start = 0
            look.marks.append(mark)
            look.verdicts.append(verdict)
        if look.start + len(look.data) < stamp.size:
            # The file shrank while it was read: what was read is what there is.
            look.stamp = Stamp(stamp.inode, look.start + len(look.data), -1)
        return look
    finally:
        os.close(fd)


# A file bigger than this is read a piece at a time (`read_whole`): a fresh buffer for a whole
# 90 MB file costs more in page faults than its pieces cost in calls (pieces of one size reuse
# the same memory).
PIECE_BYTES = 8 * 1024 * 1024

T = TypeVar("T")


def read_whole(path: str, take: Callable[[Pieces, Callable[[], Stamp]], T]) -> T:
    """What `take` makes of all of `path`: given its bytes in pieces (each with whether it is
    the last; a piece that ends within a line is followed by that line again, from where its
    taker stopped: see `Pieces`) and how to know the file's stamp once they are read (smaller
    if it shrank meanwhile). Raises OSError as `read_growth` does."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        pieces = Pieces(fd, st.st_size)
        return take(pieces, lambda: pieces.stamp(st))
    finally:
        os.close(fd)


class Pieces:
    """A file's bytes, up to the size `fstat` gave, as one piece or (past PIECE_BYTES) several;
    the bytes of each the taker did not take (`taken`) start the next.

    Several pieces are one buffer, read into again: a fresh 8 MB object per piece cost a page
    fault per 4 KiB read (a third of reading a 90 MB file) and the carried bytes a copy of
    the piece. A taker reads a piece while it has it and keeps none of it (slices are copies)."""

    def __init__(self, fd: int, size: int) -> None:
        self.fd, self.size, self.read = fd, size, 0
        self.taken = 0  # of the current piece, set by its taker before asking the next

    def __iter__(self) -> Iterator[tuple[bytes | bytearray, bool]]:
        if self.size <= PIECE_BYTES:
            data = _pread_all(self.fd, 0, self.size)
            self.read = len(data)
            yield data, True
            return
        buffer = bytearray(PIECE_BYTES)
        kept = 0  # bytes at the buffer's start carried over from the last piece
        while True:
            room = max(PIECE_BYTES, 2 * kept)  # (a long line: room for as much again)
            if len(buffer) < room:
                buffer.extend(bytes(room - len(buffer)))
            end = min(len(buffer), kept + self.size - self.read)
            got = os.preadv(self.fd, [memoryview(buffer)[kept:end]], self.read) if end > kept else 0
            self.read += got
            if len(buffer) > kept + got:  # (the last piece, or a short read)
                try:
                    del buffer[kept + got :]
                except BufferError:  # (a taker kept a view of it after all: not read into again)
                    buffer = buffer[: kept + got]
            if not got or self.read >= self.size:
                yield buffer, True
                return
            self.taken = len(buffer)
            yield buffer, False
            kept = len(buffer) - self.taken
            buffer[:kept] = buffer[self.taken :]  # (same length: no resize, a move)

    def stamp(self, st: os.stat_result) -> Stamp:
        if self.read < st.st_size:
            return Stamp(st.st_ino, self.read, -1)  # it shrank while it was read
        return Stamp.of(st)


def _pread_all(fd: int, start: int, end: int) -> bytes:
    chunks: list[bytes] = []
    pos = start
    while pos < end:
        chunk = os.pread(fd, end - pos, pos)
        if not chunk:
            break
        chunks.append(chunk)
        pos += len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


class GrowthSource:
    """The bytes one look at a file read, as a ByteSource at their offsets in the file."""

    def __init__(self, growth: Growth) -> None:
        self._growth = growth

    def size(self) -> int:
        return self._growth.size

    def read(self, offset: int, length: int) -> bytes:
        return self._growth.span(offset, offset + length)
