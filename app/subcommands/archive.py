"""`pi-sessions archive` (app/subcommands/marks.py does the work)."""

from __future__ import annotations

from .marks import configure, run

HELP = "archive a session: out of the browser's list, found by searching is:archived"

EXAMPLES = (
    "pi-sessions archive FILE     (the browser's search is:archived shows it)",
    "pi-sessions archive FILE --json",
)

__all__ = ["EXAMPLES", "HELP", "configure", "run"]
