"""The side file of pins, archive marks and tags: read it, and change one session's mark in it
under a lock, written whole to a temporary file and renamed over the old one.

Two browsers (or a browser and `pi-sessions tag`) may change marks at the same moment: each
change reads the file, applies itself and writes the result while it holds an exclusive
`flock` on a lock file beside it, so neither loses the other's tag. Readers take no lock: the
rename makes every read see one whole version. A session file is only ever read here (its
header's id is the key), never written.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ..common.jsvalues import js_truthy
from ..common.problems import SessionError
from ..common.smallfiles import read_small_text
from ..listing.marks import NO_MARKS, MarkChange, MarkError, Marks, parse_marks, with_change
from ..reading.lines import decode_json

HEADER_LIMIT = 1 << 20  # the header is pi's first line: a few hundred bytes


def read_marks(path: Path) -> Marks:
    """The marks in the side file (none when it is absent). Raises MarkError (with the
    file's name) when it is damaged, OSError when it cannot be read."""
    try:
        text = read_small_text(path)
    except FileNotFoundError:
        return NO_MARKS
    except UnicodeDecodeError as e:
        raise MarkError(f"{path}: not UTF-8 ({e.reason})") from None
    try:
        return parse_marks(text)
    except MarkError as e:
        raise MarkError(f"{path}: {e}") from None


def update_marks(path: Path, session_id: str, change: MarkChange, session_path: str | None = None) -> Marks:
    """Apply `change` to one session's mark in the side file and return every mark as written.
    The read, the change and the write happen under the lock: a change made meanwhile by
    another process is in what is read, never overwritten."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path.with_name(path.name + ".lock")):
        marks = with_change(read_marks(path), session_id, change, session_path)
        _write_atomically(path, marks)
    return marks


@contextlib.contextmanager
def _locked(lock_path: Path) -> Iterator[None]:
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        try:
            import fcntl
        except ImportError:  # (Windows: no flock; one writer at a time is then the user's care)
            yield
            return
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _write_atomically(path: Path, marks: Marks) -> None:
    from ..listing.marks import dump_marks

    data = dump_marks(marks).encode("utf-8")
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def session_id_of(path: str) -> str:
    """The header's session id of a session file (its first line pi reads; blank, malformed
    and falsy lines before it are skipped as pi skips them). Raises SessionError."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
    except ValueError:
        raise SessionError(f"no such file: {path!r}") from None
    except OSError as e:
        raise SessionError(f"cannot read {path}: {e.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise SessionError(f"not a session file: {path} is not a regular file")
        head = os.read(fd, HEADER_LIMIT)
    finally:
        os.close(fd)
    for line in head.split(b"\n"):
        if not line.strip():
            continue
        try:
            value = decode_json(line)
        except ValueError:
            continue
        if not js_truthy(value):
            continue
        if isinstance(value, dict) and value.get("type") == "session":
            session_id = value.get("id")
            if isinstance(session_id, str) and session_id:
                return session_id
            raise SessionError(f"the session header of {path} has no id")
        break
    if not head.strip():
        raise SessionError(f"not a pi session yet: {path} is empty")
    raise SessionError(f"not a pi session: {path} (the first entry is not a session header)")
