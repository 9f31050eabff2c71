"""`pi-sessions check`: what pi 1.6.0 will do when it resumes a session at a leaf (orphan tool
calls, a newer or legacy format, a model it cannot restore, a cwd gone), and which files the
model read or edited have changed on disk since. Writes nothing."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...core.projection.readiness import Readiness

HELP = "what pi will do on resume at a leaf, and the files changed on disk since the model saw them"

EPILOG = "exit status: 0 ready, 3 ready with warnings, 2 not a session (or a bad argument)"
EXAMPLES = (
    "pi-sessions check ~/.pi/agent/sessions/--home-u-proj--/2025-03-01T10-00-00-000Z_0195....jsonl",
    "pi-sessions check FILE --leaf 3f2a9c1d --json",
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EPILOG
    parser.add_argument("path", metavar="PATH")
    parser.add_argument("--leaf", metavar="ID", help="an entry id (default: the default leaf)")
    parser.add_argument("--json", action="store_true", help="one JSON object")


def run(ns: argparse.Namespace) -> int:
    return cmd_check(ns.path, ns.leaf, ns.json)


def cmd_check(path: str, leaf: str | None, as_json: bool) -> int:
    from ...core.common.problems import SessionError, UnknownEntryError
    from ...core.projection.readiness import not_a_session
    from ...core.writing.readycheck import check_leaf
    from .common import open_session
    from .output import warn

    try:
        session = open_session(path)
    except UnknownEntryError:
        raise
    except SessionError as e:
        if str(e).startswith(("no such file", "is a folder", "cannot read", "not a pi session yet")):
            raise  # a bad argument, or an empty file (pi would write a new header into it)
        _show(not_a_session(str(e)), as_json)
        warn(f"pi-sessions: {e}")
        return 2
    if leaf is None:
        if session.default_leaf is None:
            raise SessionError("the session has no entries")
        leaf = session.default_leaf
    report = check_leaf(session, leaf)
    _show(report, as_json)
    return report.exit_status()


def _show(report: Readiness, as_json: bool) -> None:
    from ...core.common.jsonout import encode_json
    from ...core.common.text import visible
    from .output import text, write_line

    if as_json:
        value = {
            "ready": report.ready,
            "leaf": report.leaf_id,
            "summary": report.summary(),
            "findings": [f.to_json() for f in report.findings],
            "stale_files": [s.to_json() for s in report.stale_files],
        }
        write_line(encode_json(value))
        return

    def line(value: str) -> None:
        text(visible(value).replace("\n", "\u240a"))  # one line per item, whatever the file holds

    line(report.summary())
    for finding in report.findings:
        where = f" [{finding.entry_id}]" if finding.entry_id else ""
        line(f"  {finding.code}{where}: {finding.message}")
    if report.stale_files:
        line("files the model saw that changed since:")
        width = max(len(str(s.why)) for s in report.stale_files)
        for stale in report.stale_files:
            line(f"  {stale.why!s:<{width}}  {stale.display}  ({stale.detail})")
