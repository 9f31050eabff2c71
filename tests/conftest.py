from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures" / "pi-1.6.0"
# Resolved: in a worktree, ../shared may be a symlink, and forks name their source by real path.
SHARED_FIXTURES = (Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "pi-1.6.0").resolve()


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


@pytest.fixture
def corpus_dir() -> Path:
    return FIXTURES


@pytest.fixture(autouse=True)
def _no_demo_copies_left() -> Iterator[None]:
    """Tests that open the demo (the `d` key) leave no temporary copy behind."""
    yield
    from pi_sessions.app.demo import remove_demos

    remove_demos()
