"""Pushing the 2,000-file tree into a local PostgreSQL, against a cold listing of it (same run).

  first:  push into an empty store                       target <= 3x a cold listing
  again:  a second push, nothing new                     target <= 0.5 s
  grown:  one line appended to 10 files, pushed           (reported)

    .venv/bin/python -m tests.bench.bench_push

The cluster is this run's own (tests/helpers/postgres.py: a temporary folder, a unix socket).
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from tests.helpers.postgres import Cluster, server_bin

from .common import median_time
from .trees import ensure_tree_2k, session_files


def main() -> None:
    from pi_sessions.core.listing.store import SessionStore
    from pi_sessions.core.store_pg.connect import connect
    from pi_sessions.core.store_pg.push import push
    from pi_sessions.core.store_pg.schema import init_store

    bin_dir = server_bin()
    if bin_dir is None:
        print("push: PostgreSQL's initdb and pg_ctl are not installed: nothing measured")
        return
    tree = ensure_tree_2k()
    files = session_files(tree)
    scratch = Path(tempfile.mkdtemp(prefix="pi-sessions-bench-push-"))
    cluster = Cluster(bin_dir)
    cluster.start()
    try:
        root = scratch / "sessions"
        shutil.copytree(tree / "sessions", root)
        size = sum(p.stat().st_size for p in root.rglob("*.jsonl"))
        for p in root.rglob("*.jsonl"):
            p.read_bytes()  # page cache warm, for both

        def cold() -> None:
            store = SessionStore(str(root), use_cache=False)
            store.scan(save=False)
            store.listing()

        cold_s = median_time(cold, 3)
        cluster.new_role("bench", "bench-pw")
        db = cluster.new_database()
        with connect(cluster.dsn(db)) as connection:
            init_store(connection)
        dsn = cluster.dsn(db, "bench", "bench-pw")
        with connect(dsn) as connection:
            t0 = time.perf_counter()
            report = push(connection, str(root), "bench")
            first_s = time.perf_counter() - t0
        print(f"tree: {tree} ({len(files)} files, {size / 1e6:.0f} MB, {report.lines:,} lines)")
        print(f"cold listing: {cold_s * 1000:.0f} ms")
        ratio = first_s / cold_s
        verdict = "ok" if ratio <= 3 else "OVER target 3x"
        print(f"first push: {first_s * 1000:.0f} ms, {ratio:.2f}x the cold listing  {verdict}")

        def again() -> None:
            with connect(dsn) as connection:
                assert push(connection, str(root), "bench").sent == 0

        again_s = median_time(again, 5)
        print(
            f"second push (nothing new, connecting included): {again_s * 1000:.0f} ms  {'ok' if again_s <= 0.5 else 'OVER target 0.5 s'}"
        )

        grown = sorted(root.rglob("*.jsonl"))[:10]

        def grow_and_push() -> None:
            for p in grown:
                with p.open("ab") as f:
                    f.write(
                        b'{"type":"custom","id":"bench","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z"}\n'
                    )
            with connect(dsn) as connection:
                assert push(connection, str(root), "bench").sent == len(grown)

        print(f"10 files grown by a line, pushed: {median_time(grow_and_push, 3) * 1000:.0f} ms")
    finally:
        cluster.stop()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
