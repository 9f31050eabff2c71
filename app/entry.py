"""The installed `pi-sessions` command's first code: ctrl+c at any moment, even while the
modules are still being imported, ends it quietly with status 130 (no traceback)."""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # (built in: `signal` imports enum first, long enough for a ctrl+c to land)

# Until main can catch it, ctrl+c ends the process at once, as it does a C program (the shell
# sees status 130), instead of a KeyboardInterrupt traceback out of some import.
_signal.signal(_signal.SIGINT, _signal.SIG_DFL)

import os  # noqa: E402
import signal  # noqa: E402


def console_main() -> None:
    try:
        from .cli import console_main as run

        signal.signal(signal.SIGINT, signal.default_int_handler)  # main catches it from here on
        run()
    except KeyboardInterrupt:
        os._exit(130)  # (not sys.exit: a second ctrl+c during shutdown would print a traceback)


if __name__ == "__main__":
    console_main()
