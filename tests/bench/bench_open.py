"""Open the largest session of the big tree and project its default leaf, against pi.

Prints our time and pi's (SessionManager.open + buildSessionContext, from the oracle's
bench.mjs, measured in the same run), the ratio (target: at most 0.5x), and our memory:
peak growth while opening (target: at most 1.2x the file size) and what stays afterwards
(target: at most 0.5x). Also compares whole commands: `pi-sessions context FILE --json`
against `node pi-cli.mjs context FILE`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from .common import command_time, median_time, pi_bench, pi_cli, pi_sessions_command, ratio_line
from .trees import ensure_tree_2k as ensure_big_tree
from .trees import largest_files

MEMORY_PROBE = r"""
import gc, json, sys
def status():
    out = {}
    for line in open('/proc/self/status'):
        key, _, value = line.partition(':')
        if key in ('VmRSS', 'VmHWM'):
            out[key] = int(value.split()[0]) * 1024
    return out
from pi_sessions.core.session.session import Session
from pi_sessions.core.projection.context import project
gc.collect()
open('/proc/self/clear_refs', 'w').write('5')  # reset the peak (VmHWM)
base = status()['VmRSS']
session = Session.open(sys.argv[1])
projection = project(session, session.default_leaf)
peak = status()['VmHWM']
gc.collect()
after = status()['VmRSS']
print(json.dumps({'peak_growth': peak - base, 'retained': after - base, 'messages': projection.message_count}))
"""


def main() -> None:
    from pi_sessions.core.projection.context import project
    from pi_sessions.core.session.session import Session

    tree = ensure_big_tree()
    pi = pi_bench(tree)
    files = largest_files(tree)
    pi_by_name = {item["file"].split("/")[-1]: item for item in (pi or {}).get("largest", [])}
    print(f"tree: {tree}  ({'pi 1.6.0 timings from bench.mjs' if pi else 'pi not installed'})")
    for path in files:
        size = path.stat().st_size

        def open_and_project(path: Path = path) -> None:
            session = Session.open(path)
            project(session, session.default_leaf or "")

        ours = median_time(open_and_project, repeat=7)
        theirs = pi_by_name.get(path.name)
        pi_seconds = (theirs["open_ms"] + theirs["context_ms"]) / 1000 if theirs else None
        print(
            ratio_line(
                f"open+project {path.name[:24]} ({size / 2**20:.1f} MiB)", ours, pi_seconds, target=0.5
            )
        )
        probe = subprocess.run(
            [sys.executable, "-c", MEMORY_PROBE, str(path)], capture_output=True, text=True, check=True
        )
        mem = json.loads(probe.stdout)
        print(
            f"  memory: peak growth {mem['peak_growth'] / 2**20:.1f} MiB = {mem['peak_growth'] / size:.2f}x file "
            f"(target <= 1.2x), retained {mem['retained'] / 2**20:.1f} MiB = {mem['retained'] / size:.2f}x (target <= 0.5x)"
        )

    largest = files[0]
    node = pi_cli("context", str(largest))
    ours_cmd = command_time([*pi_sessions_command(), "context", str(largest), "--json"])
    pi_cmd = command_time(node) if node else None
    print(ratio_line("whole command `context FILE --json` vs `pi-cli.mjs context FILE`", ours_cmd, pi_cmd))


if __name__ == "__main__":
    main()
