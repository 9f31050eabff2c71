"""The browser's command line: its arguments, the flags that override settings, its parser.

Shared by the entry point (app/cli.py) and the subcommands that start or describe the browser
(`serve`, `config`, `completion`), so none of them imports the entry point.
"""

from __future__ import annotations

import argparse
from typing import Any


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as package_version

    try:
        return package_version("pi-sessions")
    except PackageNotFoundError:
        return "unknown (not installed)"


class _LazyVersion(argparse._VersionAction):
    """`--version`, its package metadata read only when it is asked for (importing
    importlib.metadata was 8 ms of every browser start)."""

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        self.version = f"pi-sessions {version()}"
        super().__call__(parser, *args, **kwargs)


def add_app_arguments(parser: argparse.ArgumentParser) -> None:
    """PATH and the flags of the browser (shared by the browser itself and `serve`)."""
    parser.add_argument("path", nargs="?", metavar="PATH", help="a session file or a sessions folder to open")
    parser.add_argument(
        "--demo", action="store_true", help="open a bundled set of demo sessions (a temporary copy)"
    )
    add_setting_arguments(parser)


def add_setting_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags that override settings (shared with `config`, which shows their effect)."""
    parser.add_argument("--session-dir", metavar="DIR", help="where pi keeps sessions")
    parser.add_argument(
        "--color",
        choices=("auto", "truecolor", "256", "16", "none"),
        help="colour depth (auto: 256 colours unless the terminal says truecolor; NO_COLOR is honoured)",
    )
    parser.add_argument(
        "--theme",
        choices=("dark", "light", "system"),
        help="colours for a dark or light terminal (system: the terminal's background, then COLORFGBG; "
        "unset: pi's theme setting)",
    )
    parser.add_argument(
        "--ascii",
        action="store_true",
        help="ASCII instead of box drawing and glyphs (by itself on TERM=linux, vt100, a non-UTF-8 locale)",
    )
    parser.add_argument("--no-mouse", action="store_true", help="leave the mouse to the terminal")
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
    # Passed by `pi-sessions serve` to the app it runs in the browser.
    parser.add_argument("--served", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--redact", action="store_true", help=argparse.SUPPRESS)


def flag_overrides(ns: argparse.Namespace) -> dict[str, tuple[object, str]]:
    """setting -> (value, the flag that set it), for the flags given on the command line."""
    found: dict[str, tuple[object, str]] = {}
    for name, flag in (("color", "--color"), ("theme", "--theme")):
        if getattr(ns, name, None):
            found[name] = (getattr(ns, name), f"{flag} {getattr(ns, name)}")
    for name in ("ascii", "poll", "exit_on_resume", "animations", "served", "redact"):
        if getattr(ns, name, False):
            found[name] = (True, "--" + name.replace("_", "-"))
    if getattr(ns, "no_mouse", False):
        found["mouse"] = (False, "--no-mouse")
    if getattr(ns, "resume_command", None):
        found["resume_command"] = (ns.resume_command, "--resume-command")
    if getattr(ns, "session_dir", None):
        found["session_dir"] = (ns.session_dir, "--session-dir")
    return found


def browser_parser(epilog: str | None = None) -> argparse.ArgumentParser:
    """The browser's parser (`epilog`: what the full help says after the options)."""
    parser = argparse.ArgumentParser(
        prog="pi-sessions",
        description="Browse, understand and resume the sessions of the pi coding agent.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=epilog,
    )
    parser.add_argument("--version", action=_LazyVersion)
    add_app_arguments(parser)
    return parser
