"""`pi-sessions unpin` (app/subcommands/marks.py does the work)."""

from __future__ import annotations

from .marks import configure, run

HELP = "unpin a session"

EXAMPLES = (
    "pi-sessions unpin FILE",
    "pi-sessions unpin FILE --json",
)

__all__ = ["EXAMPLES", "HELP", "configure", "run"]
