"""The printing command line: JSON shapes, readable output, and one-line errors (exit 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import FIXTURES
from .helpers import assistant, entry, header, user, write

SAMPLE = next((FIXTURES / "sessions" / "--home-u-proj-b--").glob("2025-03-12T18-40-38*.jsonl"))  # labels


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pi_sessions.app.cli", *args], capture_output=True, text=True
    )


def test_tree_json_has_the_contract_fields() -> None:
    out = run("tree", str(SAMPLE), "--json")
    assert out.returncode == 0, out.stderr
    tree = json.loads(out.stdout)
    for key in (
        "header",
        "entry_ids",
        "default_leaf",
        "session_name",
        "roots",
        "children",
        "preorder",
        "labels",
        "label_timestamps",
        "diagnostics",
    ):
        assert key in tree
    assert set(tree["preorder"]) == set(tree["entry_ids"])


def test_context_default_leaf_and_explicit_leaves() -> None:
    tree = json.loads(run("tree", str(SAMPLE), "--json").stdout)
    out = run("context", str(SAMPLE), "--json")
    [line] = [json.loads(x) for x in out.stdout.splitlines()]
    assert line["leaf"] == tree["default_leaf"]
    assert len(line["messages"]) == sum(line["projection_message_counts"])
    leaves = tree["entry_ids"][:3]
    out = run("context", str(SAMPLE), "--json", *[a for leaf in leaves for a in ("--leaf", leaf)])
    assert [json.loads(x)["leaf"] for x in out.stdout.splitlines()] == leaves


def test_readable_outputs_show_every_entry_and_the_reasons() -> None:
    shape = json.loads(run("tree", str(SAMPLE), "--json").stdout)
    parent = {kid: entry_id for entry_id, kids in shape["children"].items() for kid in kids}
    active = [shape["default_leaf"]]
    while active[-1] in parent:
        active.append(parent[active[-1]])
    tree = run("tree", str(SAMPLE))
    assert tree.returncode == 0
    head, *rows = tree.stdout.splitlines()
    assert (
        head
        == f"session {shape['header']['id']}  cwd {shape['header']['cwd']}  {len(shape['entry_ids'])} entries"
    )
    ids = [row[1:].replace("├─", "").replace("└─", "").split()[0] for row in rows]
    assert sorted(ids) == sorted(shape["entry_ids"])  # every entry once
    assert sorted(i for i, row in zip(ids, rows, strict=True) if row.startswith("*")) == sorted(active)
    line = json.loads(run("context", str(SAMPLE), "--json").stdout)
    context = run("context", str(SAMPLE))
    first, *fates = context.stdout.splitlines()[:-1]
    assert first.startswith(
        f"leaf {line['leaf']}  model {line['model']['provider']}/{line['model']['modelId']}"
    )
    assert f"  {len(line['messages'])} messages  " in first
    assert [row.split()[1] for row in fates] == list(reversed(active))  # the path, root first
    sent = [row.split()[1] for row in fates if row.startswith("+")]
    assert sorted(sent) == sorted(line["context_entry_ids"])
    assert all(row.endswith(("[sent to the model, 1 msg]", "[kept, but sends no message]")) for row in fates)


@pytest.mark.parametrize(
    "args, message",
    [
        (("tree", "/no/such/file.jsonl"), "no such file"),
        (("context", str(SAMPLE), "--leaf", "nope"), "no entry with id"),
        (("fork", str(SAMPLE), "--leaf", "nope", "--dry-run"), "no entry with id"),
    ],
)
def test_errors_are_one_line_exit_2(args: tuple[str, ...], message: str) -> None:
    out = run(*args)
    assert out.returncode == 2
    assert message in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_not_a_session_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "x.jsonl", user("a", None, "no header"))
    out = run("tree", str(path), "--json")
    assert out.returncode == 2 and "not a pi session" in out.stderr and "Traceback" not in out.stderr


def test_fork_dry_run_writes_nothing_and_fork_writes_next_to_source(tmp_path: Path) -> None:
    source = write(
        tmp_path / "s.jsonl",
        header(),
        user("a", None, "q"),
        assistant("b", "a", "x", 1),
        entry("label", "l", "b", 2, targetId="a", label="start"),
    )
    out = run("fork", str(source), "--leaf", "b", "--dry-run", "--json")
    plan = json.loads(out.stdout)
    assert plan["path"] is None and len(list(tmp_path.iterdir())) == 1
    assert [line["type"] for line in plan["lines"]] == ["session", "message", "message", "label"]
    out = run("fork", str(source), "--leaf", "b", "--json")
    written = json.loads(out.stdout)["path"]
    assert Path(written).parent == tmp_path
    lines = [json.loads(x) for x in Path(written).read_text().splitlines()]
    assert lines[0]["parentSession"] == str(source)
    assert lines[-1]["targetId"] == "a" and lines[-1]["label"] == "start"


def test_readable_context_says_why_entries_are_left_out(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        header(),
        user("u1", None, "old question", 1),
        assistant("a1", "u1", "old answer", 2),
        entry("compaction", "c1", "a1", 3, summary="what came before", firstKeptEntryId="a1", tokensBefore=9),
        entry("context_edit", "e1", "c1", 4, targetId="a1", replacement=None),
        user("u2", "e1", "new question", 5),
    )
    out = run("context", str(path), "--leaf", "u2")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[1:-1] == [
        "- u1 user      old question  [summarized by compaction c1]",
        "- a1 assistant old answer  [omitted by context edit e1]",
        "+ c1 compaction [compaction: 9 tokens] what came before  [compaction: its summary replaces the history before it, 1 msg]",
        "+ e1 edit      omit a1  [kept, but sends no message]",
        "+ u2 user      new question  [sent to the model, 1 msg]",
    ]
