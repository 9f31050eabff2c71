"""Copies of the hand-made fixture trees in tests/fixtures/, made usable where they land."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ROOT_MARK = "@ROOT@"


@dataclass(frozen=True)
class SubagentTree:
    agent: Path  # the pi agent folder (PI_CODING_AGENT_DIR)
    sessions: Path  # its sessions folder
    env_dir: Path  # the folder PI_SUBAGENT_SESSION_DIR names in the tests
    pi_list_all: list[Path]  # pi 1.6.0's listAll() of it, in its order

    def file(self, suffix: str) -> Path:
        """The one session file under the tree whose name ends with `suffix`."""
        hits = [p for p in self.agent.parent.rglob("*.jsonl") if p.name.endswith(suffix)]
        assert len(hits) == 1, hits
        return hits[0]


def subagent_tree(dest: Path) -> SubagentTree:
    """tests/fixtures/subagents copied under `dest`, `@ROOT@` made the copy's sessions folder."""
    target = dest / "subagents"
    shutil.copytree(FIXTURES / "subagents", target)
    sessions = target / "agent" / "sessions"
    for path in target.rglob("*.jsonl"):
        data = path.read_text(encoding="utf-8")
        if ROOT_MARK in data:
            path.write_text(data.replace(ROOT_MARK, str(sessions)), encoding="utf-8")
    listed = (target / "pi-1.6.0-listAll.txt").read_text(encoding="utf-8").split()
    return SubagentTree(target / "agent", sessions, target / "env-subagents", [sessions / p for p in listed])


def omp_store(dest: Path) -> Path:
    """tests/fixtures/omp copied under `dest`; returns its sessions folder (`@ROOT@` made it)."""
    target = dest / "omp"
    shutil.copytree(FIXTURES / "omp", target)
    sessions = target / "agent" / "sessions"
    for path in target.rglob("*.jsonl"):
        data = path.read_bytes()
        if ROOT_MARK.encode() in data:
            path.write_bytes(data.replace(ROOT_MARK.encode(), str(sessions).encode()))
    return sessions
