"""The compactions an audit does not show are told apart: later on the same path, or elsewhere."""

from __future__ import annotations

from pathlib import Path

from pi_sessions.core.projection.compaction_audit import CompactionsOffPath, compactions_off_path
from pi_sessions.core.session.session import Session

from tests.helpers.sessions import assistant, entry, header, user, write


def compaction(entry_id: str, parent: str, n: int) -> dict[str, object]:
    return entry("compaction", entry_id, parent, n, summary="s", firstKeptEntryId=parent, tokensBefore=10)


def test_later_on_the_path_and_on_other_branches(tmp_path: Path) -> None:
    session = Session.open(
        write(
            tmp_path / "s.jsonl",
            header(),
            user("u1", None, "a", 1),
            assistant("a1", "u1", "b", 2),
            compaction("c1", "a1", 3),  # below a1 on the main line
            user("u2", "c1", "c", 4),
            compaction("c2", "u2", 5),
            user("x1", "u1", "fork", 6),  # another branch from u1
            compaction("c3", "x1", 7),
        )
    )
    assert compactions_off_path(session, session.path_to("a1")) == CompactionsOffPath(
        later=2, other_branches=1
    )
    assert compactions_off_path(session, session.path_to("u2")) == CompactionsOffPath(
        later=1, other_branches=1
    )
    assert compactions_off_path(session, session.path_to("c3")) == CompactionsOffPath(
        later=0, other_branches=2
    )
