"""`pi-sessions unpin` (app/subcommands/marks.py does the work)."""

from __future__ import annotations

from .marks import configure, run

HELP = "unpin a session"

__all__ = ["HELP", "configure", "run"]
