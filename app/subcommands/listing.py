"""`pi-sessions list`: every session, newest first, as pi lists them."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...core.listing.summary import SessionSummary

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
    parser.add_argument(
        "--subagents",
        action="store_true",
        help="add the subagent sessions found below pi's two levels; each line gets `parent` and "
        "`parentEntryId` (null when it cannot be told)",
    )
    from .common import add_store_arguments

    add_store_arguments(parser, path_help=False)


def run(ns: argparse.Namespace) -> int:
    if ns.store is not None:
        return cmd_list_stored(ns.store, ns.host, ns.cwd, ns.json)
    if ns.host is not None:
        from ...core.common.problems import SessionError

        raise SessionError("--host needs --store")
    return cmd_list(ns.session_dir, ns.cwd, ns.json, use_cache=not ns.no_cache, subagents=ns.subagents)


def _only_cwd(rows: list[SessionSummary], cwd: str | None) -> list[SessionSummary]:
    if cwd is None:
        return rows
    wanted = os.path.abspath(os.path.expanduser(cwd))
    return [s for s in rows if s.cwd and os.path.abspath(s.cwd) == wanted]


def cmd_list(
    session_dir: str | None, cwd: str | None, as_json: bool, use_cache: bool = True, subagents: bool = False
) -> int:
    from ...core.common.locations import resolve_sessions_root
    from ...core.listing.store import list_sessions
    from ...core.listing.summary import json_lines
    from .output import text, warn, write_bytes

    root = resolve_sessions_root(session_dir)
    listing = list_sessions(root.path, use_cache=use_cache)
    if subagents:
        return _list_with_subagents(root.path, listing.summaries, cwd, as_json)
    rows = _only_cwd(listing.summaries, cwd)
    if as_json:
        write_bytes(json_lines(rows))
        return 0
    if not rows:
        text(f"no sessions in {root.describe()}")
        return 0
    for summary in rows:
        text(_first_line(summary))
        text(f"{'':16}  {summary.cwd}  {summary.path}")
    for path, reason in listing.skipped:
        warn(f"skipped {path}: {reason}")
    return 0


def _list_with_subagents(root: str, listed: list[SessionSummary], cwd: str | None, as_json: bool) -> int:
    """pi's list and the subagent sessions below it, newest first, each with its parent."""
    from ...core.common.jsonout import encode_json
    from ...core.listing.store import sort_newest_first
    from ...core.listing.subagents import find
    from ...core.listing.summary import json_lines
    from .output import text, write_bytes

    found = find(root, listed)
    rows = _only_cwd(listed + found.extra, cwd)
    sort_newest_first(rows)
    links = [found.children.get(os.path.normpath(s.path)) for s in rows]
    if as_json:
        lines = json_lines(rows).splitlines()
        write_bytes(
            b"".join(
                line[:-1]
                + b',"parent":'
                + encode_json(child.parent if child is not None else None)
                + b',"parentEntryId":'
                + encode_json(child.parent_entry_id if child is not None else None)
                + b"}\n"
                for line, child in zip(lines, links, strict=True)
            )
        )
        return 0
    for summary, child in zip(rows, links, strict=True):
        text(_first_line(summary))
        text(f"{'':16}  {summary.cwd}  {summary.path}")
        if child is not None and child.parent is not None:
            at = f" at entry {child.parent_entry_id}" if child.parent_entry_id else ""
            text(f"{'':16}  subagent of {child.parent}{at}")
    return 0


def _first_line(summary: SessionSummary) -> str:
    name = (summary.name or summary.first_message).replace("\n", " ")[:70]
    flags = "".join(
        f
        for f, on in (("*", summary.is_fork), ("!", bool(summary.problems)), ("+", summary.tip_count > 1))
        if on
    )
    return f"{(summary.modified or '')[:16]:16}  {summary.message_count:5} msgs  {flags:3} {name}"


def cmd_list_stored(dsn: str, host: str | None, cwd: str | None, as_json: bool) -> int:
    """The listing of the shared store: the local listing's fields plus `host`."""
    from ...core.common.jsonout import encode_json
    from ...core.listing.summary import json_lines
    from ...core.store_pg.connect import connect
    from ...core.store_pg.dsn import shown_dsn
    from ...core.store_pg.fetch import stored_listing
    from .output import text, warn, write_bytes

    with connect(dsn) as connection:
        stored = stored_listing(connection, host)
    rows = _only_cwd(stored.listing.summaries, cwd)
    if as_json:
        # Each line is the local one with `host` added at its end (`{...}` -> `{...,"host":..}`).
        lines = json_lines(rows).splitlines()
        write_bytes(
            b"".join(
                line[:-1] + b',"host":' + encode_json(stored.host_of(s)) + b"}\n"
                for line, s in zip(lines, rows, strict=True)
            )
        )
        return 0
    if not rows:
        text(f"no sessions in the store {shown_dsn(dsn)}")
        return 0
    for summary in rows:
        text(_first_line(summary))
        text(f"{'':16}  {stored.host_of(summary)}  {summary.cwd}  {summary.path}")
    for path, reason in stored.listing.skipped:
        warn(f"skipped {path}: {reason}")
    return 0
