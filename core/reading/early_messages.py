"""The messages of a conversation's lines, encoded by a helper process while the session opens.

`context --json` of one leaf spends a third of its time reading the bodies back, decoding
them and encoding their messages (100,000 entries: ~180 ms of ~600). That needs no session:
a forked helper does it on the other core while this process reads the structure. For each
message line whose message has a content (what pi's projection sends as it is) it encodes
the message, comma-joined in file order, into an anonymous in-memory file, and keeps the
line's id. What it made is used only when the leaf's context entries that send messages are
exactly those lines, in that order (a conversation without a fork, a compaction, an edit or
an id used twice; settings between the messages are fine); otherwise it is dropped and the
bodies are read as usual. Comparing the ids is the check reading a body back makes. Linux
only (fork, memfd); elsewhere, on one core, or for a file too small or too big, no helper.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator, Sequence
from itertools import repeat
from operator import attrgetter
from typing import Any

import msgspec

from ..common.jsonout import encode_json_items
from .bodies import MessageLine, message_line_decoder
from .records import EntryRecord

# Files from this size on get a helper (below it, a fork costs about what it saves), up to
# the largest whose encoded messages are held in memory (the helper's file is RAM).
MIN_BYTES = 4 * 1024 * 1024
MAX_BYTES = 64 * 1024 * 1024
READ_BYTES = 1024 * 1024


class EarlyMessages:
    """A running helper (`start`), then what it made (`take`); `close` in any case."""

    def __init__(self, pid: int, encoded: int, ids: int) -> None:
        self.pid: int | None = pid
        self.encoded, self.ids = encoded, ids  # the helper's two in-memory files

    @classmethod
    def start(cls, path: str) -> EarlyMessages | None:
        """A helper for the session file at `path`, or None (see the module's first lines)."""
        if not all(hasattr(os, name) for name in ("fork", "memfd_create", "sched_getaffinity")):
            return None
        try:
            if len(os.sched_getaffinity(0)) < 2 or not MIN_BYTES <= os.stat(path).st_size <= MAX_BYTES:
                return None
            encoded = os.memfd_create("pi-sessions-messages")
        except OSError:
            return None
        try:
            ids = os.memfd_create("pi-sessions-ids")
        except OSError:
            _close_all(encoded)
            return None
        try:
            pid = os.fork()
        except OSError:
            _close_all(encoded, ids)
            return None
        if pid == 0:  # the helper: never returns
            code = 1
            try:
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                _encode_file(path, encoded, ids)
                code = 0
            except BaseException:
                pass
            os._exit(code)
        return cls(pid, encoded, ids)

    def take(self, sending: Sequence[EntryRecord]) -> tuple[int, int] | None:
        """(descriptor, size) of the encoded messages of `sending` (the context entries that
        send messages, in order; none with an edit, the file not migrated) when they are the
        lines the helper encoded; else None. Waits for the helper."""
        if self.pid is None:
            return None
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            status = 1
        self.pid = None
        if status != 0:
            return None
        ids: list[Any] = msgspec.msgpack.decode(_read_all(self.ids))
        if len(ids) != len(sending) or ids != list(map(_id_of, sending)):
            return None
        return self.encoded, os.fstat(self.encoded).st_size

    def close(self) -> None:
        """Stop the helper if it still runs; free its files."""
        if self.pid is not None:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            self.pid = None
        _close_all(self.encoded, self.ids)


_type_of, _id_of, _message_of = attrgetter("type"), attrgetter("id"), attrgetter("message")


def _encode_file(path: str, encoded: int, ids_file: int) -> None:
    """The helper's work: the message of every message line that has a content, encoded."""
    ids: list[Any] = []
    nothing_yet = True
    with open(path, "rb", buffering=0) as f:
        pending = bytearray()  # what was read and not decoded yet: the start of a line
        while chunk := f.read(READ_BYTES):
            end = chunk.rfind(b"\n")
            pending += chunk
            if end < 0:
                continue
            cut = len(pending) - len(chunk) + end + 1
            nothing_yet = _encode_lines(bytes(pending[:cut]), encoded, ids, nothing_yet)
            del pending[:cut]
        if pending.strip():
            with contextlib.suppress(msgspec.DecodeError):  # a last line still being written
                _encode_lines(bytes(pending), encoded, ids, nothing_yet)
    _write_all(ids_file, msgspec.msgpack.encode(ids))


def _encode_lines(lines: bytes, encoded: int, ids: list[Any], nothing_yet: bool) -> bool:
    """Encode the messages of `lines` (whole JSON lines) into `encoded`; whether still
    nothing is written."""
    messages = _sent_as_they_are(message_line_decoder.decode_lines(lines), ids)
    if not messages:
        return nothing_yet
    data = encode_json_items(messages)
    _write_all(encoded, data if nothing_yet else b"," + data)
    return False


def _sent_as_they_are(lines: list[MessageLine], ids: list[Any]) -> list[Any]:
    """The messages of `lines` that pi's projection sends unchanged (a message entry whose
    message is an object with a content), their ids added to `ids`. A run of only such lines
    without a Python step per line, else line by line."""
    kinds = list(map(_type_of, lines))
    if kinds.count("message") == len(kinds):
        messages = list(map(_message_of, lines))
        try:
            if None not in map(dict.get, messages, repeat("content")):
                ids += map(_id_of, lines)
                return messages
        except TypeError:  # a message that is not an object
            pass
    out = []
    for line in lines:
        message = line.message
        if line.type == "message" and message.__class__ is dict and message.get("content") is not None:
            ids.append(line.id)
            out.append(message)
    return out


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _read_all(fd: int) -> bytes:
    return b"".join(file_pieces(fd, 0, os.fstat(fd).st_size))


def file_pieces(fd: int, start: int, end: int) -> Iterator[bytes]:
    """The bytes of the file open at `fd` from `start` to `end`, a read at a time."""
    while start < end:
        part = os.pread(fd, min(end - start, 1 << 20), start)
        if not part:
            return
        yield part
        start += len(part)


def _close_all(*fds: int) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)
