"""Reading JSONL by byte offsets.

A session file is read as complete lines between two byte offsets, in bounded chunks so a
huge file never needs one huge buffer (only a huge *line* does). Lines are split on `\\n`
(a `\\r` before it is JSON whitespace, so CRLF files work as they do in pi). A last line
without its newline is taken when it is already a complete JSON value (pi does the same at
end of file) and otherwise held back: its bytes are re-read once the writer finishes it.

Decoding follows `JSON.parse` on a UTF-8 decoded string: invalid UTF-8 becomes U+FFFD,
lone surrogate escapes and out-of-range numbers are accepted, `NaN` is not.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

import msgspec

from ..common.problems import Problem, ProblemKind

if TYPE_CHECKING:
    import json

# A read's bytes and its lines live until its records are decoded: at the peak of opening a
# 100,000-entry session, reads of 1 MiB left 7 MiB less behind than reads of 4 MiB.
CHUNK_SIZE = 1024 * 1024
# What is kept of a file read so far to tell, later, a file that only grew from one that was
# rewritten: its first bytes and the last bytes before where reading stopped.
HEAD_BYTES = 256
TAIL_BYTES = 64

T = TypeVar("T")


class ByteReader(Protocol):
    def read(self, offset: int, length: int) -> bytes: ...


class ByteSource(ByteReader, Protocol):
    """Where session bytes come from: a file on disk or bytes in memory (tests, demos)."""

    def size(self) -> int: ...


class FileSource:
    """A file read with positional reads; the descriptor is opened per call batch."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)

    def size(self) -> int:
        return os.stat(self.path).st_size

    def read(self, offset: int, length: int) -> bytes:
        with open(self.path, "rb", buffering=0) as f:
            f.seek(offset)
            return f.read(length)


class BytesSource:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def size(self) -> int:
        return len(self.data)

    def read(self, offset: int, length: int) -> bytes:
        return self.data[offset : offset + length]


class OpenReader:
    """Keeps one descriptor open for a whole scan (FileSource.read opens per call)."""

    def __init__(self, source: ByteSource) -> None:
        self._source = source
        self._file = open(source.path, "rb", buffering=0) if isinstance(source, FileSource) else None  # noqa: SIM115

    def read(self, offset: int, length: int) -> bytes:
        if self._file is None:
            return self._source.read(offset, length)
        self._file.seek(offset)
        return self._file.read(length)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()


@dataclass(slots=True)
class Line(Generic[T]):
    """One decoded line: where it is and what it held."""

    offset: int
    length: int  # bytes, without the newline
    number: int  # 1-based physical line number
    value: T


@dataclass(slots=True)
class ReadResult(Generic[T]):
    lines: list[T] = field(default_factory=list)  # what each decoded line gave, in file order
    problems: list[Problem] = field(default_factory=list)
    end_offset: int = 0  # first byte not consumed (start of a held-back partial line, or EOF)
    end_line: int = 1  # number of the next line
    pending_bytes: int = 0  # size of a held-back partial last line


class LineDecodeError(ValueError):
    def __init__(self, kind: ProblemKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _reject_constant(name: str) -> Any:
    raise ValueError(f"invalid JSON constant {name}")


# JSON.parse turns 1e400 into Infinity (written back as null); float() does the same.
_std_decoders: list[json.JSONDecoder] = []  # made when first needed (a rare line)


def _std_decoder() -> json.JSONDecoder:
    if not _std_decoders:
        import json

        _std_decoders.append(json.JSONDecoder(parse_constant=_reject_constant))
    return _std_decoders[0]


def decode_json(data: bytes | bytearray | memoryview) -> Any:
    """Any JSON value, with JavaScript's leniency; raises LineDecodeError."""
    try:
        return msgspec.json.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        pass
    except RecursionError:
        raise LineDecodeError(ProblemKind.MALFORMED_LINE, "nested more than ~1000 levels deep") from None
    return _decode_slow(data)


def _decode_slow(data: bytes | bytearray | memoryview) -> Any:
    raw = bytes(data)
    try:
        text = raw.decode("utf-8")
        bad_utf8 = False
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="replace")
        bad_utf8 = True
    try:
        value, end = _std_decoder().raw_decode(text.lstrip(" \t\r\n"))
    except (ValueError, RecursionError) as e:
        kind = ProblemKind.INVALID_UTF8 if bad_utf8 else ProblemKind.MALFORMED_LINE
        raise LineDecodeError(kind, f"not valid JSON ({_short_reason(e)})") from None
    rest = text.lstrip(" \t\r\n")[end:]
    if rest.strip(" \t\r\n"):
        raise LineDecodeError(ProblemKind.MALFORMED_LINE, "not valid JSON (extra data after the value)")
    return value


