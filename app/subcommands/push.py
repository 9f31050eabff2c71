"""`pi-sessions push`: this machine's session files into the shared PostgreSQL store (what it lacks)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...core.store_pg.push import PushReport
    from ...core.store_pg.pushplan import Redact, RedactFor

HELP = "send this machine's sessions to a shared PostgreSQL store (only the bytes it lacks)"

EXAMPLES = (
    "pi-sessions push postgresql://me@db.example/pi",
    "pi-sessions push 'host=db.example dbname=pi' --host laptop",
    "pi-sessions push postgresql://me@db.example/pi --watch",
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dsn", metavar="DSN", help="libpq connection string or URI (PG* variables, ~/.pgpass)"
    )
    parser.add_argument(
        "--host", metavar="NAME", help="the host name the sessions are stored under (default: this machine's)"
    )
    parser.add_argument("--session-dir", metavar="DIR")
    parser.add_argument(
        "--watch", action="store_true", help="after the push, keep pushing what pi writes (ctrl+c stops)"
    )
    parser.add_argument(
        "--no-redact",
        action="store_true",
        help="store every line byte for byte, secrets included (default: each one [redacted: KIND])",
    )
    parser.epilog = (
        "Each secret the audit finds (pi-sessions secrets) is stored as [redacted: KIND], wherever\n"
        "the file quotes it; every other line byte for byte. Not-secrets: secrets-allow.txt.\n"
        "A file is pushed in one transaction: an interrupted push leaves it as the last push did."
    )


def run(ns: argparse.Namespace) -> int:
    import asyncio
    import socket

    from ...core.store_pg.connect import connect
    from ...core.store_pg.dsn import shown_dsn
    from ...core.store_pg.push import push
    from ...core.store_pg.watch import push_forever
    from .output import flush, text, warn

    root = resolve_root(ns.session_dir)
    host = ns.host or socket.gethostname()
    where = shown_dsn(ns.dsn)
    redact_for = None if ns.no_redact else file_redaction()
    if ns.no_redact:
        warn("pi-sessions: --no-redact: every secret in these sessions is stored as it is")

    def reported(pushed: PushReport, first: bool) -> None:
        report(pushed, host, where, quiet=not first)
        if first:
            text(f"watching {root} (ctrl+c stops)")
            flush()

    with connect(ns.dsn) as connection:
        if ns.watch:
            asyncio.run(push_forever(connection, root, host, reported, redact_for=redact_for))
        else:
            report(push(connection, root, host, redact_for=redact_for), host, where, quiet=False)
    return 0


def file_redaction() -> RedactFor:
    """Each file's lines redacted with the secrets of its own bytes (core/audit/redact.py)."""
    from ...core.audit.redact import line_redaction
    from .secrets import load_allow

    allow = load_allow()

    def redact_for(path: str, data: bytes) -> Redact:
        return line_redaction(data, allow)

    return redact_for


def resolve_root(session_dir: str | None) -> str:
    from ...core.common.locations import resolve_sessions_root

    return resolve_sessions_root(session_dir).path


def report(report: PushReport, host: str, where: str, quiet: bool) -> None:
    """What a push did, on one line (`quiet`: nothing when it sent nothing, for --watch)."""
    from ...core.common.text import counted
    from .output import flush, text, warn

    for path, why in report.unreadable:
        warn(f"skipped {path}: {why}")
    if report.sent:
        replaced = f", {report.replaced} sent again whole" if report.replaced else ""
        text(
            f"pushed {counted(report.sent, 'session')} ({counted(report.lines, 'line')}, "
            f"{report.bytes} bytes{replaced}) as host {host} to {where}; {report.unchanged} unchanged"
        )
    elif not quiet:
        up_to_date = counted(report.unchanged, "session")
        text(f"nothing to push: {up_to_date} of host {host} up to date in {where}")
    flush()
