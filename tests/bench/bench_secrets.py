"""The secrets audit over the 2,000-session tree, against reading the same bytes (page cache warm):

floor:  reading every file's bytes (what any audit must do at least)
cold:   the audit of every file (no audit cache): raw-byte anchors (one Aho-Corasick pass),
        candidate lines decoded; the files shared with a second process
cold-1: the same in one process
general: cold-1 with the general anchors (14 regex passes, as without ahocorasick_rs)
warm:   the same with the audit's cache filled (unchanged files are not read)  target <= 2 s
planted: a copy of 40 of the tree's files, one with the hand-made session's secrets each:
         every one found

  .venv/bin/python -m tests.bench.bench_secrets [--runs N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from .trees import ensure_tree_2k, session_files

GOAL_WARM = 2.0


def _read_all(paths: list[str]) -> int:
    total = 0
    for p in paths:
        with open(p, "rb") as f:
            total += len(f.read())
    return total


def _audit(paths: list[str], cache: Path | None, workers: int | None = None) -> int:
    from pi_sessions.core.audit.cache import audit_with_cache

    return sum(len(found) for found in audit_with_cache(paths, None, cache, workers))


def _audit_general(paths: list[str]) -> int:
    from pi_sessions.core.audit import anchors

    fast, anchors._FAST = anchors._FAST, None
    try:
        return _audit(paths, None, 1)
    finally:
        anchors._FAST = fast


def _best(runs: int, fn: object) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    tree = ensure_tree_2k()
    paths = [str(p) for p in session_files(tree)]
    size = _read_all(paths)  # and warms the page cache
    floor, floor_med = _best(args.runs, lambda: _read_all(paths))
    cold, cold_med = _best(max(1, args.runs - 1), lambda: _audit(paths, None))
    one, one_med = _best(max(1, args.runs - 1), lambda: _audit(paths, None, 1))
    general, general_med = _best(1, lambda: _audit_general(paths))
    scratch = Path(tempfile.mkdtemp(prefix="pi-sessions-bench-secrets-"))
    try:
        cache = scratch / "audit.json"
        _audit(paths, cache)
        warm, warm_med = _best(args.runs, lambda: _audit(paths, cache))
        planted_found, planted_want = _planted(paths, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"{len(paths)} sessions, {size / 1e6:.0f} MB")
    print(f"{'':8}{'best':>10}{'median':>10}{'x floor':>10}")
    rows = (
        ("floor", floor, floor_med),
        ("cold", cold, cold_med),
        ("cold-1", one, one_med),
        ("general", general, general_med),
        ("warm", warm, warm_med),
    )
    print(f"load average {os.getloadavg()[0]:.1f} (at the end; {load:.1f} at the start)")
    for name, best, med in rows:
        print(f"{name:8}{best:9.2f}s{med:9.2f}s{best / floor:9.1f}x")
    print(f"cold: {size / 1e6 / cold:.0f} MB/s of session files; floor {size / 1e6 / floor:.0f} MB/s")
    verdict = "ok" if warm <= GOAL_WARM else "OVER"
    print(f"warm audit {warm:.2f} s against the goal {GOAL_WARM:.1f} s: {verdict}")
    print(f"planted: {planted_found} of {planted_want} secrets found")


def _planted(paths: list[str], scratch: Path) -> tuple[int, int]:
    from tests.helpers.secrets import EXPECTED, write_secret_session

    folder = scratch / "planted"
    folder.mkdir()
    for i, p in enumerate(paths[:: max(1, len(paths) // 40)][:40]):
        shutil.copy(p, folder / f"{i:02d}-{Path(p).name}")
    sub = scratch / "planted" / "secrets"
    sub.mkdir()
    write_secret_session(sub)
    files = sorted(str(p) for p in folder.rglob("*.jsonl"))
    return _audit(files, None), len(EXPECTED)


if __name__ == "__main__":
    main()
