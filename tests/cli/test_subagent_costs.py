"""The cost of subagent sessions counted into their parent's on request."""

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


def test_stats_with_subagents_adds_each_child_and_the_totals_with_them(tree: SubagentTree) -> None:
    p1 = tree.file("0000000000a1.jsonl")
    alone = json.loads(cli("stats", str(p1), "--json").stdout)
    assert "subagents" not in alone
    result = cli("stats", str(p1), "--json", "--with-subagents")
    assert result.code == 0, result.stderr
    out = json.loads(result.stdout)
    kids = {Path(k["path"]).name: (k["parentEntryId"], k["cost"]) for k in out["subagents"]}
    assert kids == {
        "session.jsonl": ("a1", 0.03),
        "2025-03-01T10-06-00-000Z_0195aaaa-0000-7000-8000-0000000004c4.jsonl": ("a2", 0.05),
    }
    assert out["cost_with_subagents"] == pytest.approx(alone["session_totals"]["cost"] + 0.08)
    assert out["tokens_with_subagents"] == alone["session_totals"]["tokens"] + 300
    text = cli("stats", str(p1), "--with-subagents").stdout
    assert "subagents 2:" in text and "(spawned at a2)" in text


def test_costs_with_subagents_counts_the_sessions_pi_does_not_list(tree: SubagentTree) -> None:
    def total(*args: str) -> float:
        result = cli("costs", "--by", "model", "--json", "--no-cache", *args)
        assert result.code == 0, result.stderr
        return sum(json.loads(line)["cost"] for line in result.stdout.splitlines())

    # below pi's levels: the nested run (0.03), the id-named folder's (0.04), subagent-sessions/
    # (0.01) and $PI_SUBAGENT_SESSION_DIR's (0.02); subagents/ is in pi's list already
    assert total("--with-subagents") == pytest.approx(total() + 0.10)
