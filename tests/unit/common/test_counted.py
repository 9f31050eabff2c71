"""Counts read right: one of a thing is singular, the rest plural, with thousands grouped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pi_sessions.core.common.text import counted

from tests.helpers.sessions import header, user, write


def test_one_is_singular_and_the_rest_plural() -> None:
    assert counted(1, "message") == "1 message"
    assert counted(0, "message") == "0 messages"
    assert counted(1204, "session") == "1,204 sessions"
    assert counted(2, "entry", "entries") == "2 entries"


def test_a_one_message_context_says_1_message(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write(path, header(), user("u1", None, "hello"))
    out = subprocess.run(
        [sys.executable, "-m", "pi_sessions.app.cli", "context", str(path)], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert "1 message " in out.stdout and "1 messages" not in out.stdout
