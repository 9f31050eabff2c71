"""What the subcommands print for people (without --json), where a small state shows: the
listing's flags, the first message of a session that starts with the assistant speaking."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.cli import cli
from tests.helpers.sessions import chain, header, two_fork_session, write


def _listed(root: Path) -> dict[str, str]:
    """Each listed session's first line, by file name."""
    result = cli("list", "--session-dir", str(root))
    assert result.code == 0, result.stderr
    lines = result.stdout.splitlines()
    return {second.split("/")[-1]: first for first, second in zip(lines[::2], lines[1::2], strict=True)}


def test_list_flags_only_the_branched_session_as_branched_and_only_the_fork_as_a_fork(tmp_path: Path) -> None:
    folder = tmp_path / "sessions" / "--home-u-proj--"
    source = two_fork_session(folder / "branched.jsonl")
    write(folder / "linear.jsonl", header(id="linear"), *chain(4))
    write(
        folder / "fork.jsonl",
        header(id="fork", parentSession=str(source)),
        *chain(2),
    )
    flags = {name: line.split("msgs")[1][:5].strip() for name, line in _listed(tmp_path / "sessions").items()}
    assert flags == {"branched.jsonl": "+", "linear.jsonl": "", "fork.jsonl": "*"}
