"""pi's context size at every cursor move: what it adds to projecting, on the biggest sessions.

    .venv/bin/python -m tests.bench.bench_tokens [--no-usage]

For the largest file of the big tree (~85 MB) and a 10,000-entry session: the first computation
at the default leaf (cold: nothing remembered), then a walk of moves up the path (each move =
`project()` + `context_tokens()`), reported next to `project()` alone. `--no-usage` strips every
usage from the long session, the worst case (pi estimates the whole projection every time).
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from pi_sessions.core.projection.context import project
from pi_sessions.core.projection.tokens import context_tokens
from pi_sessions.core.session.session import Session

from .trees import ensure_tree_2k as ensure_big_tree
from .trees import largest_files, write_long_session


def _strip_usage(path: Path) -> Path:
    out = path.with_name(path.stem + "-nousage.jsonl")
    with path.open() as src, out.open("w") as dst:
        for line in src:
            value = json.loads(line)
            if isinstance(value.get("message"), dict):
                value["message"].pop("usage", None)
            dst.write(json.dumps(value) + "\n")
    return out


def measure(path: Path, moves: int = 200) -> None:
    t0 = time.perf_counter()
    session = Session.open(path)
    opened = time.perf_counter() - t0
    leaf = session.default_leaf
    assert leaf is not None
    t0 = time.perf_counter()
    projection = project(session, leaf)
    projected = time.perf_counter() - t0
    t0 = time.perf_counter()
    tokens = context_tokens(session, projection)
    first = time.perf_counter() - t0
    path_ids = [r.id for r in projection.path]
    walk = list(reversed(path_ids))[1 : moves + 1]
    with_tokens: list[float] = []
    without: list[float] = []
    for entry_id in walk:
        t0 = time.perf_counter()
        project(session, entry_id)
        without.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        context_tokens(session, project(session, entry_id))
        with_tokens.append(time.perf_counter() - t0)
    size = path.stat().st_size / 1e6
    print(
        f"{path.name[:40]} ({size:.1f} MB, {len(session.records)} entries, path {len(path_ids)}): "
        f"open {opened * 1000:.0f} ms, project {projected * 1000:.1f} ms, "
        f"first context_tokens {first * 1000:.1f} ms (= {tokens})"
    )
    if walk:
        print(
            f"  {len(walk)} moves up the path: project+context_tokens median "
            f"{statistics.median(with_tokens) * 1000:.2f} ms (max {max(with_tokens) * 1000:.1f}), "
            f"project alone {statistics.median(without) * 1000:.2f} ms"
        )


def main() -> None:
    tree = ensure_big_tree()
    [largest] = largest_files(tree, 1)
    measure(largest)
    with tempfile.TemporaryDirectory() as scratch:
        long_path = write_long_session(Path(scratch) / "long")
        measure(long_path)
        if "--no-usage" in sys.argv:
            measure(_strip_usage(long_path))


if __name__ == "__main__":
    main()
