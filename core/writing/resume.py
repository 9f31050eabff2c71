"""The command that resumes a session in pi, from a configurable template."""

from __future__ import annotations

import shlex

DEFAULT_TEMPLATE = "pi --session {path}"


def build_resume_command(template: str, path: str, cwd: str, session_id: str) -> list[str]:
    """The argv to run: the template's words with {path}, {cwd} and {id} filled in (each
    placeholder stays inside its word, whatever spaces the value holds)."""
    words = shlex.split(template)
    return [w.replace("{path}", path).replace("{cwd}", cwd).replace("{id}", session_id) for w in words]


def shell_line(argv: list[str], cwd: str) -> str:
    """What a person would type: `cd CWD && COMMAND`, quoted for a POSIX shell."""
    return f"cd {shlex.quote(cwd)} && {shlex.join(argv)}"
