"""`pi-sessions push`: this machine's session files into the shared PostgreSQL store (what it lacks)."""

from __future__ import annotations

import argparse

HELP = "send this machine's sessions to a shared PostgreSQL store (only the bytes it lacks)"

EXAMPLES = (
    "pi-sessions push postgresql://me@db.example/pi",
    "pi-sessions push 'host=db.example dbname=pi' --host laptop",
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dsn", metavar="DSN", help="libpq connection string or URI (PG* variables, ~/.pgpass)"
    )
    parser.add_argument(
        "--host", metavar="NAME", help="the host name the sessions are stored under (default: this machine's)"
    )
    parser.add_argument("--session-dir", metavar="DIR")
    parser.epilog = (
        "Lines are stored byte for byte, not redacted: a credential in a session reaches the store.\n"
        "A file is pushed in one transaction: an interrupted push leaves it as the last push did."
    )


def run(ns: argparse.Namespace) -> int:
    import socket

    from ...core.common.locations import resolve_sessions_root
    from ...core.common.text import counted
    from ...core.store_pg.connect import connect
    from ...core.store_pg.dsn import shown_dsn
    from ...core.store_pg.push import push
    from .output import text, warn

    root = resolve_sessions_root(ns.session_dir)
    host = ns.host or socket.gethostname()
    with connect(ns.dsn) as connection:
        report = push(connection, root.path, host)
    for path, why in report.unreadable:
        warn(f"skipped {path}: {why}")
    if report.sent:
        replaced = f", {report.replaced} sent again whole" if report.replaced else ""
        text(
            f"pushed {counted(report.sent, 'session')} ({counted(report.lines, 'line')}, "
            f"{report.bytes} bytes{replaced}) as host {host} to {shown_dsn(ns.dsn)};"
            f" {report.unchanged} unchanged"
        )
    else:
        up_to_date = counted(report.unchanged, "session")
        text(f"nothing to push: {up_to_date} of host {host} up to date in {shown_dsn(ns.dsn)}")
    return 0
