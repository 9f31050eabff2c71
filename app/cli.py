"""Command line entry point: `pi-sessions [PATH]` starts the browser, subcommands print.

Subcommands never import Textual, so they start fast. Exit status: 0 ok, 2 bad input (one
line on stderr), 1 an internal error, 130 interrupted. Errors go through
`subcommands/output.py` like every other readable line (a file name in an error may hold an
escape sequence).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from .arguments import browser_parser, flag_overrides
from .subcommands import MODULES as SUBCOMMANDS
from .subcommands.output import flush_all, silence_stdout, warn

EXAMPLES = """\
examples:
  pi-sessions                               browse every session (the current folder's first)
  pi-sessions ~/.pi/agent/sessions          browse one sessions folder
  pi-sessions path/to/session.jsonl         open one session
  pi-sessions --demo                        try it on bundled demo sessions
  pi-sessions list --json | jq -r .path     every session file, newest first
  pi-sessions context FILE --leaf ID        what the model saw at an entry
  pi-sessions fork FILE --leaf ID --cwd DIR a new session from the path to an entry
  pi-sessions serve --port 8000             the same browser in a web page (localhost only)
  source <(pi-sessions completion bash)     tab completion (also zsh, fish)
"""

EXIT_CODES = """\
exit status:
  0    ok
  1    internal error (PI_SESSIONS_DEBUG=1 shows the traceback)
  2    bad input: a bad argument, a file that is not a pi session, an unknown entry id
  3    check: ready with warnings
  130  interrupted (ctrl+c)
"""


def _tui_parser(full_help: bool = True) -> argparse.ArgumentParser:
    """The browser's parser; `full_help` adds the subcommands, examples, config path and exit
    codes after the options (built only when help is asked for)."""
    return browser_parser(_epilog() if full_help else None)


def _epilog() -> str:
    from . import subcommands
    from .config import config_path

    lines = ["subcommands (print instead of starting the browser; `pi-sessions SUBCOMMAND --help`):"]
    width = max(len(name) for name in SUBCOMMANDS)
    for name in SUBCOMMANDS:
        lines.append(f"  {name:<{width}}  {subcommands.module(name).HELP}")
    settings = (
        f"settings:\n  {config_path()}\n  (`pi-sessions config` shows every setting and where it came from)\n"
    )
    return "\n".join(lines) + "\n\n" + EXAMPLES + "\n" + settings + "\n" + EXIT_CODES


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if args and args[0] in SUBCOMMANDS:
            return _run_subcommand(args[0], args[1:])
        asks_help = any(a in ("-h", "--help") for a in args)
        return _run_tui(_tui_parser(full_help=asks_help).parse_args(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        silence_stdout()
        return 0


def console_main() -> None:
    """The installed `pi-sessions` command: `main`, and after a subcommand, out at once
    without tearing the interpreter down (freeing every module and object one by one was
    11 ms of a 86 ms `pi-sessions list --json`). Output is flushed first; the browser
    restores the terminal before `main` returns, but it exits the usual way."""
    code = main()
    if not (sys.argv[1:2] and sys.argv[1] in SUBCOMMANDS):
        sys.exit(code)
    if not flush_all():
        code = code or 1
    os._exit(code)


def _run_subcommand(name: str, args: list[str]) -> int:
    from ..core.common.problems import SessionError

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
    from ..core.common.gcpause import COLLECTIONS

    # Start-up makes hundreds of thousands of objects (modules, classes, styles), few of them
    # garbage: cyclic collections walking them cost ~30 ms before the first frame. Held until
    # that frame goes out (tui.py releases them there), or the browser did not start.
    COLLECTIONS.hold()
    try:
        return _browse(ns)
    finally:
        COLLECTIONS.release()


def _browse(ns: argparse.Namespace) -> int:
    from .config import color_system, read_settings, resolve_theme

    loaded = read_settings().with_flags(flag_overrides(ns))
    if loaded.settings.served and loaded.source("ascii").kind == "environment":
        # The page's terminal (xterm.js) draws every glyph, whatever the server's TERM says.
        loaded = loaded.with_flags({"ascii": (False, "--served")})
    settings = loaded.settings
    problem = loaded.problem_line()
    if problem:
        warn(f"pi-sessions: {problem}")
    # Textual reads these when it is imported (textual.constants): set them first. In the browser,
    # textual-serve has chosen truecolor already; only an explicit choice changes that.
    color_source = loaded.source("color").kind
    if settings.color != "none" and (color_source in ("file", "flag") or not os.environ.get("NO_COLOR")):
        # no-color.org: an explicit choice overrides NO_COLOR, and an empty NO_COLOR asks for
        # nothing (Textual would go monochrome on its mere presence)
        os.environ.pop("NO_COLOR", None)
    if not (settings.served and color_source == "default"):
        system = color_system(settings.color)
        if system is None:
            os.environ["NO_COLOR"] = "1"
        else:
            os.environ["TEXTUAL_COLOR_SYSTEM"] = system
    if not settings.animations:
        os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
    # Only now may Textual be imported (widgets/keys.py does): it reads the variables above once.
    from .keymap import load_keys

    # Key problems: said here once, before the screen is taken, and again in the status line.
    keys = load_keys(settings.keys, config_file=str(loaded.path))
    for line in keys.problems:
        warn(f"pi-sessions: {line}")

    from ..core.common.locations import SessionsRoot, resolve_sessions_root

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

    from ..core.common.terminal_query import query_colours
    from .tui import run_app

    # pi's `system` theme asks the terminal (at most 100 ms, only then); a served page has none.
    theme = resolve_theme(settings.theme, ask=None if settings.served else query_colours)
    return run_app(
        settings,
        root,
        open_path=open_path,
        appearance=theme.appearance,
        notices=([problem] if problem else []) + keys.problems,
        keys=keys,
    )


if __name__ == "__main__":
    console_main()
