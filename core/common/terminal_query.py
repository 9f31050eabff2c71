"""Asking the terminal for its colours before the browser takes it (pi's `system` theme).

The query (core/common/terminal_colours.py, which also reads the answer) goes to the
controlling terminal with echo and line buffering off; the replies are read until the DA1
answer (or both colours) came, at most `TIMEOUT_SECONDS` (pi's 100 ms). A terminal that
answers nothing costs that much once; what it might still send later is flushed, so it never
reaches the browser as keys. No terminal (a pipe, a test, the browser served to a web page):
no question. (Fixed bytes, no session text: this is no way around widgets/plain.py.)
"""

from __future__ import annotations

import os
import select
import time

from .terminal_colours import (
    QUERY,
    TIMEOUT_SECONDS,
    TerminalColours,
    parse_replies,
    replies_done,
)


def query_colours(fd: int | None = None, timeout: float = TIMEOUT_SECONDS) -> TerminalColours | None:
    """The colours the terminal on `fd` reports (default: the controlling terminal, /dev/tty),
    or None when there is no terminal to ask. A terminal that does not answer in `timeout`
    seconds gives `TerminalColours()` (nothing reported)."""
    import termios

    own = fd is None
    if fd is None:
        try:
            fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
        except OSError:
            return None
    try:
        if not os.isatty(fd):
            return None
        try:
            saved = termios.tcgetattr(fd)
        except termios.error:
            return None
        quiet = list(saved)
        quiet[3] &= ~(termios.ICANON | termios.ECHO)  # (lflag) the replies are not shown
        quiet[6] = list(saved[6])
        quiet[6][termios.VMIN], quiet[6][termios.VTIME] = 0, 0
        data = b""
        try:
            termios.tcsetattr(fd, termios.TCSANOW, quiet)
            os.write(fd, QUERY)
            deadline = time.monotonic() + timeout
            while not replies_done(data):
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([fd], [], [], left)[0]:
                    break
                chunk = os.read(fd, 4096)
                if not chunk:
                    break
                data += chunk
        except OSError:
            return TerminalColours()
        finally:
            try:
                if not replies_done(data):
                    termios.tcflush(fd, termios.TCIFLUSH)  # (a late reply is not the user's keys)
                termios.tcsetattr(fd, termios.TCSANOW, saved)
            except termios.error:
                pass
        return parse_replies(data)
    finally:
        if own:
            os.close(fd)
