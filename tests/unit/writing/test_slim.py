"""`slim`: a fork of the path whose images and big tool outputs are moved out to files beside
it; pi 1.6.0 opened the same slim copy with the same context but the placeholders
(tests/fixtures/resume-checks/pi-1.6.0-slim.json, from pi_slim_check.mjs)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from pi_sessions.core.common.problems import SessionError
from pi_sessions.core.projection.context import project
from pi_sessions.core.session.session import Session

from tests.helpers.cli import cli

FIXTURES = Path(__file__).parents[2] / "fixtures" / "resume-checks"
SOURCE = FIXTURES / "with-images.jsonl"
PI = json.loads((FIXTURES / "pi-1.6.0-slim.json").read_text())


def slim(tmp_path: Path, *args: str) -> dict:
    result = cli(
        "slim",
        str(SOURCE),
        "--leaf",
        "a3",
        "--max-output",
        "4096",
        "--out",
        str(tmp_path / "s.jsonl"),
        "--json",
        *args,
    )
    assert result.code == 0, result.stderr
    return json.loads(result.stdout)


def test_images_and_big_outputs_move_out_and_the_context_is_the_same_but_the_placeholders(
    tmp_path: Path,
) -> None:
    before = SOURCE.read_bytes()
    value = slim(tmp_path)
    assert value["path"] == str(tmp_path / "s.jsonl")
    assert [(m["entry_id"], m["kind"]) for m in value["moved"]] == [("u1", "image"), ("r1", "output")]
    source_lines = [json.loads(line) for line in before.splitlines()]
    image = base64.b64decode(source_lines[1]["message"]["content"][1]["data"])
    output = source_lines[3]["message"]["content"][0]["text"].encode()
    assert [Path(m["file"]).read_bytes() for m in value["moved"]] == [image, output]
    assert [m["bytes"] for m in value["moved"]] == [len(image), len(output)]
    # Smaller than a plain copy by at least what moved out; the file on disk is that size.
    assert value["bytes_before"] - value["bytes_after"] >= sum(m["bytes"] for m in value["moved"])
    assert (tmp_path / "s.jsonl").stat().st_size == value["bytes_after"]
    assert SOURCE.read_bytes() == before  # the original untouched
    # Our projection of both, as pi's answer says: same messages, two placeholders.
    original = Session.open(SOURCE)
    copy = Session.open(tmp_path / "s.jsonl")
    assert copy.default_leaf is not None
    a = project(original, "a3").messages(original)
    b = project(copy, copy.default_leaf).messages(copy)
    assert len(a) == len(b) == PI["messages"][0] == PI["messages"][1]
    differing = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    placeholders = [
        block for _, y in differing for block in y["content"] if "moved out by pi-sessions slim" in str(block)
    ]
    assert len(placeholders) == PI["placeholders"] == 2 and PI["other_differences"] == 0
    assert all(Path(m["file"]).name in str(placeholders) for m in value["moved"])


def test_a_dry_run_writes_nothing(tmp_path: Path) -> None:
    value = slim(tmp_path, "--dry-run")
    assert value["path"] is None and len(value["moved"]) == 2
    assert list(tmp_path.iterdir()) == []


def test_small_contents_stay_inline(tmp_path: Path) -> None:
    result = cli(
        "slim",
        str(SOURCE),
        "--leaf",
        "a3",
        "--max-output",
        "100000",
        "--out",
        str(tmp_path / "s.jsonl"),
        "--json",
    )
    value = json.loads(result.stdout)
    assert [m["kind"] for m in value["moved"]] == ["image"]  # the 28 kB output is under the limit


def test_an_existing_file_is_never_replaced(tmp_path: Path) -> None:
    (tmp_path / "s.jsonl").write_text("mine")
    result = cli("slim", str(SOURCE), "--out", str(tmp_path / "s.jsonl"))
    assert result.code == 2 and (tmp_path / "s.jsonl").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl"]  # no folder of moved files left


def test_a_copy_that_cannot_be_written_leaves_nothing(tmp_path: Path, monkeypatch: Any) -> None:
    from pi_sessions.core.writing import slim as slim_module

    def full(plan: Any) -> str:
        raise SessionError("disk full")

    monkeypatch.setattr(slim_module, "write_fork", full)
    result = cli("slim", str(SOURCE), "--out", str(tmp_path / "s.jsonl"))
    assert result.code == 2 and "disk full" in result.stderr
    assert list(tmp_path.iterdir()) == []
