"""`pi-sessions edits`: the files the agent changed across all sessions, newest first (the
"recent edits" feed)."""

from __future__ import annotations

import argparse

HELP = "the files the agent changed across all sessions, newest first"

EXAMPLES = (
    "pi-sessions edits --since 2d",
    "pi-sessions edits --json | jq -r .path | sort -u",
)


def configure(parser: argparse.ArgumentParser) -> None:
    from .indexed import add_index_options

    parser.add_argument("--since", metavar="DUR", help="only changes within DUR (12h, 7d, 2w, 3mo, 1y)")
    add_index_options(parser)
    parser.add_argument("--json", action="store_true", help="JSON Lines, one object per change")


def run(ns: argparse.Namespace) -> int:
    from ...core.common.jsonout import encode_json
    from ...core.index.queries import changed_files
    from .common import since_ms
    from .indexed import current_index
    from .output import text, write_line

    earliest = since_ms(ns.since)
    db = current_index(ns)
    printed = 0
    try:
        for row in changed_files(db.conn, earliest):
            printed += 1
            if ns.json:
                obj = {
                    "session_path": row.session_path,
                    "entry_id": row.entry_id,
                    "timestamp": row.timestamp,
                    "on_active_path": row.on_active_path,
                    "path": row.path,
                    "session_id": row.session_id,
                    "verb": row.verb,
                    "tool": row.tool,
                    "in_context": row.in_context,
                    "host": None,
                }
                write_line(encode_json(obj))
            else:
                branch = "" if row.on_active_path else "  [branch]"
                where = f"({row.verb}, {row.entry_id}){branch}  {row.session_path}"
                text(f"{row.timestamp or '?'}  {row.path}  {where}")
    finally:
        db.close()
    if not printed and not ns.json:
        text("no file changed by the agent" + (f" within {ns.since}" if ns.since else ""))
    return 0
