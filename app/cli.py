"""Command line entry point: `pi-sessions [PATH]` starts the browser, subcommands print.

Subcommands never import Textual, so they start fast. Errors print one line and exit 2,
through `subcommands/output.py` like every other readable line (a file name in an error
may hold an escape sequence).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from .subcommands import MODULES as SUBCOMMANDS
from .subcommands.output import silence_stdout, warn


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
            return _run_subcommand(args[0], args[1:])
        return _run_tui(_tui_parser().parse_args(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        silence_stdout()
        return 0


def _run_subcommand(name: str, args: list[str]) -> int:
    from ..core.problems import SessionError

    try:
        from . import subcommands

        return subcommands.run(name, args)
    except SessionError as e:
        warn(f"pi-sessions: {e}")
        return 2
    except BrokenPipeError:
        raise
    except OSError as e:
        warn(f"pi-sessions: {e.strerror or e}: {e.filename or ''}".rstrip(": "))
        return 2
    except Exception as e:  # never a traceback for a user; PI_SESSIONS_DEBUG=1 shows it
        if os.environ.get("PI_SESSIONS_DEBUG"):
            raise
        warn(f"pi-sessions: internal error: {type(e).__name__}: {e}")
        return 1


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
        warn(f"pi-sessions: {problem}")

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
            warn(f"pi-sessions: no such file or folder: {ns.path}")
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
