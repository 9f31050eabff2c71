"""The session trees and files the benchmarks run on, built once and kept in the scratch folder.

Everything lives under `SCRATCH` (`$PI_BENCH_DIR`, default /tmp/pi-sessions-bench) and is
reused when present (a `.complete` marker says a build finished):

  tree-2k/     pi's own `gen.mjs --big` tree (2,000 files, ~340 MB; the largest ~85 MB), or
               tests/bench/bigtree.py's look-alike when pi is not installed
  tree-10k/    the 2k tree's files (hard links) plus variations of its small files: the same
  tree-30k/    bytes with a new session id and a cwd of their own (folder `<cwd>-cK`); the four
               huge files are not repeated. The 30k tree links the 10k tree's files (or the
               other way round): ~1.9 GB of new data for both.
  long-100k/   one linear session of 100,000 message entries (~28 MB)
  huge-1024mb/ one 1 GB session of long tool outputs (bigtree.py's writer)

Each tree is `DIR/sessions/--<cwd>--/<file>.jsonl`, the layout pi's `listAll()` reads.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

from .common import SCRATCH, find_oracle

SMALL_FILE = 2 * 1024 * 1024  # files above this are the tree's few huge ones: not repeated


def _complete(folder: Path) -> bool:
    return (folder / ".complete").exists()


def _mark_complete(folder: Path, note: str) -> None:
    (folder / ".complete").write_text(note + "\n")


def made_by(folder: Path) -> str:
    marker = folder / ".complete"
    return marker.read_text().strip() if marker.exists() else "?"


def session_files(tree: Path) -> list[Path]:
    """Every session file of a tree, in a stable order."""
    return sorted((tree / "sessions").glob("*/*.jsonl"))


def largest_files(tree: Path, count: int = 3) -> list[Path]:
    files = sorted(session_files(tree), key=lambda p: p.stat().st_size, reverse=True)
    return files[:count]


def disk_use(folder: Path) -> int:
    """Bytes really used by a folder (hard links to files seen before count once)."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for dirpath, _, names in os.walk(folder):
        for name in names:
            st = os.lstat(os.path.join(dirpath, name))
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                total += st.st_blocks * 512
    return total


def warm_page_cache(paths: list[Path]) -> None:
    """Read the files once so every run starts with them in the page cache, as pi's does."""
    for path in paths:
        with open(path, "rb") as f:
            while f.read(1 << 20):
                pass


