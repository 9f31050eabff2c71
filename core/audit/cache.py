"""The audit's memory: each file's findings (previews only, never a value) under its stamp
(size, mtime, inode), so an audit of a store reads again only the files that changed.

One JSON file in our cache folder; a different allow-list forgets everything (what it allowed
cannot be told from previews). Written whole to a temporary file and renamed into place."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

from ..common.problems import SessionError
from .allowlist import AllowList
from .scan import Finding, audit_file

__all__ = ["CACHE_NAME", "audit_with_cache"]

CACHE_NAME = "secrets-audit.json"
_VERSION = 1


def _allow_digest(allow: AllowList | None) -> str:
    if allow is None or allow.empty:
        return ""
    parts = sorted(allow.values) + ["re:" + p.pattern for p in allow.patterns]
    return hashlib.sha256("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def _stamp(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _load(cache_file: Path, digest: str) -> dict[str, Any]:
    try:
        with open(cache_file, "rb") as f:
            data = json.load(f)
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict) or data.get("version") != _VERSION or data.get("allow") != digest:
        return {}
    files = data.get("files")
    return files if isinstance(files, dict) else {}


def _save(cache_file: Path, digest: str, files: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".secrets-audit-", dir=cache_file.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump({"version": _VERSION, "allow": digest, "files": files}, f, separators=(",", ":"))
            os.replace(tmp, cache_file)
        except OSError:
            os.unlink(tmp)


def _findings(entry: Any) -> list[Finding] | None:
    try:
        return [Finding(**obj) for obj in entry["findings"]]
    except (KeyError, TypeError):
        return None


def audit_with_cache(
    paths: Iterable[str], allow: AllowList | None, cache_file: Path | None, workers: int | None = None
) -> Iterator[list[Finding]]:
    """Each readable file's findings, in order: from the cache when its stamp is unchanged,
    else read (and remembered). `cache_file` None: every file is read, nothing is kept.

    Past 48 MB to read the files are shared with a second process (core/listing/sharedwork.py,
    as the cold listing does; `workers` 1: never): their findings come once all are read."""
    digest = _allow_digest(allow)
    known = _load(cache_file, digest) if cache_file is not None else {}
    fresh: dict[str, Any] = {}
    changed = False
    listed = list(paths)
    stamps: dict[str, list[int]] = {}
    cached: dict[str, list[Finding]] = {}
    for path in listed:
        stamp = _stamp(path)
        if stamp is None:
            continue
        stamps[path] = stamp
        entry = known.get(path)
        findings = _findings(entry) if isinstance(entry, dict) and entry.get("stamp") == stamp else None
        if findings is not None:
            cached[path] = findings
    to_read = [p for p in stamps if p not in cached]
    read = _read_shared(to_read, stamps, allow, workers)
    for path in listed:
        if path not in stamps:
            continue
        if path in cached:
            findings = cached[path]
        else:
            got = read(path) if not isinstance(read, dict) else read.get(path)
            if got is None:  # not a session, or unreadable
                continue
            findings, stamp_after = got
            changed = True
            if stamp_after != stamps[path]:  # it grew while read: not remembered under the old stamp
                yield findings
                continue
        fresh[path] = {"stamp": stamps[path], "findings": [f.to_json() for f in findings]}
        yield findings
    if cache_file is not None and (changed or fresh.keys() != known.keys()):
        _save(cache_file, digest, {**known, **fresh})


_Read = tuple[list[Finding], list[int] | None]  # a file's findings, its stamp once read


def _audit_one(path: str, allow: AllowList | None) -> _Read | None:
    try:
        findings = audit_file(path, allow).findings
    except (SessionError, OSError):
        return None
    return findings, _stamp(path)


def _read_shared(
    paths: list[str], stamps: dict[str, list[int]], allow: AllowList | None, workers: int | None
) -> dict[str, _Read] | Callable[[str], _Read | None]:
    """Every file's audit at once with two processes (a dict), or a function that reads one
    file when asked (few bytes, one core, or threads running that a fork would copy badly)."""
    if workers is None:
        workers = min(2, os.cpu_count() or 1)
    total = sum(stamps[p][0] for p in paths)
    if workers < 2 or total < SHARED_MIN_BYTES or len(paths) < 8:
        return partial(_audit_one, allow=allow)
    import threading

    from ..listing.sharedwork import share_work

    method = "fork" if threading.active_count() == 1 and hasattr(os, "fork") else "spawn"
    pieces = _pieces(paths, stamps)
    results = share_work(pieces, partial(_audit_piece, allow=allow), _encode, _decode, method)
    return dict(results)


SHARED_MIN_BYTES = 48 * 1024 * 1024
_PIECES = 64


def _pieces(paths: list[str], stamps: dict[str, list[int]]) -> list[list[str]]:
    """Groups of files of about the same size, the biggest first."""
    ordered = sorted(paths, key=lambda p: stamps[p][0], reverse=True)
    share = max(1, sum(stamps[p][0] for p in paths) // _PIECES)
    pieces: list[list[str]] = []
    piece: list[str] = []
    size = 0
    for path in ordered:
        piece.append(path)
        size += stamps[path][0]
        if size >= share:
            pieces.append(piece)
            piece, size = [], 0
    if piece:
        pieces.append(piece)
    return pieces


def _audit_piece(paths: list[str], allow: AllowList | None) -> list[tuple[str, _Read]]:
    return [(path, got) for path in paths if (got := _audit_one(path, allow)) is not None]


def _encode(results: list[tuple[str, _Read]]) -> bytes:
    rows = [[path, [f.to_json() for f in findings], stamp] for path, (findings, stamp) in results]
    return json.dumps(rows, separators=(",", ":")).encode("utf-8", "surrogatepass")


def _decode(data: bytes) -> list[tuple[str, _Read]]:
    rows = json.loads(data.decode("utf-8", "surrogatepass"))
    return [(path, ([Finding(**f) for f in findings], stamp)) for path, findings, stamp in rows]
