"""The SQLite index (`history`, `edits`, `commands`): building it and keeping it current,
against our own cold `list` of the same tree, measured in the same run.

  first build: no index file                              issue 24's target <= 2x the cold list
  warm:        nothing changed (a stat per file)
  grown:       one line appended to one file (that file read again whole)

Run: `.venv/bin/python -m tests.bench.bench_index [FOLDER]` (default: the 2,000-file tree).
The tree is copied to a scratch folder first: the append must not touch the shared tree.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from .common import median_time
from .trees import ensure_tree_2k


def main(argv: list[str]) -> None:
    from pi_sessions.core.index.refresh import updated_index
    from pi_sessions.core.listing.store import list_sessions

    source = Path(argv[0]) if argv else ensure_tree_2k() / "sessions"
    scratch = Path(tempfile.mkdtemp(prefix="pi-sessions-bench-index-"))
    try:
        root = scratch / "sessions"
        shutil.copytree(source, root)
        files = sorted(root.rglob("*.jsonl"))
        for p in files:
            p.read_bytes()  # the page cache warm, for both sides
        cold_list = median_time(lambda: list_sessions(str(root), use_cache=False), repeat=3)

        def first_build() -> None:
            shutil.rmtree(scratch / "cache", ignore_errors=True)
            db, _ = updated_index(str(root), base=scratch / "cache")
            db.close()

        t0 = time.process_time()
        build = median_time(first_build, repeat=1)
        build_cpu = time.process_time() - t0
        size = sum(p.stat().st_size for p in (scratch / "cache").iterdir())

        def warm() -> None:
            db, report = updated_index(str(root), base=scratch / "cache")
            assert report.read == 0
            db.close()

        warm_time = median_time(warm, repeat=5)
        grown = files[len(files) // 2]
        last = json.loads(grown.read_bytes().splitlines()[-1])

        def append_one() -> None:
            line = {
                "type": "custom",
                "customType": "bench",
                "id": f"b{time.monotonic_ns():x}",
                "parentId": last.get("id"),
                "timestamp": "2025-06-01T00:00:00.000Z",
            }
            with grown.open("a") as f:
                f.write(json.dumps(line) + "\n")
            db, report = updated_index(str(root), base=scratch / "cache")
            assert report.read == 1
            db.close()

        grown_time = median_time(append_one, repeat=3)
        mb = sum(p.stat().st_size for p in files) / 2**20
        print(f"tree: {len(files)} files, {mb:.0f} MB ({source})")
        print(f"cold list (no cache): {cold_list * 1000:.0f} ms")
        ratio = build / cold_list
        verdict = "ok" if ratio <= 2 else "OVER issue 24's target 2x"
        print(
            f"first build: {build * 1000:.0f} ms ({build_cpu:.1f} s CPU), {ratio:.1f}x the cold list  {verdict}"
        )
        print(f"index file: {size / 2**20:.1f} MiB")
        print(
            f"warm (nothing changed): {warm_time * 1000:.1f} ms, {warm_time / cold_list:.3f}x the cold list"
        )
        print(f"one line appended to {grown.stat().st_size / 2**20:.1f} MB file: {grown_time * 1000:.1f} ms")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
