"""`pi-sessions files`: every file the tool calls on a path touched, and what the model still
knows of each at that entry (last read and edit in context, summarized, omitted, replaced)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...core.projection.file_knowledge import FileKnowledge, FilesAtLeaf, Touch

HELP = "the files tool calls touched on the way to an entry, and what the model knew of each"

EXAMPLES = (
    "pi-sessions files FILE",
    "pi-sessions files FILE --leaf 1a7dd750 --json | jq -r .path",
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="PATH")
    parser.add_argument("--leaf", metavar="ID", help="an entry id (default: the default leaf)")
    parser.add_argument("--json", action="store_true", help="JSON Lines, one object per file")


def run(ns: argparse.Namespace) -> int:
    return cmd_files(ns.path, ns.leaf, ns.json)


def cmd_files(path: str, leaf: str | None, as_json: bool) -> int:
    from ...core.common.jsonout import encode_json
    from ...core.common.problems import SessionError
    from ...core.projection.file_knowledge import files_at
    from .common import open_session
    from .output import write_line

    session = open_session(path)
    if leaf is None:
        if session.default_leaf is None:
            raise SessionError("the session has no entries")
        leaf = session.default_leaf
    report = files_at(session, leaf)
    if as_json:
        for known in report.files:
            write_line(encode_json(file_json(known)))
    else:
        _print_files(session.cwd, report)
    return 0


def file_json(known: FileKnowledge) -> dict[str, Any]:
    return {
        "path": known.path,
        "display": known.display,
        "state": str(known.state),
        "by": known.by,
        "last_read_entry": known.last_read.entry.id if known.last_read else None,
        "last_edit_entry": known.last_edit.entry.id if known.last_edit else None,
        "in_context": known.in_context,
        "last_read_state": str(known.read_fate.reason) if known.read_fate else None,
        "last_edit_state": str(known.edit_fate.reason) if known.edit_fate else None,
        "visible_entry": known.visible.entry.id if known.visible else None,
        "touches": [_touch_json(t) for t in known.touches],
    }


def _touch_json(touch: Touch) -> dict[str, Any]:
    return {
        "entry": touch.entry.id,
        "access": str(touch.access),
        "verb": touch.verb,
        "tool": touch.tool,
        "detail": touch.detail or None,
        "error": touch.error,
        "hidden": touch.hidden,
    }


def _print_files(cwd: str, report: FilesAtLeaf) -> None:
    from ...core.common.text import visible
    from .output import text

    def line(value: str) -> None:
        text(visible(value).replace("\n", "\u240a"))  # one line per line, whatever the session holds

    count = len(report.files)
    line(f"leaf {report.leaf_id}  cwd {cwd or '?'}  {count} file{'' if count == 1 else 's'}")
    width = max((len(k.display) for k in report.files), default=0)
    for known in report.files:
        parts = [f"{known.state:<11} {known.display:<{width}}"]
        if known.last_read:
            parts.append(f"read {known.last_read.entry.id}" + _detail(known.last_read, "read"))
        if known.last_edit:
            parts.append(f"edit {known.last_edit.entry.id}" + _detail(known.last_edit, "edit"))
        fate = known.latest_fate
        if fate is None:
            parts.append("named by " + ", ".join(dict.fromkeys(t.verb for t in known.touches)))
        elif not known.in_context:
            parts.append(f"[{fate.describe()}]")
        line("  ".join(parts))


def _detail(touch: Touch, plain_verb: str) -> str:
    """How it was read or edited, when that is not the plain tool: `cat`, `write`, lines."""
    notes = [touch.verb] if touch.verb != plain_verb else []
    if touch.detail:
        notes.append(touch.detail)
    return f" ({', '.join(notes)})" if notes else ""
