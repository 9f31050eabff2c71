"""What several subcommands share: opening a session for printing, from its file or from the shared store."""

from __future__ import annotations

import argparse

from ...core.common.problems import SessionError
from ...core.session.session import Session


def since_ms(value: str | None) -> float | None:
    """The earliest time (ms) a `--since DUR` lets in (None: no limit); a bad duration is a
    SessionError naming the option (exit 2, one line)."""
    import time

    from ...core.search.query import parse_duration

    if value is None:
        return None
    try:
        return time.time() * 1000 - parse_duration(value)
    except ValueError as e:
        raise SessionError(f"--since: {e}") from None


def open_session(path: str, cache_entries: int = 512) -> Session:
    session = Session.open(path, cache_entries=cache_entries)
    if session.header is None:
        raise SessionError(f"not a pi session yet: {session.path} is empty")
    return session


def add_store_arguments(parser: argparse.ArgumentParser, path_help: bool = True) -> None:
    """`--store DSN` (and `--host NAME`): read the shared PostgreSQL store instead of files."""
    parser.add_argument(
        "--store",
        metavar="DSN",
        help="read the shared PostgreSQL store (PATH: the session's path on the host that pushed it)"
        if path_help
        else "read the shared PostgreSQL store instead of this machine's files",
    )
    parser.add_argument("--host", metavar="NAME", help="with --store: only sessions pushed as host NAME")


def open_any(path: str, store: str | None, host: str | None, cache_entries: int = 512) -> Session:
    """The session at `path`: the local file, or with `store` the stored one (`host` picks
    among hosts that pushed that path)."""
    if store is None:
        if host is not None:
            raise SessionError("--host needs --store")
        return open_session(path, cache_entries)
    from ...core.store_pg.connect import connect
    from ...core.store_pg.fetch import open_stored

    with connect(store) as connection:
        session = open_stored(connection, path, host)
    if session.header is None:
        raise SessionError(f"not a pi session yet: the stored {path} is empty")
    return session
