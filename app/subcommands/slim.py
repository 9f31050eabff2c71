"""`pi-sessions slim`: a new session file (a fork of the path to a leaf, the original untouched)
with inline images and big tool outputs moved out to files beside it, each replaced by a short
placeholder that names its file."""

from __future__ import annotations

import argparse

HELP = "a slim copy: images and big tool outputs moved out to files, placeholders in their place"

EPILOG = None
EXAMPLES = (
    "pi-sessions slim FILE --dry-run                  what would move, and the sizes",
    "pi-sessions slim FILE --leaf 3f2a9c1d --max-output 16384 --out /tmp/slim.jsonl --json",
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EPILOG
    parser.add_argument("path", metavar="PATH")
    parser.add_argument("--leaf", metavar="ID", help="an entry id (default: the default leaf)")
    parser.add_argument(
        "--max-output",
        metavar="BYTES",
        type=int,
        help="tool outputs above this size move out (default 65536); images always move",
    )
    parser.add_argument(
        "--out", metavar="PATH", help="the new file (default: beside PATH, named as pi names a fork)"
    )
    parser.add_argument("--dry-run", action="store_true", help="say what would move, write nothing")
    parser.add_argument("--json", action="store_true", help="one JSON object")


def run(ns: argparse.Namespace) -> int:
    from ...core.common.jsonout import encode_json
    from ...core.common.problems import SessionError
    from ...core.writing.slim import DEFAULT_MAX_OUTPUT, plan_slim, write_slim
    from .common import open_session
    from .output import text, write_line

    max_output = DEFAULT_MAX_OUTPUT if ns.max_output is None else ns.max_output
    if max_output < 0:
        raise SessionError("--max-output must be 0 or more bytes")
    session = open_session(ns.path)
    leaf = ns.leaf or session.default_leaf
    if leaf is None:
        raise SessionError("the session has no entries")
    plan = plan_slim(session, leaf, max_output=max_output, out=ns.out)
    written = None if ns.dry_run else write_slim(plan)
    if ns.json:
        value = {
            "path": written,
            "moved": [m.to_json() for m in plan.moved],
            "bytes_before": plan.bytes_before,
            "bytes_after": plan.bytes_after,
            "plannedPath": plan.path,
        }
        write_line(encode_json(value))
        return 0
    what = "would write" if ns.dry_run else "wrote"
    text(f"{what} {plan.path}: {plan.bytes_after:,} bytes, a plain copy {plan.bytes_before:,}")
    moved = sum(m.bytes for m in plan.moved)
    text(f"  {len(plan.moved)} moved out ({moved:,} bytes) into {plan.folder}")
    return 0
