"""`pi-sessions pin` (app/subcommands/marks.py does the work)."""

from __future__ import annotations

from .marks import configure, run

HELP = "pin a session to the top of its folder in the browser (kept beside pi's files, never in them)"

__all__ = ["HELP", "configure", "run"]
