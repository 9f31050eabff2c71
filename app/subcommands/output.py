"""Where subcommands write: JSON lines as bytes, readable lines as UTF-8 text."""

from __future__ import annotations

import sys


def write_line(data: bytes) -> None:
    """One encoded line (JSON output stays exact)."""
    sys.stdout.buffer.write(data + b"\n")


def text(line: str) -> None:
    """One readable line for people."""
    sys.stdout.buffer.write(line.encode("utf-8", "replace") + b"\n")


def warn(line: str) -> None:
    """One line on stderr."""
    sys.stderr.write(line + "\n")
