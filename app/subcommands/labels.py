"""`pi-sessions labels`: every label of every session, with the entry it labels."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...core.search.labels import LabelRow

HELP = "every label of every session (the labelled entry, and whether it is on the active path)"

EXAMPLES = (
    "pi-sessions labels",
    "pi-sessions labels --json | jq -r .label",
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--session-dir", metavar="DIR")
    parser.add_argument("--json", action="store_true", help="JSON Lines, one object per label")
    parser.add_argument(
        "--no-cache", action="store_true", help="read every file instead of using the index cache"
    )


def run(ns: argparse.Namespace) -> int:
    return cmd_labels(ns.session_dir, ns.json, use_cache=not ns.no_cache)


def cmd_labels(session_dir: str | None, as_json: bool, use_cache: bool = True) -> int:
    from ...core.common.locations import resolve_sessions_root
    from ...core.listing.store import list_sessions
    from ...core.search.labels import all_labels
    from .output import text

    root = resolve_sessions_root(session_dir)
    listing = list_sessions(root.path, use_cache=use_cache)
    printed = 0
    for row in all_labels(listing.summaries):
        _print_label(row, as_json)
        printed += 1
    if not printed and not as_json:
        text(f"no labels in {root.describe()}")
    return 0


def _print_label(row: LabelRow, as_json: bool) -> None:
    from ...core.common.jsonout import encode_json
    from .output import text, write_line

    if as_json:
        obj = {
            "path": row.path,
            "session_id": row.session_id,
            "entry_id": row.entry_id,
            "label": row.label,
            "timestamp": row.timestamp,
            "on_active_path": row.on_active_path,
            "branch_from": row.branch_from,
            "session_title": row.session_title,
            "excerpt": row.excerpt,
        }
        write_line(encode_json(obj))
        return
    where = "active path" if row.on_active_path else f"branch from {row.branch_from or 'a root'}"
    text(f"{row.text.replace(chr(10), ' ')[:40]:40}  {row.session_title.replace(chr(10), ' ')[:60]}")
    text(f"{'':40}  {row.entry_id} ({where}): {row.excerpt[:80]}")
    text(f"{'':40}  {row.path}")
