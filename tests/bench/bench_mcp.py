"""`pi-sessions mcp` start-up: from the process start to the `tools/list` answer received by
the SDK's own client (what an agent's client waits for before it can call a tool), against
floors measured in the same run: `python -c pass`, the SDK's import as `import
mcp.server.lowlevel` does it, and the part of the SDK the server imports (app/subcommands/mcp_sdk.py).

                                                      target: median <= 0.5 s to a listed tool
Also the first tool call after that (`tree` on a corpus session). The client is imported once,
before any timing; each run starts a new server through it. CPU seconds (user + system, the
child's) next to each wall time: the load of a shared machine stretches wall time, far less CPU.

    .venv/bin/python -m tests.bench.bench_mcp [--runs N]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parents[2]
COMMAND = ROOT / ".venv" / "bin" / "pi-sessions"
PYTHON = ROOT / ".venv" / "bin" / "python"
SESSION = next((ROOT / "tests" / "fixtures" / "pi-1.6.0" / "sessions").rglob("*.jsonl"))
TARGET = 0.5
SDK = "`python -c 'import mcp.server.lowlevel'` (the SDK as its package imports it)"
# Each floor ends with os._exit, as the server does (app/cli.py): the interpreter's teardown of
# the SDK's ~500 pydantic classes is not part of a start-up.
FLOORS = {
    "`python -c pass`": "pass",
    SDK: "import mcp.server.lowlevel",
    "the SDK's part the server imports (`mcp_sdk.load()`)": (
        "from pi_sessions.app.subcommands.mcp_sdk import load; load()"
    ),
}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_server(command: Path = COMMAND) -> tuple[float, float, float]:
    """Seconds from the start to the listed tools, the first call's own seconds, and the
    server process's CPU seconds (its whole run: start, list, one call, shutdown)."""
    cpu0 = _children_cpu()
    times: list[float] = []

    async def session_run() -> None:
        params = StdioServerParameters(command=str(command), args=["mcp"], env=dict(os.environ))
        t0 = time.perf_counter()
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            times.append(time.perf_counter() - t0)
            assert any(t.name == "tree" for t in tools), tools
            t1 = time.perf_counter()
            result = await session.call_tool("tree", {"path": str(SESSION)})
            assert not result.is_error, result
            times.append(time.perf_counter() - t1)

    anyio.run(session_run)
    return times[0], times[1], _children_cpu() - cpu0


def wall(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run."""
    cpu0 = _children_cpu()
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0, _children_cpu() - cpu0


def table_runs(repeat: int) -> tuple[list[float], list[float], list[float]]:
    """For the benchmark table's row (tests/bench/table.py): seconds to a listed tool, the
    server's CPU seconds, and the SDK's import as its package does it (ending with os._exit),
    interleaved."""
    one_server()  # (warm)
    listed, cpu, sdk = [], [], []
    for _ in range(max(repeat, 3)):
        sdk.append(wall([str(PYTHON), "-c", f"{FLOORS[SDK]}\nimport os; os._exit(0)"])[0])
        a, _, c = one_server()
        listed.append(a)
        cpu.append(c)
    return listed, cpu, sdk


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--also", type=Path, help="another pi-sessions command to time (e.g. main's)")
    options = parser.parse_args()
    runs, also = options.runs, options.also
    rows: dict[str, list[tuple[float, float]]] = {name: [] for name in FLOORS}
    rows["`pi-sessions --version`"] = []
    listed, first = "`pi-sessions mcp` to a listed tool (CPU: its whole run)", "then the first call (`tree`)"
    rows[listed], rows[first] = [], []
    other = f"`{also} mcp` to a listed tool" if also else ""
    if also:
        rows[other] = []
    one_server()  # (the page cache and the .pyc files warm)
    before = os.getloadavg()
    for _ in range(runs):  # interleaved: the machine's load falls on every row alike
        for name, code in FLOORS.items():
            rows[name].append(wall([str(PYTHON), "-c", f"{code}\nimport os; os._exit(0)"]))
        rows["`pi-sessions --version`"].append(wall([str(COMMAND), "--version"]))
        a, b, cpu = one_server()
        rows[listed].append((a, cpu))
        rows[first].append((b, 0.0))
        if also:
            a, _, cpu = one_server(also)
            rows[other].append((a, cpu))
    after = os.getloadavg()
    sdk = statistics.median(w for w, _ in rows[SDK])
    print(
        f"pi-sessions mcp start-up, {runs} runs; load average (1 min) {before[0]:.1f} before, {after[0]:.1f} after"
    )
    print("| what | median wall | min-max | median CPU | x SDK import |")
    print("|---|---|---|---|---|")
    for name, values in rows.items():
        walls = [w for w, _ in values]
        median = statistics.median(walls)
        cpu = statistics.median(c for _, c in values)
        print(
            f"| {name} | {median * 1000:.0f} ms | {min(walls) * 1000:.0f}-{max(walls) * 1000:.0f} ms "
            f"| {cpu * 1000:.0f} ms | {median / sdk:.2f} |"
        )
    median = statistics.median(w for w, _ in rows[listed])
    print("ok" if median <= TARGET else f"OVER target {TARGET * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
