"""Issue 14's table: each figure a user sees, ours against pi or a floor measured in the same run.

    .venv/bin/python -m tests.bench.table [--quick] [--only ROW ...] [--list]

Builds its trees once under $PI_BENCH_DIR (trees.py), finds pi through common.find_oracle()
(without pi the pi columns say n/a and the floors still work), runs every row, and prints one
Markdown table with medians, then the spread of each row (min-max over the runs) and notes.

Whole-process rows time the installed `pi-sessions` command against pi's own CLI wrapper
(`pi-cli.mjs` in the oracle folder) with wall time and peak RSS from wait4. Browser rows run the
real command line in a probe process with Textual's headless driver (probe.py) and time the
painted frames (screen.py): from the process start, the key or the write to the first frame
that shows the result. `--quick` uses 10,000 sessions where the table says 30,000, skips the
1 GB session and repeats less: a sanity check in a few minutes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .common import (
    SCRATCH,
    Run,
    Stats,
    find_oracle,
    isolated_env,
    pi_bench,
    pi_cli,
    pi_sessions_command,
    pi_version,
    run_probe,
    run_process,
    stats,
)
from .trees import (
    disk_use,
    ensure_branchy_session,
    ensure_huge_session,
    ensure_long_session,
    ensure_tree,
    largest_files,
    long_session_leaf,
    made_by,
    session_files,
    warm_page_cache,
)

MiB = 2**20
LONG_ENTRIES = 100_000
SEARCH_QUERY = "changelog"  # typed letter by letter: first letters match most sessions
BROWSER_NEEDS = {"sidebar": 5, "tree": 3, "context": 5}  # lines of text: "sessions listed, a context shown"
OPEN_NEEDS = {"tree": 5, "context": 5}


def seconds(value: float) -> str:
    if value < 0.01:
        return f"{value * 1000:.1f} ms"
    if value < 1:
        return f"{value * 1000:.0f} ms"
    return f"{value:.2f} s"


def mib(value: float) -> str:
    return f"{value / MiB:.0f} MiB"


def spread(values: Stats, fmt: Callable[[float], str]) -> str:
    return f"{fmt(values.low)}-{fmt(values.high)} (n={len(values)})"


@dataclass
class Row:
    figure: str
    ours: str = ""
    reference: str = ""
    ratio: str = ""
    goal: str = ""
    meets: bool | None = None
    notes: list[str] = field(default_factory=list)
    key: str = ""  # set by main: the row's name on the command line


@dataclass(frozen=True)
class Timed:
    times: Stats
    rss: Stats


@dataclass
class Settings:
    quick: bool
    repeat: int  # whole processes and browser starts, per side
    big: int  # the size the table calls 30k
    search_passes: int
    moves: int  # Up presses, then as many Down presses
    appends: int


class Table:
    def __init__(self, settings: Settings) -> None:
        self.s = settings
        self.oracle = find_oracle()
        self.ours = pi_sessions_command()
        self.run_dir = SCRATCH / "run"
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self._pi_bench: dict[Path, dict | None] = {}
        self._warm_ui: set[Path] = set()
        self._warm_files: set[Path] = set()
        self._hello_warm = False

    # ------------------------------------------------------------------ helpers
    def env(self, name: str) -> dict[str, str]:
        return isolated_env(self.run_dir / f"cache-{name}")

    def warm(self, files: list[Path]) -> None:
        todo = [f for f in files if f not in self._warm_files]
        warm_page_cache(todo)
        self._warm_files.update(todo)

    def side_by_side(
        self,
        ours: list[str],
        theirs: list[str] | None,
        env: dict[str, str],
        repeat: int,
        before: Callable[[], None] | None = None,
    ) -> tuple[Timed, Timed | None]:
        """Wall times and peak RSS of `repeat` runs of each command, taking turns (so a change
        of load hits both), after one untimed run of each; `before` runs before each of ours."""
        runs: dict[int, list[Run]] = {0: [], 1: []}
        for i in range(repeat + 1):
            for side, cmd in enumerate((ours, theirs)):
                if cmd is None:
                    continue
                if side == 0 and before is not None:
                    before()
                run = run_process(cmd, env=env)
                if i:
                    runs[side].append(run)

        def timed(side: int) -> Timed:
            return Timed(stats([r.seconds for r in runs[side]]), stats([r.max_rss for r in runs[side]]))

        return timed(0), (timed(1) if theirs is not None else None)

    def pi_in_process(self, tree: Path) -> dict | None:
        """bench.mjs on a tree: pi's listAll and open + context of its largest files, in-process."""
        if tree not in self._pi_bench:
            self._pi_bench[tree] = pi_bench(tree) if self.oracle else None
        return self._pi_bench[tree]

    def pi_open(self, tree: Path, path: Path) -> float | None:
        report = self.pi_in_process(tree)
        for item in (report or {}).get("largest", []):
            if item["file"].endswith(path.name):
                return (item["open_ms"] + item["context_ms"]) / 1000
        return None

    def ui_env(self, tree: Path) -> dict[str, str]:
        """The browser's environment for a tree, its index cache warm (one untimed start)."""
        env = self.env(f"ui-{tree.name}")
        if tree not in self._warm_ui:
            self.warm(session_files(tree))
            run_probe("screen", {"need": BROWSER_NEEDS}, [str(tree / "sessions")], env)
            self._warm_ui.add(tree)
        return env

    def hello_runs(self) -> dict:
        if not self._hello_warm:  # its first run compiles Textual's bytecode into our prefix
            run_probe("hello", {}, [], self.env("hello"))
            self._hello_warm = True
        return run_probe("hello", {}, [], self.env("hello"))

    # ------------------------------------------------------------------ whole-process rows
    def context_row(self, label: str, path: Path, goal_time: float, goal_memory: float | None) -> Row:
        size = path.stat().st_size
        repeat = self.s.repeat if size < 500e6 else min(self.s.repeat, 3)
        row = Row(f"`context --json`, {label} ({size / 1e6:.0f} MB), whole process")
        row.goal = f"<= {goal_time:g}x pi" + (f", <= {goal_memory:g}x pi's memory" if goal_memory else "")
        self.warm([path])
        ours, pi = self.side_by_side(
            [*self.ours, "context", str(path), "--json"],
            pi_cli("context", str(path)),
            self.env("context"),
            repeat,
        )
        self._fill(row, ours, pi, "pi-cli.mjs context: open + buildSessionProjection + JSON, on a copy")
        if pi is not None:
            time_ratio, memory_ratio = ours.times.median / pi.times.median, ours.rss.median / pi.rss.median
            row.ratio = f"{time_ratio:.2f}x, memory {memory_ratio:.2f}x"
            row.meets = time_ratio <= goal_time and (goal_memory is None or memory_ratio <= goal_memory)
        return row

    def list_row(self, count: int, warm_cache: bool) -> Row:
        tree = ensure_tree(count)
        self.warm(session_files(tree))
        row = Row(
            f"`list --json`, {count:,} sessions, {'warm' if warm_cache else 'cold'} cache, whole process"
        )
        goal = 0.03 if warm_cache else 0.15
        row.goal = f"<= {goal:g}x pi"
        cache = self.run_dir / f"cache-list-{tree.name}"

        def empty_cache() -> None:
            shutil.rmtree(cache, ignore_errors=True)

        ours, pi = self.side_by_side(
            [*self.ours, "list", "--json", "--session-dir", str(tree / "sessions")],
            pi_cli("list", str(tree / "sessions")),
            isolated_env(cache),
            self.s.repeat if count <= 10000 else min(self.s.repeat, 3),  # pi takes ~30 s at 30k
            before=None if warm_cache else empty_cache,
        )
        how = "pi-cli.mjs list: listAll + JSON"
        if count == 2000 and (report := self.pi_in_process(tree)):
            how += f"; listAll alone, in-process (bench.mjs): {seconds(report['list_all_ms'] / 1000)}"
        self._fill(row, ours, pi, how)
        if not warm_cache:
            row.notes.append(
                "cold: no index cache (deleted before each run of ours); files in the page cache"
            )
        if pi is not None:
            ratio = ours.times.median / pi.times.median
            row.ratio = f"{ratio:.3f}x"
            row.meets = ratio <= goal
        return row

    @staticmethod
    def _fill(row: Row, ours: Timed, pi: Timed | None, how: str) -> None:
        row.ours = f"{seconds(ours.times.median)}, {mib(ours.rss.median)}"
        row.notes.append(f"ours {spread(ours.times, seconds)}, {spread(ours.rss, mib)}")
        if pi is None:
            row.reference, row.ratio = "n/a (no pi)", "n/a"
            return
        row.reference = f"{seconds(pi.times.median)}, {mib(pi.rss.median)}"
        row.notes.append(f"pi {spread(pi.times, seconds)}, {spread(pi.rss, mib)} ({how})")

    # ------------------------------------------------------------------ browser rows
    def screen_row(self, count: int, goal_ratio: float, goal_memory: int | None) -> Row:
        tree = ensure_tree(count)
        row = Row(f"browser, first useful screen, warm, {count:,} sessions")
        env = self.ui_env(tree)
        ours, hello = [], []
        for _ in range(self.s.repeat):
            hello.append(self.hello_runs())
            ours.append(run_probe("screen", {"need": BROWSER_NEEDS}, [str(tree / "sessions")], env))
        shown = stats([r["shown_at"] for r in ours])
        peak = stats([r["rss_peak"] for r in ours])
        at_shown = stats([r["rss_shown"] for r in ours])
        floor = stats([r["shown_at"] for r in hello])
        floor_rss = stats([r["rss_peak"] for r in hello])
        ratio = shown.median / floor.median
        row.ours = f"{seconds(shown.median)}, {mib(peak.median)} peak"
        row.reference = f"hello world {seconds(floor.median)}, {mib(floor_rss.median)}"
        row.ratio = f"{ratio:.2f}x hello"
        row.goal = f"<= {goal_ratio:g}x hello" + (f", <= {goal_memory} MiB" if goal_memory else "")
        row.meets = ratio <= goal_ratio and (goal_memory is None or peak.median <= goal_memory * MiB)
        idle = stats([r["idle_at"] for r in ours])
        row.notes += [
            f"ours {spread(shown, seconds)}; RSS at that frame {mib(at_shown.median)}, peak until idle "
            f"{spread(peak, mib)} (idle, i.e. search index built, at {seconds(idle.median)})",
            f"hello world {spread(floor, seconds)}",
        ]
        if not all(r.get("mirror_ok") for r in ours):
            row.notes.append("WARNING: the mirrored screen differed from the app's own full render")
        return row

    def key_floor(self) -> Stats:
        result = run_probe("hello-keys", {"text": "abcdefghijklmnopqrst"}, [], self.env("hello"))
        return stats(result["times"])

    def search_row(self, count: int, goal: float) -> Row:
        tree = ensure_tree(count)
        row = Row(f"search, per keystroke, {count:,} sessions (key -> sidebar shows the result)")
        env = self.ui_env(tree)
        params = {"query": SEARCH_QUERY, "passes": self.s.search_passes}
        result = run_probe("search", params, [str(tree / "sessions")], env)
        keys = [k for one in result["passes"] for k in one]
        shown = stats([k["shown"] for k in keys])
        echo = stats([k["echo"] for k in keys])
        floor = self.key_floor()
        row.ours = f"{seconds(shown.median)} median, max {seconds(shown.high)}"
        row.reference = f"floor {seconds(floor.median)} (hello-world Input)"
        row.ratio = f"{shown.median / floor.median:.1f}x floor"
        row.goal = f"<= {seconds(goal)} median; every letter echoed <= 50 ms"
        row.meets = shown.median <= goal and echo.high <= 0.05
        first = ", ".join(f"{k['typed']!r} {seconds(k['shown'])}" for k in result["passes"][0][:3])
        row.notes += [
            f"{len(keys)} keys ({self.s.search_passes} x {SEARCH_QUERY!r}), {spread(shown, seconds)}; "
            f"first letters of pass 1: {first}",
            f"letter echoed in the search field: median {seconds(echo.median)}, max {seconds(echo.high)}",
        ]
        return row

    def live_row(self, branchy: bool = False) -> Row:
        source = ensure_branchy_session(LONG_ENTRIES) if branchy else ensure_long_session(LONG_ENTRIES)
        shape = "branchy (a fork every 60 entries)" if branchy else "linear"
        row = Row(
            f"live append to screen, {LONG_ENTRIES:,}-entry {shape} session (write -> tree and context show it)"
        )
        folder = self.run_dir / "live" / "sessions" / source.parent.name
        shutil.rmtree(folder.parent, ignore_errors=True)
        folder.mkdir(parents=True)
        path = folder / source.name
        shutil.copyfile(source, path)
        params = {"path": str(path), "leaf": long_session_leaf(LONG_ENTRIES), "count": self.s.appends}
        result = run_probe("live", params, [str(path)], self.env("ui-live"))
        times = stats(result["times"])
        watched = self.run_dir / "hello-watch.jsonl"
        watched.write_text("")
        floor = stats(
            run_probe("hello-watch", {"path": str(watched), "count": 10}, [], self.env("hello"))["times"]
        )
        row.ours = f"{seconds(times.median)} median"
        row.reference = f"floor {seconds(floor.median)} (hello-world + watchfiles)"
        row.ratio = f"{times.median / floor.median:.1f}x floor"
        row.goal = "<= 40 ms median"
        row.meets = times.median <= 0.04
        row.notes += [
            f"{len(times)} appends (a user message each, the tip selected, the search index built): "
            f"{spread(times, seconds)}",
            f"floor {spread(floor, seconds)}",
        ]
        return row

    def moves_row(self, branchy: bool = False) -> Row:
        path = ensure_branchy_session(LONG_ENTRIES) if branchy else ensure_long_session(LONG_ENTRIES)
        shape = "branchy" if branchy else "linear"
        row = Row(f"Up/Down at the end of a {LONG_ENTRIES:,}-entry {shape} session (key -> context pane)")
        self.warm([path])
        env = self.env("ui-long")
        result = run_probe("moves", {"count": self.s.moves}, [str(path)], env)
        times = stats(result["times"])
        floor = self.key_floor()
        row.ours = f"{seconds(times.median)} median"
        row.reference = f"floor {seconds(floor.median)} (hello-world Input)"
        row.ratio = f"{times.median / floor.median:.1f}x floor"
        row.goal = "<= 16 ms"
        row.meets = times.median <= 0.016
        row.notes.append(f"{self.s.moves} x up then {self.s.moves} x down: {spread(times, seconds)}")
        return row

    def open_row(self, branchy: bool = False) -> Row:
        path = ensure_branchy_session(LONG_ENTRIES) if branchy else ensure_long_session(LONG_ENTRIES)
        shape = "branchy" if branchy else "linear"
        row = Row(
            f"opening a {LONG_ENTRIES:,}-entry {shape} session in the browser "
            "(`pi-sessions FILE`, start -> tree and context)"
        )
        self.warm([path])
        env = self.env("ui-long")
        run_probe("screen", {"need": OPEN_NEEDS}, [str(path)], env)  # the index cache warm
        ours, hello = [], []
        for _ in range(self.s.repeat):
            hello.append(self.hello_runs())
            ours.append(run_probe("screen", {"need": OPEN_NEEDS}, [str(path)], env))
        shown = stats([r["shown_at"] for r in ours])
        peak = stats([r["rss_peak"] for r in ours])
        floor = stats([r["shown_at"] for r in hello])
        pi_open = self.pi_open(path.parents[2], path)
        row.ours = f"{seconds(shown.median)}, {mib(peak.median)} peak"
        row.reference = f"hello world {seconds(floor.median)}" + (
            f"; pi open+context {seconds(pi_open)}" if pi_open is not None else ""
        )
        row.ratio = f"{shown.median / floor.median:.1f}x hello" + (
            f", {shown.median / pi_open:.1f}x pi" if pi_open else ""
        )
        row.goal = "<= 1 s, <= 120 MiB"
        row.meets = shown.median <= 1.0 and peak.median <= 120 * MiB
        row.notes += [
            f"ours {spread(shown, seconds)}, peak RSS until idle {spread(peak, mib)}",
            "pi: SessionManager.open + buildSessionContext in-process (bench.mjs), no start-up or screen",
        ]
        return row


