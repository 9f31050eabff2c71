"""`pi-sessions secrets`: every credential-shaped string in the sessions (core/audit), with the
entry, the tool call or message that brought it in, and whether the model still has it."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...core.audit.allowlist import AllowList
    from ...core.audit.scan import Finding

HELP = "secrets in the sessions (kind, entry, which tool call brought each in, still in context?)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "path", metavar="PATH", nargs="?", help="a session file or folder (default: every session)"
    )
    parser.add_argument("--session-dir", metavar="DIR")
    parser.add_argument("--json", action="store_true", help="JSON Lines, one object per finding")
    parser.epilog = (
        "Values are never printed whole: a preview shows the first and last two characters and"
        " the length. Not-secrets go in the allow-list (pi-sessions config shows the folder),"
        " one value or re:PATTERN a line.    "
        "pi-sessions secrets    pi-sessions secrets ~/.pi/agent/sessions/--home-u-proj-- --json"
    )


def run(ns: argparse.Namespace) -> int:
    return cmd_secrets(ns.path, ns.session_dir, ns.json)


def load_allow() -> AllowList:
    """The user's allow-list; what is wrong with it is said once on stderr."""
    from ..config import load_secrets_allow
    from .output import warn

    allow = load_secrets_allow()
    for problem in allow.problems:
        warn(f"pi-sessions: allow-list: {problem}")
    return allow


def cmd_secrets(path: str | None, session_dir: str | None, as_json: bool) -> int:
    import os

    from ...core.audit.scan import audit_file, audit_paths, session_paths
    from ...core.common.locations import expand_path, resolve_sessions_root
    from ...core.common.problems import SessionError
    from .output import text

    allow = load_allow()
    if path is not None:
        target = expand_path(path)
        if not os.path.exists(target):
            raise SessionError(f"no such file or folder: {path}")
        if os.path.isdir(target):
            audits = audit_paths(session_paths(target), allow)
        else:
            audits = iter([audit_file(target, allow)])
        where = target
    else:
        root = resolve_sessions_root(session_dir)
        audits = audit_paths(session_paths(root.path), allow) if os.path.isdir(root.path) else iter(())
        where = root.describe()
    printed = 0
    for audit in audits:
        for finding in audit.findings:
            _print(finding, as_json)
            printed += 1
    if not printed and not as_json:
        text(f"no secrets found in {where}")
    return 0


def _print(finding: Finding, as_json: bool) -> None:
    from ...core.common.jsonout import encode_json
    from .output import text, write_line

    if as_json:
        write_line(encode_json(finding.to_json()))
        return
    state = "in context" if finding.in_context else finding.fate
    via = f"{finding.source} {finding.part}"
    text(f"{finding.kind:22} {finding.preview:26} {finding.entry_id or '(header)':10} {via:24} {state}")
    text(f"{'':22} {finding.session_path}")
