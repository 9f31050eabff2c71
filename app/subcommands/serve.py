"""`pi-sessions serve`: the same browser in a web page, through textual-serve.

Each page that connects runs `pi-sessions --served ...` (with the flags given here) in a
terminal of its own; `--served` tells the app that there is no terminal to hand to pi. The
server (app/guarded_server.py) answers only requests that carry this run's token, under its own
host name, and WebSockets from its own page.
"""

from __future__ import annotations

import argparse

HELP = "serve the browser as a web page (textual-serve, localhost by default)"

EXAMPLES = (
    "pi-sessions serve",
    "ssh -L 8000:127.0.0.1:8000 box  (then, on the box: pi-sessions serve)",
)

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def configure(parser: argparse.ArgumentParser) -> None:
    from ..arguments import add_app_arguments

    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, metavar="N", help="port (default 8000)")
    parser.add_argument(
        "--public-url", metavar="URL", help="the address browsers use, if not http://HOST:PORT (a proxy)"
    )
    parser.add_argument(
        "--max-clients",
        type=int,
        default=4,
        metavar="N",
        help="pages connected at once (each runs its own app; default 4)",
    )
    parser.add_argument(
        "--no-redact",
        action="store_true",
        help="show secrets as they are (default: each one drawn as [redacted: KIND])",
    )
    add_app_arguments(parser)
    parser.epilog = (
        "It prints the address to open, with this run's secret token: a request without it is refused."
        " Each secret the audit finds (pi-sessions secrets) is drawn as [redacted: KIND] unless"
        " --no-redact."
    )


def run(ns: argparse.Namespace) -> int:
    import shlex
    import sys

    from ...core.common.problems import SessionError
    from .output import warn

    ns.redact = not ns.no_redact
    if ns.no_redact:
        warn(
            "pi-sessions: WARNING: --no-redact: the page shows every secret in the sessions as it is"
            " (API keys, tokens, passwords) to whoever opens it."
        )
    if not 0 < ns.port < 65536:
        raise SessionError(f"--port {ns.port}: not a port number (1-65535)")
    if ns.max_clients < 1:
        raise SessionError(f"--max-clients {ns.max_clients}: at least 1")
    try:
        from ..guarded_server import GuardedServer
    except ImportError:
        raise SessionError("textual-serve is not installed: pip install textual-serve") from None
    from .output import flush, text

    command = shlex.join([sys.executable, "-m", "pi_sessions.app.cli", *app_argv(ns)])
    if ns.host not in LOOPBACK:
        warn(
            f"pi-sessions: WARNING: serving on {ns.host}: anyone who can reach this address can read "
            "every session and fork or resume them as you. Use the default 127.0.0.1 (and an SSH "
            "tunnel) unless you mean it."
        )

    def announce(line: str) -> None:
        text(line)
        flush()

    GuardedServer(
        command,
        host=ns.host,
        port=ns.port,
        public_url=public_url(ns),
        max_clients=ns.max_clients,
        announce=announce,
    ).serve()
    return 0


def public_url(ns: argparse.Namespace) -> str:
    """Where the page tells the browser to connect back (a wildcard address is no place to go)."""
    import socket

    if ns.public_url:
        return str(ns.public_url).rstrip("/")
    host = socket.getfqdn() if ns.host in ("0.0.0.0", "::", "") else ns.host
    return f"http://{f'[{host}]' if ':' in host else host}:{ns.port}"


def app_argv(ns: argparse.Namespace) -> list[str]:
    """The browser's own arguments, rebuilt from what `serve` was given, plus `--served`."""
    import os

    from ..arguments import browser_parser

    argv = ["--served"]
    for action in browser_parser()._actions:
        if not action.option_strings:
            value = getattr(ns, action.dest, None)
            if value:
                argv.append(os.path.abspath(value))  # the app may not start where we are
            continue
        if action.dest in ("help", "version", "served"):
            continue
        value = getattr(ns, action.dest, None)
        if action.nargs == 0:
            if value:
                argv.append(action.option_strings[-1])
        elif value is not None:
            argv += [action.option_strings[-1], str(value)]
    return argv
