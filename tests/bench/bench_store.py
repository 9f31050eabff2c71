"""Listing the 2,000-file tree and following it live, against pi's listAll() (same run).

  cold:  no index cache (the page cache is warm)        target <= 0.2x pi's listAll
  warm:  index cache, nothing changed                   target <= 0.01x
  grown: index cache, one line appended to 10 files     target <= 0.02x
  live:  a written and flushed line -> its event         median target < 50 ms
  idle:  CPU while watching the tree for 10 s            target < 1% of a core

The tree is copied to a scratch folder first: the appends must not touch the shared tree.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path

from .common import median_time, pi_bench, ratio_line
from .trees import ensure_tree_2k as ensure_big_tree


def main() -> None:
    from pi_sessions.core.listing.store import SessionStore
    from pi_sessions.core.live.watch import SessionWatcher

    tree = ensure_big_tree()
    pi = pi_bench(tree)
    pi_list = pi["list_all_ms"] / 1000 if pi else None
    scratch = Path(tempfile.mkdtemp(prefix="pi-sessions-bench-"))
    try:
        root = scratch / "sessions"
        shutil.copytree(tree / "sessions", root)
        cache = scratch / "cache"
        for p in (root).rglob("*.jsonl"):
            p.read_bytes()  # page cache warm, as for pi's run

        def cold() -> None:
            store = SessionStore(root, use_cache=False)
            store.scan()
            store.listing()

        print(
            f"tree: {tree} ({sum(1 for _ in root.rglob('*.jsonl'))} files)  pi listAll: {pi_list and round(pi_list * 1000)} ms"
        )
        print(ratio_line("cold listing (no cache)", median_time(cold, 3), pi_list, target=0.2))
        SessionStore(root, cache_dir=cache).scan()

        def warm() -> None:
            store = SessionStore(root, cache_dir=cache)
            store.scan()
            store.listing()

        print(ratio_line("warm listing (cache, nothing changed)", median_time(warm, 7), pi_list, target=0.01))

        files = sorted(root.rglob("*.jsonl"))[::200][:10]
        times = []
        for round_ in range(5):
            for i, path in enumerate(files):
                line = {
                    "type": "custom",
                    "customType": "bench",
                    "id": f"b{round_}{i:06d}",
                    "parentId": None,
                    "timestamp": "2026-01-01T00:00:00.000Z",
                    "data": {"n": round_},
                }
                with open(path, "a") as f:
                    f.write(json.dumps(line) + "\n")
            t0 = time.perf_counter()
            store = SessionStore(root, cache_dir=cache)
            report = store.scan()
            assert report is not None
            store.listing()
            times.append(time.perf_counter() - t0)
            assert report.grown == len(files) and report.read == 0, report
        print(
            ratio_line(
                "grown listing (1 line appended to 10 files)", statistics.median(times), pi_list, target=0.02
            )
        )

        store = SessionStore(root, cache_dir=cache)
        store.scan()
        print(live_latency(store, files[0]))
        print(idle_cpu(SessionWatcher(store)))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def live_latency(store, path: Path, count: int = 30) -> str:
    from pi_sessions.core.live.watch import SessionWatcher

    async def run() -> list[float]:
        watcher = SessionWatcher(store)
        arrived: asyncio.Queue[float] = asyncio.Queue()

        async def consume() -> None:
            async for batch in watcher.events():
                if any(e.path == str(path) for e in batch):
                    arrived.put_nowait(time.perf_counter())

        task = asyncio.create_task(consume())
        await asyncio.sleep(1.0)  # the OS watcher installs its watches in the background
        latencies = []
        for i in range(count):
            line = json.dumps(
                {
                    "type": "custom",
                    "id": f"live{i:04d}",
                    "parentId": None,
                    "timestamp": "2026-01-01T00:00:00.000Z",
                }
            )
            written = time.perf_counter()
            with open(path, "a") as f:
                f.write(line + "\n")
                f.flush()
            got = await asyncio.wait_for(arrived.get(), 10)
            latencies.append(got - written)
            await asyncio.sleep(0.1)
        watcher.stop()
        task.cancel()
        return latencies

    latencies = asyncio.run(run())
    median = statistics.median(latencies) * 1000
    verdict = "ok" if median < 50 else "OVER target 50 ms"
    return f"live: line written -> event, median {median:.1f} ms, max {max(latencies) * 1000:.1f} ms over {len(latencies)} writes  {verdict}"


def idle_cpu(watcher, seconds: float = 10.0) -> str:
    import resource

    async def run() -> float:
        async def consume() -> None:
            async for _ in watcher.events():
                pass

        task = asyncio.create_task(consume())
        await asyncio.sleep(1.0)
        before = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        await asyncio.sleep(seconds)
        after = resource.getrusage(resource.RUSAGE_SELF)
        wall = time.perf_counter() - t0
        watcher.stop()
        task.cancel()
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return cpu / wall

    share = asyncio.run(run()) * 100
    verdict = "ok" if share < 1 else "OVER target 1%"
    return f"idle: watching the tree costs {share:.2f}% of a core over {seconds:.0f} s ({threading.active_count()} threads)  {verdict}"


if __name__ == "__main__":
    main()
