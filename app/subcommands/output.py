"""Where the command line writes: JSON lines as bytes, readable lines as UTF-8 text.

The only module of the command line that writes to stdout or stderr (tests/test_inert.py
checks). Every readable line is made inert here (core/common/text.py: a newline becomes a space,
ESC and every other control character a visible placeholder), whatever the caller forgot:
ids, cwds, names and file paths in errors may hold escape sequences. JSON lines keep their
exact values, with the characters JSON leaves raw that a terminal acts on (C1, DEL, bidi
controls, U+2028/2029) escaped as `\\uXXXX` here (core/common/jsonout.py).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterable, Iterator

from ...core.common.jsonout import escape_terminal_controls as _inert
from ...core.common.jsonout import escape_terminal_controls_in as _inert_pieces


def write_line(data: bytes) -> None:
    """One encoded line (JSON output stays exact)."""
    sys.stdout.buffer.write(_inert(data) + b"\n")


def write_pieces(pieces: Iterable[bytes]) -> None:
    """One encoded line given in pieces, written as they come (a big line never needs to
    be held whole), then its newline."""
    out = sys.stdout.buffer
    for piece in _inert_pieces(pieces):
        out.write(piece)
    out.write(b"\n")


def write_line_around(head: bytes, fd: int, size: int, tail: bytes) -> None:
    """One encoded line whose middle is the first `size` bytes of the file open at `fd`
    (encoded elsewhere), as they are: copied by the kernel when it can, else read and written."""
    import itertools

    from ...core.common.jsonout import has_terminal_controls
    from ...core.reading.early_messages import file_pieces

    out = sys.stdout.buffer
    if has_terminal_controls(file_pieces(fd, 0, size)):  # then escaped, not copied by the kernel
        write_pieces(itertools.chain((head,), file_pieces(fd, 0, size), (tail,)))
        return
    out.write(_inert(head))
    out.flush()
    offset = 0
    try:
        target = sys.stdout.fileno()
        while offset < size:
            sent = os.sendfile(target, fd, offset, size - offset)
            if not sent:
                break
            offset += sent
    except BrokenPipeError:
        raise
    except (OSError, ValueError):  # no descriptor (a captured stdout), or none sendfile writes to
        pass
    for part in file_pieces(fd, offset, size):
        out.write(part)
    out.write(_inert(tail) + b"\n")


def write_bytes(data: bytes) -> None:
    """Encoded lines, each with its newline already."""
    sys.stdout.buffer.write(_inert(data))


def write_lines(many: list[bytes]) -> None:
    """Encoded lines, in one write."""
    if many:
        sys.stdout.buffer.write(_inert(b"\n".join(many)) + b"\n")


def text(line: str) -> None:
    """One readable line for people."""
    from ...core.common.text import inline

    sys.stdout.buffer.write(inline(line).encode("utf-8", "replace") + b"\n")


def lines(many: list[str]) -> None:
    """Readable lines, in one write."""
    from ...core.common.text import inline

    if many:
        sys.stdout.buffer.write("\n".join(map(inline, many)).encode("utf-8", "replace") + b"\n")


def warn(line: str) -> None:
    """One readable line on stderr (errors, skipped files)."""
    from ...core.common.text import inline

    sys.stderr.write(inline(line) + "\n")


def progress(line: str | None) -> None:
    """A progress line on stderr, written over itself (None: clear it). Only for a terminal:
    callers check `stderr_is_terminal()` first."""
    from ...core.common.text import inline

    sys.stderr.write("\r\x1b[K" + (inline(line) if line is not None else ""))
    sys.stderr.flush()


def stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def flush() -> None:
    """Before handing the terminal to another program."""
    sys.stdout.flush()


def flush_all() -> bool:
    """Write out what is buffered (before leaving without the interpreter's own flush);
    False if stdout could not take it (a broken pipe is silenced, as at a normal exit)."""
    ok = True
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()
    except OSError:
        ok = False
    with contextlib.suppress(OSError):
        sys.stderr.flush()
    return ok


def silence_stdout() -> None:
    """After a broken pipe: nothing more reaches the reader (and Python's exit flush is quiet)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass


@contextlib.contextmanager
def captured(stdout: io.RawIOBase) -> Iterator[list[str]]:
    """What is written here goes to `stdout` instead of the terminal, and stderr to the list
    given (filled at the end): the MCP server runs a subcommand in-process and answers with
    what it printed. Not for two threads at once."""
    err = io.BytesIO()
    saved = sys.stdout, sys.stderr
    out_text = io.TextIOWrapper(stdout, encoding="utf-8", write_through=True)  # type: ignore[type-var]
    err_text = io.TextIOWrapper(err, encoding="utf-8", errors="replace", write_through=True)
    sys.stdout, sys.stderr = out_text, err_text
    said: list[str] = []
    try:
        yield said
    finally:
        sys.stdout, sys.stderr = saved
        with contextlib.suppress(BaseException):  # (a full pager refuses what is still buffered)
            out_text.flush()
        err_text.flush()
        said.append(err.getvalue().decode("utf-8", "replace"))
        out_text.detach()  # closing a wrapper would close the stream under it
        err_text.detach()
