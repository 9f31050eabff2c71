"""`pi-sessions stats`: the JSON fields scripts read, the readable report, and one-line errors."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.helpers.cli import run_cli
from tests.helpers.corpus import FIXTURES
from tests.helpers.sessions import assistant, entry, header, user, write

DEMO_REL = "--tmp-scratch--/2025-03-30T10-52-05-079Z_0195e6ae-1c57-71e5-b35b-1bbb5f940b52.jsonl"
DEMO = FIXTURES / "sessions" / DEMO_REL


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(*args)  # in this process, answering as a subprocess would


def _pi_tokens(rel: str) -> dict[str, int]:
    return json.loads((FIXTURES / "expected" / "_tokens.json").read_text())[rel]


def test_stats_json_at_the_default_leaf() -> None:
    out = run("stats", str(DEMO), "--json")
    assert out.returncode == 0, out.stderr
    stats = json.loads(out.stdout)
    leaf = stats["leaf"]
    assert leaf == "91ac5f50"
    assert stats["context_tokens"] == _pi_tokens(DEMO_REL)[leaf] == 7394  # the figure
    assert stats["context"]["context_window"] == 202_752  # glm-4.6, a well-known model
    assert stats["context"]["context_level"] == "normal"
    context = json.loads(run("context", str(DEMO), "--json").stdout)
    assert stats["path_totals"]["tokens"] == context["tokens"]
    assert stats["path_totals"]["cost"] == context["cost"]
    assert stats["sizes"]["file_bytes"] == DEMO.stat().st_size
    on_path = [f for f in stats["forks"] if f["on_path_child"]]
    assert on_path and all(f["on_path_child"] in [b["child_id"] for b in f["branches"]] for f in on_path)
    assert stats["timeline"]["turns"] and stats["compactions"] == []


def test_stats_at_another_leaf() -> None:
    leaves = _pi_tokens(DEMO_REL)
    leaf = next(k for k, v in leaves.items() if v and k != "91ac5f50")
    stats = json.loads(run("stats", str(DEMO), "--leaf", leaf, "--json").stdout)
    assert stats["leaf"] == leaf and stats["context_tokens"] == leaves[leaf]


def test_stats_readable_report() -> None:
    out = run("stats", str(DEMO))
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "7,394 tokens" in text and "of 203k" in text
    assert "branches" in text and "a clone of this leaf" in text
    ascii_out = run("stats", str(DEMO), "--ascii").stdout
    spark = next(line for line in ascii_out.splitlines() if line.startswith("over time"))
    assert spark.isascii()


def test_stats_errors_are_one_line_exit_2(tmp_path: Path) -> None:
    unknown = run("stats", str(DEMO), "--leaf", "nope")
    assert unknown.returncode == 2 and len(unknown.stderr.strip().splitlines()) == 1
    assert "Traceback" not in unknown.stderr
    not_session = tmp_path / "x.jsonl"
    not_session.write_text('{"type": "message"}\n')
    refused = run("stats", str(not_session))
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    empty = write(tmp_path / "empty.jsonl", header())
    assert run("stats", str(empty)).returncode == 2


def test_stats_readable_output_never_prints_session_control_characters(tmp_path: Path) -> None:
    evil = "\x1b]0;owned\x07\x1b[31m"
    entries = [
        user("u1", None, "q", 1),
        assistant(
            "a1",
            "u1",
            "",
            2,
            content=[
                {"type": "toolCall", "id": "c", "name": evil, "arguments": {"path": evil}},
                {"type": "toolCall", "id": "d", "name": "read", "arguments": {"path": evil}},
                {"type": "toolCall", "id": "e", "name": "bash", "arguments": {"command": evil}},
            ],
            model=evil,
        ),
        entry(
            "message",
            "t1",
            "a1",
            3,
            message={"role": "toolResult", "toolName": evil, "content": "x", "toolCallId": "c"},
        ),
        entry("compaction", "c1", "t1", 4, summary="nothing", firstKeptEntryId="c1", tokensBefore=10),
        entry("message", "r1", "c1", 5, message={"role": "bashExecution", "command": evil, "output": ""}),
    ]
    path = write(tmp_path / "evil.jsonl", header(), *entries)
    out = run("stats", str(path))
    assert out.returncode == 0, out.stderr
    assert "\x1b" not in out.stdout and "\x07" not in out.stdout
    assert "files not in the summary" in out.stdout and "commands not in the summary" in out.stdout
    data = json.loads(run("stats", str(path), "--json").stdout)
    assert data["model"]["modelId"] == evil  # JSON stays exact


def test_token_counts_are_whole_numbers_in_json() -> None:
    """A token count is written `7394`, as JSON.stringify writes it, never `7394.0`."""
    import re

    forked = next(
        p
        for p in sorted((FIXTURES / "sessions").rglob("*.jsonl"))
        if len(json.loads(run("stats", str(p), "--json").stdout)["forks"])
    )
    for args in (
        ("stats", str(forked), "--json"),
        ("context", str(forked), "--json"),
        ("stats", str(DEMO), "--json"),
    ):
        out = run(*args).stdout
        assert '"tokens":' in out
        assert not re.search(r'"tokens":-?\d+\.0\b', out), args
