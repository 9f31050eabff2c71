"""The MCP answers' redaction without the protocol (app/subcommands/mcp_redact.py): a huge
string is redacted where the answer's cut keeps it, the whole of it when nothing is cut, and
a line with nothing in it is passed on as the command line printed it."""

from __future__ import annotations

from pathlib import Path

from pi_sessions.app.subcommands.mcp import run_subcommand
from pi_sessions.app.subcommands.mcp_redact import MARGIN, LineRedactor
from pi_sessions.app.subcommands.mcp_tools import call
from pi_sessions.core.audit.allowlist import AllowList

from tests.helpers.cli import cli
from tests.helpers.secrets import AWS_ID, GITHUB, SLACK
from tests.helpers.sessions import assistant, header, user, write


def huge_session(tmp_path: Path) -> Path:
    filler = "lorem ipsum dolor sit amet " * (4 * MARGIN // 27)
    text = f"use {GITHUB} first\n{filler}\nthen {SLACK}\n{filler}\nlast {AWS_ID}"
    return write(
        tmp_path / "--p--" / "2025-03-01T10-00-00-000Z_big.jsonl",
        header(),
        user("u1", None, text, 1),
        assistant("a1", "u1", "ok", 2),
    )


def test_a_huge_string_is_redacted_where_the_cut_keeps_it_and_whole_when_nothing_is_cut(
    tmp_path: Path,
) -> None:
    session = str(huge_session(tmp_path))
    cut = call("context", {"path": session}, run_subcommand, LineRedactor(AllowList()).line)
    assert "characters cut" in cut.text
    assert GITHUB not in cut.text and AWS_ID not in cut.text and SLACK not in cut.text
    assert "[redacted: github-token]" in cut.text and "[redacted: aws-access-key-id]" in cut.text
    # max_chars 0 (nothing cut for length): the whole string, its middle too
    line = cli("context", "--json", session).stdout.rstrip("\n").encode()
    whole = LineRedactor(AllowList())
    whole.prime_from({"path": session}, 0)
    redacted = whole.line(line).decode()
    assert "lorem ipsum" in redacted and "characters cut" not in redacted
    for secret in (GITHUB, SLACK, AWS_ID):
        assert secret not in redacted
    assert "[redacted: slack-token]" in redacted and whole.count == 3
    # with a cut coming, the middle (which no cut keeps) is not searched
    ends = LineRedactor(AllowList())
    ends.prime_from({}, 2000)
    assert SLACK in ends.line(line).decode() and ends.count == 2


def test_a_line_with_no_secret_is_the_command_line_s_bytes(tmp_path: Path) -> None:
    session = write(
        tmp_path / "--p--" / "2025-03-01T10-00-00-000Z_s.jsonl",
        header(),
        user("u1", None, "the token budget is 20000 tokens, password reset tomorrow", 1),
        assistant("a1", "u1", "ok \x1b[2J", 2),
    )
    lines = LineRedactor(AllowList())
    answer = call("context", {"path": str(session), "max_chars": 0}, run_subcommand, lines.line)
    assert answer.text == cli("context", "--json", str(session)).stdout
    assert lines.count == 0
