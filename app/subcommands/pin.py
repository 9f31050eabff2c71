"""`pi-sessions pin` (app/subcommands/marks.py does the work)."""

from __future__ import annotations

from .marks import configure, run

HELP = "pin a session to the top of its folder in the browser (kept beside pi's files, never in them)"

EXAMPLES = (
    "pi-sessions pin ~/.pi/agent/sessions/--home-u-app--/2025-03-12T09-04_0195.jsonl",
    "pi-sessions pin FILE --json",
)

__all__ = ["EXAMPLES", "HELP", "configure", "run"]
