"""What the fork confirmation says the new file holds (core/writing/fork.py `fork_preview`)."""

from __future__ import annotations

from pathlib import Path

from pi_sessions.core.session.session import Session
from pi_sessions.core.writing.fork import fork_preview, plan_fork

from tests.helpers.sessions import assistant, entry, header, user, write


def test_the_first_message_is_the_first_users_even_when_the_assistant_speaks_first(tmp_path: Path) -> None:
    """As pi's `firstMessage`: the first user message (NOTES.md 17), not a greeting before it."""
    session = Session.open(
        write(
            tmp_path / "s.jsonl",
            header(),
            assistant("a0", None, "Hello! How can I help?", 1),
            user("u1", "a0", "fix the build", 2),
            assistant("a1", "u1", "done", 3),
            entry("label", "l1", "a1", 4, targetId="u1", label="start"),
        )
    )
    lines = fork_preview(session, plan_fork(session, "a1"))
    assert [line for line in lines if line.startswith(("first message", "last message", "labels"))] == [
        "labels: 'start' on u1",
        "first message: fix the build",
        "last message: done",
    ]
