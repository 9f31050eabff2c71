"""`pi-sessions unarchive` (app/subcommands/marks.py does the work)."""

from __future__ import annotations

from .marks import configure, run

HELP = "bring an archived session back into the list"

EXAMPLES = ("pi-sessions unarchive FILE",)

__all__ = ["EXAMPLES", "HELP", "configure", "run"]
