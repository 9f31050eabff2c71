"""The installed `pi-sessions` command's first code: ctrl+c at any moment, even while the
modules are still being imported, ends it quietly with status 130 (no traceback)."""

from __future__ import annotations

import os


def console_main() -> None:
    try:
        from .cli import console_main as run  # (importing takes a while: ctrl+c may land here)

        run()
    except KeyboardInterrupt:
        os._exit(130)  # (not sys.exit: a second ctrl+c during shutdown would print a traceback)


if __name__ == "__main__":
    console_main()
