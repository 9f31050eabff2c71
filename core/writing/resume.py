"""The command that resumes a session in pi, from a configurable template."""

from __future__ import annotations

import shlex

from ..common.text import is_inert

DEFAULT_TEMPLATE = "pi --session {path}"


def build_resume_command(template: str, path: str, cwd: str, session_id: str) -> list[str]:
    """The argv to run: the template's words with {path}, {cwd} and {id} filled in (each
    placeholder stays inside its word, whatever spaces the value holds)."""
    words = shlex.split(template)
    return [w.replace("{path}", path).replace("{cwd}", cwd).replace("{id}", session_id) for w in words]


def shell_line(argv: list[str], cwd: str) -> str:
    """What a person would type: `cd CWD && COMMAND`, quoted for a POSIX shell; a word holding
    a newline or another control is written `$'...'` with escapes, so the line stays one inert
    line and still names exactly that folder (bash, zsh, ksh and POSIX.1-2024 sh read it)."""
    return f"cd {shell_word(cwd)} && {' '.join(map(shell_word, argv))}"


def shell_word(word: str) -> str:
    if is_inert(word):
        return shlex.quote(word)
    out = []
    for ch in word:
        code = ord(ch)
        if ch in "\\'":
            out.append("\\" + ch)
        elif 0xDC80 <= code <= 0xDCFF:  # a byte of a name that is not UTF-8 (surrogateescape)
            out.append(f"\\x{code - 0xDC00:02x}")
        elif not is_inert(ch):
            out.append(
                f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
            )
        else:
            out.append(ch)
    return "$'" + "".join(out) + "'"
