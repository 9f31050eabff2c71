"""Command line entry point: `pi-sessions [PATH]` starts the browser, subcommands print.

Subcommands never import Textual, so they start fast. Errors print one line and exit 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

SUBCOMMANDS = ("list", "tree", "context", "fork", "resume")


def _subcommand_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pi-sessions", description="Browse the session files of the pi coding agent."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("list", help="list sessions, newest first")
    p.add_argument("--session-dir", metavar="DIR")
    p.add_argument("--cwd", metavar="CWD", help="only sessions whose header cwd is CWD")
    p.add_argument("--json", action="store_true", help="JSON Lines, one object per session")
    p.add_argument("--no-cache", action="store_true", help="read every file instead of using the index cache")

    p = sub.add_parser("tree", help="the branch tree of one session")
    p.add_argument("path", metavar="PATH")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("context", help="what the model saw at an entry (default: the default leaf)")
    p.add_argument("path", metavar="PATH")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--leaf", metavar="ID", action="append", help="an entry id (repeatable)")
    group.add_argument("--all", action="store_true", help="every entry as the leaf")
    p.add_argument("--json", action="store_true", help="JSON Lines, one object per leaf")

    p = sub.add_parser("fork", help="write a new session holding the path to an entry")
    p.add_argument("path", metavar="PATH")
    p.add_argument("--leaf", metavar="ID", required=True)
    p.add_argument("--cwd", metavar="CWD", help="fork into another working directory")
    p.add_argument("--session-dir", metavar="DIR")
    p.add_argument("--dry-run", action="store_true", help="print what would be written, write nothing")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("resume", help="resume a session in pi (in its working directory)")
    p.add_argument("path", metavar="PATH")
    p.add_argument(
        "--command",
        dest="command_template",
        metavar="TEMPLATE",
        help="instead of the configured command ({path} {cwd} {id})",
    )
    p.add_argument("--here", action="store_true", help="run in the current directory, not the session's")
    p.add_argument("--print", action="store_true", help="print the command instead of running it")
    return parser


def _tui_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pi-sessions",
        description="Browse, understand and resume the sessions of the pi coding agent.",
        epilog="Subcommands (print instead of starting the browser): "
        + ", ".join(SUBCOMMANDS)
        + ". See `pi-sessions SUBCOMMAND --help`.",
    )
    parser.add_argument("path", nargs="?", metavar="PATH", help="a session file or a sessions folder to open")
    parser.add_argument("--session-dir", metavar="DIR", help="where pi keeps sessions")
    parser.add_argument(
        "--demo", action="store_true", help="open a bundled set of demo sessions (a temporary copy)"
    )
    parser.add_argument(
        "--color",
        choices=("auto", "truecolor", "256", "16", "none"),
        default="auto",
        help="colour depth (auto: 256 colours unless the terminal says truecolor; NO_COLOR is honoured)",
    )
    parser.add_argument("--ascii", action="store_true", help="ASCII instead of box drawing and other glyphs")
    parser.add_argument(
        "--poll", action="store_true", help="watch files by polling instead of OS notifications"
    )
    parser.add_argument(
        "--resume-command", metavar="TEMPLATE", help="command to resume a session ({path} {cwd} {id})"
    )
    parser.add_argument(
        "--exit-on-resume", action="store_true", help="quit instead of coming back after resuming"
    )
    parser.add_argument("--animations", action="store_true", help="turn Textual animations on")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if args and args[0] in SUBCOMMANDS:
            return _run_subcommand(_subcommand_parser().parse_args(args))
        return _run_tui(_tui_parser().parse_args(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 0


def _run_subcommand(ns: argparse.Namespace) -> int:
    from ..core.problems import SessionError

    try:
        from . import commands

        if ns.command == "list":
            return commands.cmd_list(ns.session_dir, ns.cwd, ns.json, use_cache=not ns.no_cache)
        if ns.command == "tree":
            return commands.cmd_tree(ns.path, ns.json)
        if ns.command == "context":
            return commands.cmd_context(ns.path, ns.leaf, ns.all, ns.json)
        if ns.command == "fork":
            return commands.cmd_fork(ns.path, ns.leaf, ns.cwd, ns.session_dir, ns.dry_run, ns.json)
        if ns.command == "resume":
            return commands.cmd_resume(ns.path, ns.command_template, ns.here, ns.print)
    except SessionError as e:
        print(f"pi-sessions: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        raise
    except OSError as e:
        print(f"pi-sessions: {e.strerror or e}: {e.filename or ''}".rstrip(": "), file=sys.stderr)
        return 2
    except Exception as e:  # never a traceback for a user; PI_SESSIONS_DEBUG=1 shows it
        if os.environ.get("PI_SESSIONS_DEBUG"):
            raise
        print(f"pi-sessions: internal error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    return 2


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass


def _run_tui(ns: argparse.Namespace) -> int:
    from .config import color_system, load_settings

    settings, problem = load_settings()
    overrides: dict[str, object] = {}
    if ns.color != "auto":
        overrides["color"] = ns.color
    for flag in ("ascii", "poll", "exit_on_resume", "animations"):
        if getattr(ns, flag):
            overrides[flag] = True
    if ns.resume_command:
        overrides["resume_command"] = ns.resume_command
    if ns.session_dir:
        overrides["session_dir"] = ns.session_dir
    settings = settings.model_copy(update=overrides)
    if problem:
        print(f"pi-sessions: {problem}", file=sys.stderr)

    # Textual reads these when it is imported: set them first.
    system = color_system(settings.color)
    if system is None:
        os.environ["NO_COLOR"] = "1"
    else:
        os.environ["TEXTUAL_COLOR_SYSTEM"] = system
    if not settings.animations:
        os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

    from ..core.locations import SessionsRoot, resolve_sessions_root

    open_path: str | None = None
    if ns.demo:
        from .demo import demo_root

        root = demo_root()
    elif ns.path and os.path.isdir(ns.path):
        root = SessionsRoot(os.path.abspath(ns.path), "the folder given", True)
    elif ns.path:
        if not os.path.isfile(ns.path):
            print(f"pi-sessions: no such file or folder: {ns.path}", file=sys.stderr)
            return 2
        open_path = os.path.abspath(ns.path)
        root = resolve_sessions_root(settings.session_dir)
        if not open_path.startswith(root.path.rstrip("/") + "/"):
            # A file outside the sessions folder: browse its own folder.
            root = SessionsRoot(os.path.dirname(open_path), "the file's folder", True)
    else:
        root = resolve_sessions_root(settings.session_dir)

    from .tui import run_app

    run_app(settings, root, open_path=open_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
