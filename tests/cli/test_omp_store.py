"""An oh-my-pi store (a title slot line before each header) read through --session-dir."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers.cli import cli
from tests.helpers.fixtures import omp_store

SESSION = "-proj/2025-03-02T09-00-00-000Z_0195bbbb-0000-7000-8000-000000000001.jsonl"


def test_list_reads_an_omp_store_with_each_session_titled_by_its_slot(tmp_path: Path) -> None:
    root = omp_store(tmp_path)
    result = cli("list", "--session-dir", str(root), "--no-cache", "--json")
    assert result.code == 0, result.stderr
    (row,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert row["name"] == "Fix the arm64 build"
    assert row["firstMessage"] == "why does the build fail on arm64?"
    assert row["messageCount"] == 2
    assert row["piListsIt"] is False  # pi 1.6.0 refuses a file whose first line is not a header


def test_an_omp_session_opens_with_its_title(tmp_path: Path) -> None:
    root = omp_store(tmp_path)
    result = cli("tree", str(root / SESSION), "--json")
    assert result.code == 0, result.stderr
    tree = json.loads(result.stdout)
    assert tree["session_name"] == "Fix the arm64 build"
    assert tree["entry_ids"] == ["o1", "o2", "o3"]
    assert tree["header"]["id"] == "0195bbbb-0000-7000-8000-000000000001"


def test_an_omp_subagent_is_found_under_its_parent(tmp_path: Path) -> None:
    root = omp_store(tmp_path)
    result = cli("list", "--session-dir", str(root), "--no-cache", "--json", "--subagents")
    rows = {Path(str(r["path"])).name: r for r in map(json.loads, result.stdout.splitlines())}
    assert rows["task-1.jsonl"]["parent"] == str(root / SESSION)
