"""`pi-sessions history PATH`: every session and entry that read, changed or named a file,
newest first, each with its fate (on the active path or a branch, still in context or not)."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...core.index.queries import TouchRow

HELP = "every touch of a file across sessions, newest first (read, changed or named, and its fate)"

EXAMPLES = (
    "pi-sessions history src/app.py",
    "pi-sessions history /etc/hosts --json",
    "pi-sessions history README.md --each-cwd",
)


def configure(parser: argparse.ArgumentParser) -> None:
    from .indexed import add_index_options

    parser.add_argument(
        "path", metavar="PATH", help="the file; a relative path is taken from the current folder"
    )
    parser.add_argument(
        "--each-cwd",
        action="store_true",
        help="take a relative PATH in each session's own cwd instead (the same file of every checkout)",
    )
    add_index_options(parser)
    parser.add_argument("--json", action="store_true", help="JSON Lines, one object per touch")


def run(ns: argparse.Namespace) -> int:
    from ...core.index.queries import file_history
    from .indexed import current_index
    from .output import text

    path = ns.path
    if not ns.each_cwd and not path.startswith("~"):
        path = os.path.abspath(path)  # (a `~/x` a session wrote stays as written: whose home is unknown)
    db = current_index(ns)
    try:
        rows = file_history(db.conn, path, each_cwd=ns.each_cwd)
    finally:
        db.close()
    for row in rows:
        _print(row, ns.json)
    if not rows and not ns.json:
        text(f"no session touched {path}")
    return 0


def touch_json(row: TouchRow) -> dict[str, object]:
    return {
        "path": row.path,
        "session_path": row.session_path,
        "session_id": row.session_id,
        "entry_id": row.entry_id,
        "action": row.action,
        "timestamp": row.timestamp,
        "on_active_path": row.on_active_path,
        "in_context": row.in_context,
        "host": None,
        "verb": row.verb,
        "tool": row.tool,
        "error": row.error,
        "cwd": row.cwd,
    }


def _print(row: TouchRow, as_json: bool) -> None:
    from ...core.common.jsonout import encode_json
    from .output import text, write_line

    if as_json:
        write_line(encode_json(touch_json(row)))
        return
    fate = "active path" if row.on_active_path else "branch"
    fate += ", in context" if row.in_context else ""
    how = row.verb if row.verb == row.action else f"{row.action} ({row.verb})"
    text(f"{row.timestamp or '?'}  {how:<16} {row.entry_id}  [{fate}]  {row.session_path}")
