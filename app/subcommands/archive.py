"""`pi-sessions archive` (app/subcommands/marks.py does the work)."""

from __future__ import annotations

from .marks import configure, run

HELP = "archive a session: out of the browser's list, found by searching is:archived"

__all__ = ["HELP", "configure", "run"]
