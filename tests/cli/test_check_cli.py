"""`pi-sessions check`: the JSON contract (ready, findings, stale_files) and the exit status."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.helpers.cli import cli, raw_controls
from tests.helpers.sessions import assistant, header, user, write

FIXTURES = Path(__file__).parents[1] / "fixtures" / "resume-checks"


def test_a_ready_session_exits_0_and_says_so() -> None:
    result = cli("check", str(FIXTURES / "ready.jsonl"), "--json")
    assert result.code == 0, result.stderr
    value = json.loads(result.stdout)
    assert value["ready"] is True and value["findings"] == [] and value["stale_files"] == []
    assert cli("check", str(FIXTURES / "ready.jsonl")).stdout.startswith("pi 1.6.0: ready, nothing")


def test_warnings_exit_3_with_each_finding_and_its_entry() -> None:
    result = cli("check", str(FIXTURES / "orphan.jsonl"), "--json")
    assert result.code == 3
    value = json.loads(result.stdout)
    assert value["ready"] is True
    assert [(f["code"], f["entry_id"], f["tool_call_ids"]) for f in value["findings"]] == [
        ("orphan-tool-call", "a1", ["call_find"]),
        ("orphan-tool-call", "a3", ["call_last"]),
    ]
    assert all(set(f) >= {"code", "message", "entry_id"} for f in value["findings"])


def test_a_leaf_before_the_first_tool_call_is_ready() -> None:
    result = cli("check", str(FIXTURES / "orphan.jsonl"), "--leaf", "u1", "--json")
    assert result.code == 0
    assert json.loads(result.stdout)["findings"] == []


def test_a_file_that_is_not_a_session_exits_2_with_one_line_and_ready_false() -> None:
    result = cli("check", str(FIXTURES / "not-a-session.jsonl"), "--json")
    assert result.code == 2
    value = json.loads(result.stdout)
    assert value["ready"] is False and [f["code"] for f in value["findings"]] == ["not-a-session"]
    assert len(result.stderr.splitlines()) == 1 and "not a pi session" in result.stderr


def test_an_unknown_leaf_or_a_missing_file_is_bad_input(tmp_path: Path) -> None:
    unknown = cli("check", str(FIXTURES / "ready.jsonl"), "--leaf", "nope")
    assert unknown.code == 2 and unknown.stdout == "" and "nope" in unknown.stderr
    missing = cli("check", str(tmp_path / "none.jsonl"), "--json")
    assert missing.code == 2 and missing.stdout == ""
    (tmp_path / "empty.jsonl").write_bytes(b"")  # pi writes a header into it: not refused
    empty = cli("check", str(tmp_path / "empty.jsonl"), "--json")
    assert empty.code == 2 and empty.stdout == "" and "empty" in empty.stderr


def test_stale_files_are_listed_with_why(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.md").write_text("x")
    call = {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "notes.md"}}
    result = {"role": "toolResult", "toolCallId": "c1", "toolName": "read", "isError": False, "content": "x"}
    path = write(
        tmp_path / "s.jsonl",
        header(cwd=str(work)),
        user("u1", None, "read it", 1),
        assistant("a1", "u1", "", 2, content=[call], stopReason="toolUse"),
        {
            "type": "message",
            "id": "r1",
            "parentId": "a1",
            "timestamp": "2025-03-01T10:00:03.000Z",
            "message": result,
        },
        assistant("a2", "r1", "read", 4),
    )
    os.utime(work / "notes.md", (1740819600, 1740819600))  # before the read
    assert cli("check", str(path)).code == 0
    (work / "notes.md").unlink()
    out = cli("check", str(path), "--json")
    assert out.code == 3
    assert [(s["path"], s["why"], s["entry_id"]) for s in json.loads(out.stdout)["stale_files"]] == [
        (str(work / "notes.md"), "deleted", "r1")
    ]
    text = cli("check", str(path))
    assert "files the model saw: 1 deleted" in text.stdout and "notes.md" in text.stdout


def test_the_readable_form_is_inert(tmp_path: Path) -> None:
    calls = [
        {"type": "toolCall", "id": f"c{i}", "name": "read", "arguments": {"path": p}}
        for i, p in enumerate(["/tmp/\ud800lone", "/tmp/nul\x00here", "/tmp/\x1b[2Jx"])
    ]
    results = [
        {
            "type": "message",
            "id": f"r{i}",
            "parentId": "a0" if i == 0 else f"r{i - 1}",
            "timestamp": "2025-03-01T10:00:03.000Z",
            "message": {
                "role": "toolResult",
                "toolCallId": f"c{i}",
                "toolName": "read",
                "isError": False,
                "content": "x",
            },
        }
        for i in range(3)
    ]
    path = write(
        tmp_path / "s.jsonl",
        header(cwd="/gone\x1b[31m/\u202e"),
        user("u0", None, "read", 0),
        assistant("a0", "u0", "", 1, content=calls, stopReason="toolUse"),
        *results,
        user("u1", "r2", "hi", 4),
        assistant("a1", "u1", "hi", 5, model="evil\x1b]52;c;x\x07", provider="p\x9b"),
    )
    result = cli("check", str(path))
    assert result.code == 3
    assert raw_controls(result.stdout) == [] and "cwd gone" in result.stdout
