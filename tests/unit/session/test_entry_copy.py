"""What ctrl+x in the tree copies (core/session/entry_copy.py): pi's `getEntryCopyText`, checked
against pi 1.6.0's tree selector on this very file."""

from __future__ import annotations

from pathlib import Path

from pi_sessions.core.session.entry_copy import entry_copy_text
from pi_sessions.core.session.session import Session

from tests.helpers.sessions import assistant, entry, header, user, write


def test_each_kind_of_entry_copies_what_pi_copies(tmp_path: Path) -> None:
    path = write(
        tmp_path / "copy.jsonl",
        header(),
        user("u1", None, "  spaced question  ", 1),
        assistant(
            "a1",
            "u1",
            "",
            2,
            content=[
                {"type": "thinking", "thinking": "hmm"},
                {"type": "text", "text": "part one "},
                {"type": "text", "text": "part two"},
            ],
        ),
        assistant("a2", "a1", "", 3, content=[], stopReason="error", errorMessage="rate limited"),
        entry(
            "message",
            "b1",
            "a2",
            4,
            message={
                "role": "bashExecution",
                "command": "ls -la",
                "output": "x",
                "exitCode": 0,
                "timestamp": 1,
            },
        ),
        entry(
            "message",
            "t1",
            "b1",
            5,
            message={
                "role": "toolResult",
                "toolCallId": "c1",
                "toolName": "read",
                "content": [{"type": "text", "text": "file body"}],
                "isError": False,
                "timestamp": 1,
            },
        ),
        entry(
            "custom_message",
            "cm",
            "t1",
            6,
            customType="note",
            content=[{"type": "text", "text": "custom text"}],
        ),
        entry("compaction", "co", "cm", 7, summary="the summary", firstKeptEntryId="u1", tokensBefore=1000),
        entry("branch_summary", "bs", "co", 8, summary="   ", fromId="u1"),
        entry("branch_summary", "b2", "bs", 8, summary="  what the other branch did  ", fromId="u1"),
        entry("model_change", "mc", "b2", 9, provider="x", modelId="y"),
        user("u2", "mc", "", 10),
    )
    session = Session.open(str(path))
    copied = {record.id: entry_copy_text(session.entry_dict(record)) for record in session.records}
    # pi 1.6.0's answers for the same file:
    assert copied == {
        "u1": "  spaced question  ",
        "a1": "part one part two",
        "a2": "rate limited",
        "b1": "ls -la",
        "t1": "file body",
        "cm": "custom text",
        "co": "the summary",
        "bs": None,
        "b2": "  what the other branch did  ",
        "mc": None,
        "u2": None,
    }
