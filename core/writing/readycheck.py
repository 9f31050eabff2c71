"""The whole resume check of one leaf, for the command line and the browser alike: pi's findings
(core/projection/readiness.py) and the stale files, git asked where the cwd is a work tree."""

from __future__ import annotations

from ..projection.file_knowledge import files_at
from ..projection.pi_logins import login_check
from ..projection.readiness import Readiness, readiness
from ..projection.stale import stale_files
from ..session.session import Session
from .gitprobe import open_probe


def check_leaf(session: Session, leaf_id: str, *, agent: str | None = None, git: bool = True) -> Readiness:
    """What pi 1.6.0 will do with `session` at `leaf_id`, and what changed on disk since
    (raises UnknownEntryError). Reads the session's bodies it needs, and whether the model's
    provider has a login (auth.json, its API-key variables: never a secret's value); writes nothing."""
    session.get(leaf_id)
    probe = open_probe(session.cwd) if git else None
    stale = stale_files(session, files_at(session, leaf_id), probe)
    return readiness(session, leaf_id, stale_files=stale, agent=agent, has_login=login_check(agent))
