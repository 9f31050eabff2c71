"""The one guarded reader for small files we do not own (settings, keybindings, themes,
models.json, our config.toml): regular files only, a size cap, never a blocking open.

A FIFO or a link to a device where such a file belongs must not hang or exhaust us; its path
may come from a session (the header's cwd), so it is not trusted either."""

from __future__ import annotations

import errno
import os
import stat

MAX_SMALL_FILE = 4 << 20  # far above any real settings file


def read_small_bytes(path: str | os.PathLike[str], limit: int = MAX_SMALL_FILE) -> bytes:
    """The bytes of a regular file of at most `limit` bytes. Raises FileNotFoundError when it is
    absent and another OSError, with a short reason as its strerror, when it is not a regular
    file, is too big or holds a NUL in its name."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
    except ValueError:  # a NUL in the path: no such file can exist
        raise OSError(errno.EINVAL, "the path holds a NUL character") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
        if st.st_size > limit:
            raise OSError(errno.EFBIG, f"larger than {_size(limit)}", os.fspath(path))
        chunks: list[bytes] = []
        left = limit + 1  # one byte more tells a file that grew past the cap since fstat
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise OSError(errno.EFBIG, f"larger than {_size(limit)}", os.fspath(path))
    return data


def read_small_text(path: str | os.PathLike[str], limit: int = MAX_SMALL_FILE) -> str:
    """`read_small_bytes` decoded as strict UTF-8 (UnicodeDecodeError, a ValueError, when not)."""
    return read_small_bytes(path, limit).decode("utf-8")


def _size(limit: int) -> str:
    return f"{limit >> 20} MiB" if limit >= 1 << 20 else f"{limit} bytes"
