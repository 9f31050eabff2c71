"""`pi-sessions list`: every session, newest first, as pi lists them."""

from __future__ import annotations

import argparse
import os

HELP = "list sessions, newest first"

EXAMPLES = (
    "pi-sessions list",
    'pi-sessions list --cwd "$PWD" --json | jq -r .path',
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--session-dir", metavar="DIR")
    parser.add_argument("--cwd", metavar="CWD", help="only sessions whose header cwd is CWD")
    parser.add_argument("--json", action="store_true", help="JSON Lines, one object per session")
    parser.add_argument(
        "--no-cache", action="store_true", help="read every file instead of using the index cache"
    )


def run(ns: argparse.Namespace) -> int:
    return cmd_list(ns.session_dir, ns.cwd, ns.json, use_cache=not ns.no_cache)


def cmd_list(session_dir: str | None, cwd: str | None, as_json: bool, use_cache: bool = True) -> int:
    from ...core.common.locations import resolve_sessions_root
    from ...core.listing.store import list_sessions
    from ...core.listing.summary import json_lines
    from .output import text, warn, write_bytes

    root = resolve_sessions_root(session_dir)
    listing = list_sessions(root.path, use_cache=use_cache)
    rows = listing.summaries
    if cwd is not None:
        wanted = os.path.abspath(os.path.expanduser(cwd))
        rows = [s for s in rows if s.cwd and os.path.abspath(s.cwd) == wanted]
    if as_json:
        write_bytes(json_lines(rows))
        return 0
    if not rows:
        text(f"no sessions in {root.describe()}")
        return 0
    for summary in rows:
        name = (summary.name or summary.first_message).replace("\n", " ")[:70]
        flags = "".join(
            f
            for f, on in (("*", summary.is_fork), ("!", bool(summary.problems)), ("+", summary.tip_count > 1))
            if on
        )
        text(f"{(summary.modified or '')[:16]:16}  {summary.message_count:5} msgs  {flags:3} {name}")
        text(f"{'':16}  {summary.cwd}  {summary.path}")
    for path, reason in listing.skipped:
        warn(f"skipped {path}: {reason}")
    return 0
