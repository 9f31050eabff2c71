"""What several subcommands share: opening a session file for printing."""

from __future__ import annotations

from ...core.common.problems import SessionError
from ...core.session.session import Session


def open_session(path: str, cache_entries: int = 512) -> Session:
    session = Session.open(path, cache_entries=cache_entries)
    if session.header is None:
        raise SessionError(f"not a pi session yet: {session.path} is empty")
    return session