# key -> how to measure it (the table's order)
ROWS: dict[str, Callable[[Table], Row]] = {
    "context-100k": lambda t: t.context_row(
        f"{LONG_ENTRIES:,}-entry linear session", ensure_long_session(LONG_ENTRIES), 0.5, 0.5
    ),
    "context-100k-branchy": lambda t: t.context_row(
        f"{LONG_ENTRIES:,}-entry branchy session", ensure_branchy_session(LONG_ENTRIES), 0.5, 0.5
    ),
    "context-85mb": lambda t: t.context_row(
        "the largest session of the 2k tree", largest_files(ensure_tree(2000), 1)[0], 0.3, None
    ),
    "context-1gb": lambda t: t.context_row("1 GB session", ensure_huge_session(1024), 1.0, 1.0),
    "list-warm": lambda t: t.list_row(2000, warm_cache=True),
    "list-cold-2k": lambda t: t.list_row(2000, warm_cache=False),
    "list-cold-10k": lambda t: t.list_row(10000, warm_cache=False),
    "list-cold-30k": lambda t: t.list_row(t.s.big, warm_cache=False),
    "screen-2k": lambda t: t.screen_row(2000, 2, None),
    "screen-30k": lambda t: t.screen_row(t.s.big, 3, 150),
    "search-2k": lambda t: t.search_row(2000, 0.030),
    "search-30k": lambda t: t.search_row(t.s.big, 0.060),
    "live": lambda t: t.live_row(),
    "live-branchy": lambda t: t.live_row(branchy=True),
    "updown": lambda t: t.moves_row(),
    "updown-branchy": lambda t: t.moves_row(branchy=True),
    "open-100k": lambda t: t.open_row(),
    "open-100k-branchy": lambda t: t.open_row(branchy=True),
    "mcp-start": lambda t: _mcp_row(t),
}


