"""`pi-sessions tag` (app/subcommands/marks.py does the work)."""

from __future__ import annotations

from .marks import configure, run

HELP = "add (+TAG) or remove (-TAG) a session's tags; the browser's search keeps them with tag:TAG"

EXAMPLES = (
    "pi-sessions tag FILE +auth +bug",
    "pi-sessions tag FILE -wip",
    "pi-sessions tag FILE            (shows them)",
)

__all__ = ["EXAMPLES", "HELP", "configure", "run"]
