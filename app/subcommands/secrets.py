"""`pi-sessions secrets`: every credential-shaped string in the sessions (core/audit), with the
entry, the tool call or message that brought it in, and whether the model still has it."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...core.audit.allowlist import AllowList
    from ...core.audit.scan import Finding

HELP = "secrets in the sessions (kind, entry, which tool call brought each in, still in context?)"

EXAMPLES = (
    "pi-sessions secrets",
    "pi-sessions secrets ~/.pi/agent/sessions/--home-u-proj-- --json",
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "path", metavar="PATH", nargs="?", help="a session file or folder (default: every session)"
    )
    parser.add_argument("--session-dir", metavar="DIR")
    parser.add_argument("--json", action="store_true", help="JSON Lines, one object per finding")
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="read every file instead of the audit's cache of unchanged files",
    )
    parser.epilog = (
        "Values are never printed whole: a preview shows the first and last two characters and"
        " the length. Not-secrets go in secrets-allow.txt in the config folder (pi-sessions"
        " config shows it), one value or re:PATTERN a line."
    )


def run(ns: argparse.Namespace) -> int:
    return cmd_secrets(ns.path, ns.session_dir, ns.json, use_cache=not ns.no_cache)


def load_allow() -> AllowList:
    """The user's allow-list; what is wrong with it is said once on stderr."""
    from ..config import load_secrets_allow
    from .output import warn

    allow = load_secrets_allow()
    for problem in allow.problems:
        warn(f"pi-sessions: allow-list: {problem}")
    return allow


def cmd_secrets(path: str | None, session_dir: str | None, as_json: bool, use_cache: bool = True) -> int:
    import os

    from ...core.audit.cache import CACHE_NAME, audit_with_cache
    from ...core.audit.scan import session_paths
    from ...core.common.locations import expand_path, resolve_sessions_root
    from ...core.common.problems import SessionError
    from ...core.listing.index_cache import default_cache_dir
    from .output import text

    allow = load_allow()
    if path is not None:
        target = expand_path(path)
        if not os.path.exists(target):
            raise SessionError(f"no such file or folder: {path}")
        paths = session_paths(target)
        where = target
    else:
        root = resolve_sessions_root(session_dir)
        paths = session_paths(root.path) if os.path.isdir(root.path) else []
        where = root.describe()
    if len(paths) == 1 and not os.path.isdir(paths[0]):
        from ...core.audit.scan import audit_file
        from .common import open_session

        open_session(paths[0])  # a file that is not a session: exit 2
        audits = iter([audit_file(paths[0], allow).findings])
    else:
        audits = audit_with_cache(paths, allow, default_cache_dir() / CACHE_NAME if use_cache else None)
    printed = 0
    for findings in audits:
        for finding in findings:
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