def _mcp_row(table: Table) -> Row:
    import statistics

    from .bench_mcp import TARGET, table_runs

    listed, cpu, sdk = table_runs(table.s.repeat)
    ours, floor = statistics.median(listed), statistics.median(sdk)
    return Row(
        "`pi-sessions mcp` start-up to a listed tool (SDK client: start -> `tools/list` answer)",
        ours=f"{seconds(ours)} median, {seconds(statistics.median(cpu))} CPU",
        reference=f"`import mcp.server.lowlevel` {seconds(floor)}",
        ratio=f"{ours / floor:.2f}x the SDK's import",
        goal="<= 0.5 s",
        meets=ours <= TARGET,
        notes=[
            f"{len(listed)} runs, {min(listed):.2f}-{max(listed):.2f} s; the SDK's import is most of it "
            "(docs/AGENTS.md, Start-up; its floors: python -m tests.bench.bench_mcp)"
        ],
    )


def render(rows: list[Row]) -> str:
    lines = [
        "| # | figure | ours | pi / floor (same run) | ratio | goal | meets |",
        "|---|---|---|---|---|---|---|",
    ]
    for number, row in enumerate(rows, 1):
        meets = "n/a" if row.meets is None else ("yes" if row.meets else "NO")
        lines.append(
            f"| {number} | {row.figure} | {row.ours} | {row.reference} | {row.ratio} | {row.goal} | {meets} |"
        )
    lines.append("")
    for number, row in enumerate(rows, 1):
        for note in row.notes:
            lines.append(f"{number}. `{row.key}`: {note}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.table", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller and fewer runs: a sanity check")
    parser.add_argument("--only", nargs="+", metavar="ROW", help="rows whose key starts with ROW")
    parser.add_argument("--list", action="store_true", help="print the row keys")
    ns = parser.parse_args(argv)
    if ns.list:
        print("\n".join(ROWS))
        return 0
    settings = (
        Settings(quick=True, repeat=2, big=10000, search_passes=1, moves=3, appends=5)
        if ns.quick
        else Settings(quick=False, repeat=5, big=30000, search_passes=3, moves=10, appends=20)
    )
    wanted = [k for k in ROWS if not ns.only or any(k.startswith(p) for p in ns.only)]
    if not wanted:
        parser.error(f"no row matches {ns.only}; rows: {', '.join(ROWS)}")
    if ns.quick and not ns.only:
        wanted.remove("context-1gb")
        wanted.remove("list-cold-30k")  # at 10,000 sessions in a quick run: the row above
    table = Table(settings)
    started = time.monotonic()
    load_before = os.getloadavg()
    print(
        f"pi: {f'{pi_version(table.oracle)} in {table.oracle}' if table.oracle else 'not found (ratios against pi: n/a)'}"
    )
    print(f"scratch: {SCRATCH}  ({'quick' if ns.quick else 'full'} run, {os.cpu_count()} cores)", flush=True)
    rows = []
    for key in wanted:
        print(f"measuring {key} ...", file=sys.stderr, flush=True)
        try:
            row = ROWS[key](table)
        except Exception as e:  # one broken row must not lose the others
            row = Row(key, ours=f"failed: {type(e).__name__}: {str(e)[:300]}")
        row.key = key
        rows.append(row)
    load_after = os.getloadavg()
    print()
    print(render(rows))
    print()
    trees = [p for p in sorted(SCRATCH.iterdir()) if (p / ".complete").exists()]
    for tree in trees:
        print(f"- {tree.name}: {len(session_files(tree)):,} file(s), {made_by(tree)}")
    print(f"- {SCRATCH} uses {disk_use(SCRATCH) / 1e9:.2f} GB on disk (hard links counted once)")
    print(
        f"- load average {load_before[0]:.2f} / {load_before[1]:.2f} / {load_before[2]:.2f} before, "
        f"{load_after[0]:.2f} / {load_after[1]:.2f} / {load_after[2]:.2f} after "
        f"({os.cpu_count()} cores); the run took {(time.monotonic() - started) / 60:.1f} min"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