# ---------------------------------------------------------------------- the 2,000-session tree
def ensure_tree_2k() -> Path:
    folder = SCRATCH / "tree-2k"
    if _complete(folder):
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    oracle = find_oracle()
    if oracle is not None:
        print(f"building {folder} with pi's gen.mjs --big (about 10 s) ...", flush=True)
        subprocess.run(
            [str(oracle / "node22"), str(oracle / "gen.mjs"), "--big", "--out", str(folder)],
            cwd=oracle,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        _mark_complete(folder, "pi 1.6.0 gen.mjs --big")
    else:
        from .bigtree import generate

        print(f"building {folder} with tests/bench/bigtree.py (pi not installed) ...", flush=True)
        generate(folder / "sessions")
        _mark_complete(folder, "tests/bench/bigtree.py (pi's gen.mjs not available)")
    return folder


# ---------------------------------------------------------------------- 10k and 30k sessions
def _folder_for(cwd: str) -> str:
    """pi's folder name for a cwd (getDefaultSessionDir)."""
    return "--" + cwd.lstrip("/\\").replace("/", "-").replace("\\", "-").replace(":", "-") + "--"


def _variations(base: Path) -> Iterator[tuple[Path, Path | None, bytes | None]]:
    """(target, hard-link source, new content) for the files of the big tree: first the 2k
    tree's own files, then round after round of variations of its small files."""
    files = session_files(base)
    for path in files:
        yield Path(path.parent.name) / path.name, path, None
    small = [p for p in files if p.stat().st_size <= SMALL_FILE]
    round_ = 0
    while True:
        round_ += 1
        for path in small:
            data = path.read_bytes()
            head, sep, rest = data.partition(b"\n")
            header = json.loads(head)
            sid = str(header["id"])
            header["id"] = sid[:24] + hashlib.sha256(f"{sid}/{round_}".encode()).hexdigest()[:12]
            header["cwd"] = f"{header.get('cwd', '/nowhere')}-c{round_}"
            stamp = path.name.split("_", 1)[0]
            target = Path(_folder_for(header["cwd"])) / f"{stamp}_{header['id']}.jsonl"
            line = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode()
            yield target, None, line + sep + rest


def ensure_tree(count: int) -> Path:
    """A tree of `count` sessions: the 2k tree, or (up to 30,000) the first `count` files of
    `_variations`; files another tree has already written are hard-linked from it."""
    base = ensure_tree_2k()
    if count == 2000:
        return base
    if not 2000 < count <= 30000:
        raise SystemExit("bench: trees have 2,000 to 30,000 sessions")
    folder = SCRATCH / f"tree-{count // 1000}k"
    if _complete(folder):
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    others = [p for p in SCRATCH.glob("tree-*k") if p != folder and _complete(p) and p != base]
    print(f"building {folder} ({count:,} sessions from the 2k tree) ...", flush=True)
    for (path, link, data), _ in zip(_variations(base), range(count), strict=False):
        destination = folder / "sessions" / path
        destination.parent.mkdir(parents=True, exist_ok=True)
        if link is None:
            link = next((o / "sessions" / path for o in others if (o / "sessions" / path).exists()), None)
        if link is not None:
            os.link(link, destination)
        else:
            assert data is not None
            destination.write_bytes(data)
    _mark_complete(folder, f"{count:,} sessions: {made_by(base)}, then variations of its small files")
    return folder


# ---------------------------------------------------------------------- single big sessions
def _message_entry(i: int, eid: str, parent: str | None, stamp: str) -> dict[str, object]:
    """The i-th message of a bench session: user, assistant (with usage), tool result in turn."""
    role = ("user", "assistant", "toolResult")[i % 3]
    content = f"message {i}: " + "some words of a realistic length " * (1 + i % 5)
    message: dict[str, object] = {
        "role": role,
        "content": content if role == "user" else [{"type": "text", "text": content}],
        "timestamp": 1767225600000 + i,
    }
    if role == "assistant":
        message.update(
            {
                "provider": "anthropic",
                "model": "claude-sonnet-4-5",
                "usage": {"input": 10, "output": 5, "totalTokens": 15, "cost": {"total": 0.001}},
            }
        )
    if role == "toolResult":
        message.update({"toolCallId": f"t{i}", "toolName": "bash"})
    return {"type": "message", "id": eid, "parentId": parent, "timestamp": stamp, "message": message}


def write_long_session(folder: Path, entries: int = 10_000) -> Path:
    """A linear session of `entries` messages (user, assistant, tool result in turn)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "2026-01-01T00-00-00-000Z_long.jsonl"
    lines: list[dict[str, object]] = [
        {
            "type": "session",
            "version": 3,
            "id": "long",
            "timestamp": "2026-01-01T00:00:00.000Z",
            "cwd": "/home/u/long",
        }
    ]
    parent = None
    for i in range(entries):
        eid = f"{i:08x}"
        lines.append(_message_entry(i, eid, parent, f"2026-01-01T00:{(i // 60) % 60:02d}:{i % 60:02d}.000Z"))
        parent = eid
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def write_branchy_session(folder: Path, entries: int = 100_000) -> Path:
    """A session of `entries` entries that forks and compacts as a long pi session does: every
    60 entries the conversation goes back 20 entries and continues from there (a fork whose
    old branch is abandoned), every 5,000 a compaction; the tip is the last entry written."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "2026-01-01T00-00-00-000Z_branchy.jsonl"
    out = [
        json.dumps(
            {
                "type": "session",
                "version": 3,
                "id": "branchy",
                "timestamp": "2026-01-01T00:00:00.000Z",
                "cwd": "/home/u/branchy",
            }
        )
    ]
    path_ids: list[str] = []
    for i in range(entries):
        eid = f"{i:08x}"
        if i and i % 60 == 0 and len(path_ids) > 20:
            del path_ids[-20:]  # back 20 entries: the next one forks there
        parent = path_ids[-1] if path_ids else None
        stamp = f"2026-01-01T{(i // 3600) % 24:02d}:{(i // 60) % 60:02d}:{i % 60:02d}.000Z"
        entry: dict[str, object]
        if i and i % 5000 == 0 and len(path_ids) > 10:
            entry = {
                "type": "compaction",
                "id": eid,
                "parentId": parent,
                "timestamp": stamp,
                "summary": f"summary of the work up to entry {i}",
                "firstKeptEntryId": path_ids[-10],
                "tokensBefore": 50_000,
            }
        else:
            entry = _message_entry(i, eid, parent, stamp)
        out.append(json.dumps(entry))
        path_ids.append(eid)
    path.write_text("\n".join(out) + "\n")
    return path


def long_session_leaf(entries: int) -> str:
    """The id of the last entry `write_long_session` wrote."""
    return f"{entries - 1:08x}"


def ensure_long_session(entries: int = 100_000) -> Path:
    folder = SCRATCH / f"long-{entries // 1000}k"
    if not _complete(folder):
        shutil.rmtree(folder, ignore_errors=True)
        print(f"building {folder} ({entries:,} entries) ...", flush=True)
        write_long_session(folder / "sessions" / "--home-u-long--", entries)
        _mark_complete(folder, f"{entries:,}-entry linear session")
    return session_files(folder)[0]


def ensure_branchy_session(entries: int = 100_000) -> Path:
    folder = SCRATCH / f"branchy-{entries // 1000}k"
    if not _complete(folder):
        shutil.rmtree(folder, ignore_errors=True)
        print(f"building {folder} ({entries:,} entries, forks and compactions) ...", flush=True)
        write_branchy_session(folder / "sessions" / "--home-u-branchy--", entries)
        _mark_complete(folder, f"{entries:,}-entry session with a fork every 60 entries")
    return session_files(folder)[0]


def ensure_huge_session(megabytes: int = 1024) -> Path:
    folder = SCRATCH / f"huge-{megabytes}mb"
    if not _complete(folder):
        shutil.rmtree(folder, ignore_errors=True)
        print(f"building {folder} (one {megabytes} MB session) ...", flush=True)
        from .bigtree import write_huge_session

        write_huge_session(folder / "sessions" / "--home-u-huge--", "/home/u/huge", megabytes)
        _mark_complete(folder, f"one {megabytes} MB session of long tool outputs")
    return session_files(folder)[0]
