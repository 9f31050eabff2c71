"""The pi 1.6.0 corpus the tests read: its folder, its expected results, and their sessions."""

from __future__ import annotations

import json
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pi-1.6.0"
# Resolved: in a worktree, ../shared may be a symlink, and forks name their source by real path.
SHARED_FIXTURES = (Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "pi-1.6.0").resolve()


def expected_files() -> list[Path]:
    """Every expected-result file of the committed corpus (and of ../shared when present, for
    the third-party files that must not be committed)."""
    found = sorted((FIXTURES / "expected").rglob("*.jsonl.json"))
    if (SHARED_FIXTURES / "expected").is_dir():
        have = {p.relative_to(FIXTURES) for p in found}
        for p in sorted((SHARED_FIXTURES / "expected").rglob("*.jsonl.json")):
            if p.relative_to(SHARED_FIXTURES) not in have:
                found.append(p)
    return found


def load_expected(path: Path) -> dict:
    return json.loads(path.read_text())


def session_path_for(expected_path: Path, expected: dict) -> Path:
    """CORPUS/expected/<rel>.json -> CORPUS/sessions/<rel>."""
    corpus = next(p for p in expected_path.parents if p.name == "expected").parent
    return corpus / "sessions" / expected["file"]


def session_files() -> list[Path]:
    """Every session file of the committed corpus, and of ../shared's when present."""
    found = sorted((FIXTURES / "sessions").rglob("*.jsonl"))
    if (SHARED_FIXTURES / "sessions").is_dir():
        have = {p.relative_to(FIXTURES) for p in found}
        for p in sorted((SHARED_FIXTURES / "sessions").rglob("*.jsonl")):
            if p.relative_to(SHARED_FIXTURES) not in have:
                found.append(p)
    return found


def deepest_common_ancestor(children: dict[str, list[str]], a: str, b: str) -> str | None:
    """From pi's own tree (getTree's children), independently of our tree code."""
    parent = {kid: node for node, kids in children.items() for kid in kids}
    ancestors: set[str] = set()
    node: str | None = a
    while node is not None:
        ancestors.add(node)
        node = parent.get(node)
    node = b
    while node is not None and node not in ancestors:
        node = parent.get(node)
    return node
