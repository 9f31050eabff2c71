"""`pi-sessions resume`: run pi on a session, in its working directory."""

from __future__ import annotations

import argparse

HELP = "resume a session in pi (in its working directory)"

EXAMPLES = (
    "pi-sessions resume FILE",
    "pi-sessions resume FILE --print",
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="PATH")
    parser.add_argument(
        "--command",
        dest="command_template",
        metavar="TEMPLATE",
        help="instead of the configured command ({path} {cwd} {id})",
    )
    parser.add_argument("--here", action="store_true", help="run in the current directory, not the session's")
    parser.add_argument("--print", action="store_true", help="print the command instead of running it")


def run(ns: argparse.Namespace) -> int:
    return cmd_resume(ns.path, ns.command_template, ns.here, ns.print)


def cmd_resume(path: str, template: str | None, here: bool, print_only: bool) -> int:
    import os
    import shutil

    from ...core.common.problems import SessionError
    from ...core.writing.resume import build_resume_command, shell_line
    from ..config import load_settings
    from .common import open_session
    from .output import flush, text

    session = open_session(path)
    settings, _ = load_settings()
    cwd = os.getcwd() if here else session.cwd
    argv = build_resume_command(
        template or settings.resume_command, session.path or path, cwd, session.session_id or ""
    )
    line = shell_line(argv, cwd)
    if print_only:
        text(line)
        return 0
    if not cwd or not os.path.isdir(cwd):
        raise SessionError(
            f"the session's directory no longer exists: {cwd or '(none)'}; use --here to resume in this one"
        )
    if not argv or shutil.which(argv[0]) is None:
        raise SessionError(f"{argv[0] if argv else 'pi'} is not on PATH; the command would be: {line}")
    flush()
    os.chdir(cwd)
    os.execvp(argv[0], argv)