def _short_reason(e: BaseException) -> str:
    text = str(e)
    return text if len(text) <= 80 else text[:77] + "..."


def read_lines(
    source: ByteSource,
    decode: Callable[[bytes], T],
    start: int = 0,
    first_line: int = 1,
    end: int | None = None,
) -> ReadResult[Line[T]]:
    """Decode every complete line from `start` up to `end` (default: the current size), each
    value with where its line is (see `read_values`)."""

    def decode_at(data: bytes, offset: int, number: int) -> Line[T]:
        return Line(offset, len(data), number, decode(data))

    return read_values(source, decode_at, start, first_line, end)


def read_values(
    source: ByteSource,
    decode: Callable[[bytes, int, int], T],
    start: int = 0,
    first_line: int = 1,
    end: int | None = None,
    decode_chunk: Callable[[list[bytes], int, int], list[T]] | None = None,
) -> ReadResult[T]:
    """Decode every complete line from `start` up to `end` (default: the current size).

    `decode(line, offset, number)` turns one line's bytes into a value or raises
    LineDecodeError (or any ValueError); such lines become problems. Blank lines are skipped
    silently. `decode_chunk(lines, offset, number)`, when given, decodes a whole run of
    complete lines at once (the first at `offset`, numbered `number`); it must give exactly
    what `decode` gives line by line, or raise ValueError (or RecursionError) for that run to
    be read line by line instead.
    """
    result: ReadResult[T] = ReadResult(end_offset=start, end_line=first_line)
    size = source.size() if end is None else end
    if start >= size:
        return result
    out = result.lines
    problems = result.problems
    number = first_line
    reader = OpenReader(source)
    try:
        for offset, lines, partial in _chunks(reader, start, size):
            if partial is not None:
                if _is_blank(partial):
                    break
                try:
                    value = decode(partial, offset, number)
                except ValueError:
                    # A writer may still be finishing this line: hold it back, re-read later.
                    result.pending_bytes = len(partial)
                    problems.append(
                        Problem(
                            ProblemKind.PARTIAL_LAST_LINE, "last line is incomplete (no newline yet)", number
                        )
                    )
                    break
                out.append(value)
                result.end_offset = offset + len(partial)
                result.end_line = number + 1
                break
            values: list[T] | None = None
            if decode_chunk is not None:
                try:
                    values = decode_chunk(lines, offset, number)
                except (ValueError, RecursionError):
                    values = None
            if values is not None:
                out.extend(values)
                number += len(lines)
                offset += sum(map(len, lines)) + len(lines)
            else:
                for data in lines:
                    if not _is_blank(data):
                        try:
                            out.append(decode(data, offset, number))
                        except ValueError as e:
                            kind = e.kind if isinstance(e, LineDecodeError) else ProblemKind.MALFORMED_LINE
                            problems.append(Problem(kind, f"skipped: {_short_reason(e)}", number))
                    offset += len(data) + 1
                    number += 1
            result.end_offset = offset
            result.end_line = number
    finally:
        reader.close()
    return result


def _is_blank(data: bytes | memoryview) -> bool:
    if len(data) > 64:
        return False
    return not bytes(data).strip()


def _chunks(reader: OpenReader, start: int, end: int) -> Iterator[tuple[int, list[bytes], bytes | None]]:
    """The lines in [start, end), a read at a time: (offset of the first, complete lines
    without their newline, None), and last (offset, [], the line without a newline) if any."""
    pos = start
    carry: list[bytes] = []  # the start of a line that began in an earlier read
    carry_start = start
    while pos < end:
        chunk = reader.read(pos, min(CHUNK_SIZE, end - pos))
        if not chunk:
            break  # the file shrank while we read; the caller notices on the next stat
        last_newline = chunk.rfind(b"\n")
        if last_newline < 0:
            if not carry:
                carry_start = pos
            carry.append(chunk)
            pos += len(chunk)
            continue
        lines = chunk.split(b"\n")
        rest = lines.pop()
        first = pos
        if carry:
            carry.append(lines[0])
            lines[0] = b"".join(carry)
            first = carry_start
            carry = []
        yield first, lines, None
        if rest:
            carry = [rest]
            carry_start = pos + last_newline + 1
        pos += len(chunk)
    if carry:
        yield carry_start, [], b"".join(carry)


def read_span(source: ByteReader, offset: int, length: int) -> bytes:
    data = source.read(offset, length)
    if len(data) != length:
        from ..common.problems import StaleFileError

        raise StaleFileError("the file is shorter than when it was read")
    return data
