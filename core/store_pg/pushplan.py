"""What one push of a file sends: the lines after the stored prefix, or all when it was rewritten."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

# Redaction on push: raw line in, the line to store out (same newline). The secrets issue's
# detector plugs in here; None stores the lines exactly as in the file.
Redact = Callable[[bytes], bytes]
# A file's own redaction, made from its path and its bytes (primed with the secrets it holds:
# core/audit/redact.py `line_redaction`), then called for each line pushed.
RedactFor = Callable[[str, bytes], Redact]


@dataclass(frozen=True, slots=True)
class Stored:
    """What the store holds of one file: its row id and the prefix pushed so far."""

    id: int
    size: int
    digest: bytes


@dataclass(frozen=True, slots=True)
class Plan:
    """`start`: the first byte to send (lines from there on replace what the store holds from
    there); `replace`: the stored lines are not the file's (rewritten, truncated): all go."""

    start: int
    replace: bool
    size: int
    digest: bytes

    @property
    def sends_nothing(self) -> bool:
        return not self.replace and self.start == self.size


def digest_of(data: bytes | memoryview) -> bytes:
    return hashlib.sha256(data).digest()


def plan_push(data: bytes, stored: Stored | None) -> Plan:
    """The push of a file whose bytes are now `data`, given what the store holds of it.

    The stored prefix still matches (same size at most, same digest): only what follows
    travels. A last line stored without its newline (pi was writing it) is sent again, whole,
    so every stored row is one line of the file. Anything else: the file is sent again."""
    size, digest = len(data), digest_of(data)
    if stored is None:
        return Plan(0, False, size, digest)
    view = memoryview(data)
    if stored.size > size or digest_of(view[: stored.size]) != stored.digest:
        return Plan(0, stored.size > 0, size, digest)
    start = stored.size
    if start and start < size and data[start - 1] != 0x0A:
        start = data.rfind(b"\n", 0, start) + 1
    return Plan(start, False, size, digest)


def lines_from(data: bytes, start: int) -> Iterator[tuple[int, bytes]]:
    """(byte offset, raw line with its newline) from `start` to the end; the last may have
    no newline."""
    size = len(data)
    at = start
    find = data.find
    while at < size:
        end = find(b"\n", at)
        end = size if end < 0 else end + 1
        yield at, data[at:end]
        at = end
