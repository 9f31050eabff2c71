"""`pi-sessions tree`: the branch tree of one session (pi's getTree, flattened)."""

from __future__ import annotations

import argparse

HELP = "the branch tree of one session"

EXAMPLES = (
    "pi-sessions tree ~/.pi/agent/sessions/--home-me-app--/2025-03-24T07-09-53-772Z_ID.jsonl",
    "pi-sessions tree FILE --json | jq .default_leaf",
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="PATH")
    parser.add_argument("--json", action="store_true")
    from .common import add_store_arguments

    add_store_arguments(parser)


def run(ns: argparse.Namespace) -> int:
    return cmd_tree(ns.path, ns.json, ns.store, ns.host)


def cmd_tree(path: str, as_json: bool, store: str | None = None, host: str | None = None) -> int:
    from ...core.common.jsonout import encode_json
    from ...core.session.describe import entry_summary_line
    from ...core.session.outline import outline_rows
    from .common import open_any
    from .output import text, write_line

    session = open_any(path, store, host)
    if as_json:
        ids = set(session.by_id)
        obj = {
            "header": session.header,
            "entry_ids": session.entry_ids(),
            "default_leaf": session.default_leaf,
            "session_name": session.name,
            "roots": session.roots,
            "children": {r.id: list(session.children_of(r.id)) for r in session.winners()},
            "preorder": session.preorder(),
            "labels": {k: v for k, v in session.labels.items() if k in ids},
            "label_timestamps": {k: v for k, v in session.label_timestamps.items() if k in ids},
            "diagnostics": [p.to_json() for p in session.problems],
        }
        write_line(encode_json(obj))
        return 0
    header = session.header or {}
    text(f"session {header.get('id')}  cwd {header.get('cwd')}  {len(session.records)} entries")
    if session.name:
        text(f"name: {session.name}")
    for row in outline_rows(session):
        marker = "*" if row.on_active_path else " "
        text(f"{marker} {'  ' * row.depth}{row.connector}{entry_summary_line(session, row.record)}")
    for problem in session.problems:
        text(f"! {problem}")
    return 0
