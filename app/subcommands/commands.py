"""`pi-sessions commands [QUERY]`: the shell commands the agent ran (bash tool calls) across
all sessions, newest first; QUERY keeps those that hold it."""

from __future__ import annotations

import argparse

HELP = "the shell commands the agent ran across all sessions, newest first"

EXAMPLES = (
    "pi-sessions commands 'git push'",
    "pi-sessions commands --since 1d --json",
)


def configure(parser: argparse.ArgumentParser) -> None:
    from .indexed import add_index_options

    parser.add_argument(
        "query", metavar="QUERY", nargs="?", help="only commands holding this text (any case)"
    )
    parser.add_argument("--since", metavar="DUR", help="only commands within DUR (12h, 7d, 2w, 3mo, 1y)")
    add_index_options(parser)
    parser.add_argument("--json", action="store_true", help="JSON Lines, one object per command")


def run(ns: argparse.Namespace) -> int:
    from ...core.common.jsonout import encode_json
    from ...core.index.queries import commands_run
    from .common import since_ms
    from .indexed import current_index
    from .output import text, write_line

    earliest = since_ms(ns.since)
    db = current_index(ns)
    printed = 0
    try:
        for row in commands_run(db.conn, ns.query, earliest):
            printed += 1
            if ns.json:
                obj = {
                    "session_path": row.session_path,
                    "entry_id": row.entry_id,
                    "timestamp": row.timestamp,
                    "on_active_path": row.on_active_path,
                    "command": row.command,
                    "session_id": row.session_id,
                    "call_id": row.call_id,
                    "cwd": row.cwd,
                    "host": None,
                }
                write_line(encode_json(obj))
            else:
                branch = "" if row.on_active_path else "  [branch]"
                text(f"{row.timestamp or '?'}  {row.cwd or '?'}$ {row.command}{branch}")
    finally:
        db.close()
    if not printed and not ns.json:
        text("no command found" + (f" holding {ns.query!r}" if ns.query else ""))
    return 0
