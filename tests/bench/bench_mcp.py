"""`pi-sessions mcp` start-up: from the process start to the answer of `tools/list` (what an
agent's client waits for before it can call a tool), against `pi-sessions --version` (the
command's own start-up: the floor) and the SDK's import alone, measured in the same run.

                                                      target: median <= 0.5 s to a listed tool
Also the first tool call after that (`tree` on a corpus session). Raw JSON-RPC lines over the
pipes, so no client's own start-up is counted:

    .venv/bin/python -m tests.bench.bench_mcp [--runs N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parents[2]
COMMAND = ROOT / ".venv" / "bin" / "pi-sessions"
PYTHON = ROOT / ".venv" / "bin" / "python"
SESSION = next((ROOT / "tests" / "fixtures" / "pi-1.6.0" / "sessions").rglob("*.jsonl"))
TARGET = 0.5


def _send(stdin: IO[bytes], message: dict[str, Any]) -> None:
    stdin.write(json.dumps(message).encode() + b"\n")
    stdin.flush()


def _answer(stdout: IO[bytes], request_id: int) -> dict[str, Any]:
    while True:
        line = stdout.readline()
        if not line:
            raise RuntimeError("the server ended before it answered")
        message: dict[str, Any] = json.loads(line)
        if message.get("id") == request_id:
            return message


def one_server() -> tuple[float, float]:
    """Seconds from the start to the listed tools, and the first call's own seconds."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [str(COMMAND), "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        _send(
            proc.stdin,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "bench", "version": "0"},
                },
            },
        )
        _answer(proc.stdout, 1)
        _send(proc.stdin, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(proc.stdin, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        tools = _answer(proc.stdout, 2)["result"]["tools"]
        listed = time.perf_counter() - t0
        assert any(t["name"] == "tree" for t in tools), tools
        t1 = time.perf_counter()
        _send(
            proc.stdin,
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {"name": "tree", "arguments": {"path": str(SESSION)}},
            },
        )
        result = _answer(proc.stdout, 3)["result"]
        assert not result.get("isError"), result
        return listed, time.perf_counter() - t1
    finally:
        proc.stdin.close()
        proc.wait()


def wall(argv: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    runs = parser.parse_args().runs
    floor, sdk, listed, first = [], [], [], []
    one_server()  # (the page cache and the .pyc files warm)
    for _ in range(runs):  # interleaved: the machine's load falls on every row alike
        floor.append(wall([str(COMMAND), "--version"]))
        sdk.append(wall([str(PYTHON), "-c", "import mcp.server.lowlevel, mcp.server.stdio"]))
        a, b = one_server()
        listed.append(a)
        first.append(b)
    base = statistics.median(floor)
    print(f"pi-sessions mcp start-up, {runs} runs (median, min-max; ratio to the floor)")
    print("| what | median | min-max | x floor |")
    print("|---|---|---|---|")
    for name, values in (
        ("`pi-sessions --version` (floor)", floor),
        ("import of the MCP SDK alone", sdk),
        ("`pi-sessions mcp` to a listed tool", listed),
        ("then the first call (`tree`)", first),
    ):
        median = statistics.median(values)
        print(
            f"| {name} | {median * 1000:.0f} ms | {min(values) * 1000:.0f}-{max(values) * 1000:.0f} ms "
            f"| {median / base:.1f} |"
        )
    median = statistics.median(listed)
    print("ok" if median <= TARGET else f"OVER target {TARGET * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
