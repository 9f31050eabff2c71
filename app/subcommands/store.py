"""`pi-sessions store`: create or migrate the shared PostgreSQL store; which roles read all of it."""

from __future__ import annotations

import argparse

HELP = "create or migrate the shared PostgreSQL store (init); let a role read every session (grant, revoke)"

EXAMPLES = (
    "pi-sessions store init postgresql://admin@db.example/pi",
    "pi-sessions store grant 'host=db.example dbname=pi user=admin' team",
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("init", "grant", "revoke"), help="what to do")
    parser.add_argument(
        "dsn", metavar="DSN", help="libpq connection string or URI (PG* variables, ~/.pgpass)"
    )
    parser.add_argument(
        "role",
        metavar="ROLE",
        nargs="?",
        help="grant/revoke: the role (a team role: each of its members) that reads every session",
    )
    parser.epilog = (
        "Each row belongs to the role that pushed it; a role reads its own rows, and every row once\n"
        "granted (directly or as a member of a granted role). Only the role that ran init can grant."
    )


def run(ns: argparse.Namespace) -> int:
    from ...core.common.problems import SessionError
    from ...core.store_pg.connect import connect
    from ...core.store_pg.dsn import shown_dsn
    from ...core.store_pg.schema import check_schema, grant_reading, init_store
    from .output import text

    if ns.action == "init":
        if ns.role is not None:
            raise SessionError("store init takes no ROLE")
        with connect(ns.dsn) as connection:
            before, after = init_store(connection)
        if before == after:
            text(f"the store {shown_dsn(ns.dsn)} is at schema version {after} already")
        elif before == 0:
            text(f"created the store in {shown_dsn(ns.dsn)} (schema version {after})")
        else:
            text(f"migrated the store {shown_dsn(ns.dsn)} from schema version {before} to {after}")
        return 0
    if not ns.role:
        raise SessionError(f"store {ns.action} needs a ROLE")
    revoke = ns.action == "revoke"
    with connect(ns.dsn) as connection:
        check_schema(connection)
        changed = grant_reading(connection, ns.role, revoke=revoke)
    if revoke:
        text(f"{ns.role} reads only its own sessions" + ("" if changed else " (it was not granted)"))
    else:
        text(f"{ns.role} reads every session in the store" + ("" if changed else " (granted already)"))
    return 0
