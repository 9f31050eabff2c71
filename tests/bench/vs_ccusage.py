"""`pi-sessions costs` next to `ccusage pi daily --json` on the corpus, every difference explained.

    .venv/bin/python -m tests.bench.vs_ccusage --ccusage /tmp/cc/node_modules/.bin/ccusage [ROOT ...]

ROOTs (default: the committed corpus and ../shared's, when present) are copied into one
sessions folder; ccusage reads it with `--pi-path` (it also honours PI_AGENT_DIR, whose
`sessions/` it reads), offline, in UTC. Per day, the difference is split into what each one
counts that the other does not: the copies a fork or clone made (ccusage counts them again),
the usage of entries that are not assistant replies (pi's totals count them, ccusage does not),
and replies whose line was written on the next day (ccusage dates a reply by its line, we by
the reply's own time). Whatever is left unexplained is printed, and makes the exit status 1.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from pi_sessions.app.subcommands.costs import store_replies
from pi_sessions.core.projection.cost_report import cost_report, period_key, unique_replies
from pi_sessions.core.projection.paid_replies import PaidReply

from ..helpers.corpus import FIXTURES, SHARED_FIXTURES

FIGURES = ("input", "output", "cache_read", "cache_write", "cost")
CCUSAGE_NAMES = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheCreationTokens", "totalCost")

Figures = dict[str, list[float]]  # day -> one number per FIGURES


def _add(into: Figures, day: str, reply: PaidReply, sign: int = 1) -> None:
    row = into.setdefault(day, [0.0] * len(FIGURES))
    for i, name in enumerate(FIGURES):
        row[i] += sign * getattr(reply, name)


def _ccusage(binary: str, folder: Path) -> Figures:
    env = {**os.environ, "TZ": "UTC"}
    command = [binary, "pi", "daily", "--json", "--offline", "--timezone", "UTC", "--pi-path", str(folder)]
    out = subprocess.run(command, capture_output=True, text=True, env=env, check=True).stdout
    return {d["date"]: [float(d[k]) for k in CCUSAGE_NAMES] for d in json.loads(out)["daily"]}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ccusage", required=True, help="the ccusage command (npm ccusage@20.0.24)")
    parser.add_argument("roots", nargs="*", type=Path)
    ns = parser.parse_args()
    roots = ns.roots or [p for p in (FIXTURES / "sessions", SHARED_FIXTURES / "sessions") if p.is_dir()]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "sessions"
        for root in roots:
            shutil.copytree(root, folder, dirs_exist_ok=True)
        theirs = _ccusage(ns.ccusage, folder)
        replies = store_replies(str(folder))
    kept, copies = unique_replies(replies)
    ours: Figures = {}
    for group in cost_report(replies, "day").groups:
        ours[group.key] = [float(getattr(group, name)) for name in FIGURES]
    # What ccusage counts that we do not, and the other way round, each on ccusage's day.
    copied: Figures = {}
    not_replies: Figures = {}
    moved: Figures = {}
    kept_ids = {id(r) for r in kept}
    counts: dict[str, int] = defaultdict(int)
    for reply in replies:
        made, written = period_key(reply.time_ms, "day"), period_key(reply.written_ms, "day")
        if id(reply) not in kept_ids:
            if reply.kind == "assistant":
                _add(copied, written, reply)
                counts["copied"] += 1
        elif reply.kind != "assistant":
            _add(not_replies, made, reply, -1)
            counts["not_replies"] += 1
        elif made != written:
            _add(moved, written, reply)
            _add(moved, made, reply, -1)
            counts["moved"] += 1
    print(f"{len(replies)} paid lines, {len(kept)} paid replies, {copies} copies; explained: {dict(counts)}")
    tables = (theirs, ours, copied, not_replies, moved)
    names = ("ccusage", "ours", "copies", "not replies", "moved")
    print("tokens = input + output + cache read + cache write; ccusage = ours + copies + not replies + moved")
    print(
        f"{'day':10}  "
        + "  ".join(f"{n + ' tokens':>18}" for n in names)
        + "  "
        + "  ".join(f"{n:>11}" for n in names)
    )
    unexplained = 0
    sums = [[0.0] * len(FIGURES) for _ in tables]
    for day in sorted(set(theirs) | set(ours)):
        rows = [table.get(day, [0.0] * len(FIGURES)) for table in tables]
        for total, row in zip(sums, rows, strict=True):
            for i, value in enumerate(row):
                total[i] += value
        left = [rows[0][i] - sum(r[i] for r in rows[1:]) for i in range(len(FIGURES))]
        note = "" if all(abs(v) < 1e-6 for v in left) else f"  UNEXPLAINED {left}"
        unexplained += bool(note)
        if all(abs(rows[0][i] - rows[1][i]) < 1e-9 for i in range(len(FIGURES))):
            continue  # the same figures
        print(f"{day:10}  " + _cells(rows) + note)
    print(f"{'total':10}  " + _cells(sums))
    for i, name in enumerate(FIGURES):
        print(
            f"{name:11} "
            + "  ".join(
                f"{n} {sums[k][i]:,.6f}" if name == "cost" else f"{n} {sums[k][i]:,.0f}"
                for k, n in enumerate(names)
            )
        )
    return 1 if unexplained else 0


def _cells(rows: list[list[float]]) -> str:
    tokens = [f"{sum(row[:4]):18,.0f}" for row in rows]
    costs = [f"{row[4]:11.6f}" for row in rows]
    return "  ".join(tokens) + "  " + "  ".join(costs)


if __name__ == "__main__":
    sys.exit(main())
