"""`pi-sessions fork`: write a new session holding the path to an entry (pi's createBranchedSession)."""

from __future__ import annotations

import argparse
import os

HELP = "write a new session holding the path to an entry"

EXAMPLES = (
    "pi-sessions fork FILE --leaf 1a7dd750 --dry-run",
    "pi-sessions fork FILE --leaf 1a7dd750 --cwd ~/src/app",
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="PATH")
    parser.add_argument("--leaf", metavar="ID", required=True)
    parser.add_argument("--cwd", metavar="CWD", help="fork into another working directory")
    parser.add_argument(
        "--session-dir", metavar="DIR", help="write into this sessions folder (default: next to PATH)"
    )
    parser.add_argument("--dry-run", action="store_true", help="print what would be written, write nothing")
    parser.add_argument("--json", action="store_true")


def run(ns: argparse.Namespace) -> int:
    return cmd_fork(ns.path, ns.leaf, ns.cwd, ns.session_dir, ns.dry_run, ns.json)


def cmd_fork(
    path: str,
    leaf: str,
    cwd: str | None,
    session_dir: str | None,
    dry_run: bool,
    as_json: bool,
) -> int:
    from ...core.common.jsonout import encode_json
    from ...core.common.locations import fork_folder, resolve_sessions_root
    from ...core.writing.fork import plan_fork, write_fork
    from .common import open_session
    from .output import text, write_line

    session = open_session(path)
    folder = None
    if cwd is not None:
        folder = fork_folder(resolve_sessions_root(session_dir), cwd)
    elif session_dir is not None:  # that sessions folder, under the session's own cwd
        source_cwd = session.header.get("cwd") if session.header else None
        own = source_cwd if isinstance(source_cwd, str) and source_cwd and "\0" not in source_cwd else None
        folder = fork_folder(resolve_sessions_root(session_dir), os.path.abspath(own or os.getcwd()))
    plan = plan_fork(session, leaf, cwd=cwd, folder=folder)
    written: str | None = None
    if not dry_run:
        written = write_fork(plan)
    if as_json:
        write_line(encode_json({"path": written, "lines": plan.lines, "plannedPath": plan.path}))
        return 0
    what = "would write" if dry_run else "wrote"
    text(f"{what} {plan.path}")
    text(f"  {plan.entry_count} entries, from {session.path} at {leaf}")
    for target, label in plan.labels:
        text(f"  label {label!r} on {target}")
    return 0
