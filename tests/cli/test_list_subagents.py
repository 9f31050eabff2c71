"""`list` stays pi's with subagent sessions on disk; `list --subagents` adds them with their parent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.cli import cli
from tests.helpers.fixtures import SubagentTree, subagent_tree


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SubagentTree:
    t = subagent_tree(tmp_path)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(t.agent))
    monkeypatch.delenv("PI_CODING_AGENT_SESSION_DIR", raising=False)
    monkeypatch.setenv("PI_SUBAGENT_SESSION_DIR", str(t.env_dir))
    monkeypatch.chdir(tmp_path)
    return t


def _rows(*args: str) -> list[dict[str, object]]:
    result = cli("list", "--json", "--no-cache", *args)
    assert result.code == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_list_is_exactly_what_pi_lists_with_subagent_folders_on_disk(tree: SubagentTree) -> None:
    rows = _rows()
    assert [Path(str(r["path"])) for r in rows] == tree.pi_list_all
    assert all("parent" not in r for r in rows)


def test_list_subagents_adds_each_child_with_its_parent_and_spawning_entry(tree: SubagentTree) -> None:
    rows = {Path(str(r["path"])).name: r for r in _rows("--subagents")}
    p1 = str(tree.file("0000000000a1.jsonl"))
    p2 = str(tree.file("0000000000b2.jsonl"))
    p3 = str(tree.file("0000000000c3.jsonl"))
    expected = {
        "session.jsonl": (p1, "a1"),  # pi-subagents: <stem>/<runId>/run-0/session.jsonl
        "2025-03-01T10-06-00-000Z_0195aaaa-0000-7000-8000-0000000004c4.jsonl": (p1, "a2"),  # subagents/
        "2025-03-01T10-22-00-000Z_0195aaaa-0000-7000-8000-0000000002c2.jsonl": (
            p2,
            "b1",
        ),  # <parent id>/<runId>/
        "2025-03-01T10-26-00-000Z_0195aaaa-0000-7000-8000-0000000006c6.jsonl": (
            p2,
            "b2",
        ),  # $PI_SUBAGENT_SESSION_DIR
        "2025-03-01T10-42-00-000Z_0195aaaa-0000-7000-8000-0000000003c3.jsonl": (p3, None),  # header link
        "2025-03-01T10-45-00-000Z_0195aaaa-0000-7000-8000-0000000005c5.jsonl": (
            p3,
            None,
        ),  # subagent-sessions/
    }
    for name, (parent, entry) in expected.items():
        assert (rows[name]["parent"], rows[name]["parentEntryId"]) == (parent, entry), name
    fork = rows["2025-03-01T10-50-00-000Z_0195aaaa-0000-7000-8000-0000000000f1.jsonl"]
    assert fork["parent"] is None  # a fork of P1 is not its subagent
    assert fork["parentSessionPath"] == p1
    assert "a1b2c3d4_scout.jsonl" not in rows  # the run's artifact is no session
    # pi's own rows are all there, in pi's order among the others
    pi_rows = [Path(p) for p in (str(r["path"]) for r in _rows("--subagents")) if Path(p) in tree.pi_list_all]
    assert pi_rows == tree.pi_list_all


def test_list_subagents_text_says_whose_subagent(tree: SubagentTree) -> None:
    result = cli("list", "--no-cache", "--subagents")
    assert result.code == 0
    assert f"subagent of {tree.file('0000000000a1.jsonl')} at entry a2" in result.stdout
