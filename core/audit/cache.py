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
from collections.abc import Iterable, Iterator
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
    paths: Iterable[str], allow: AllowList | None, cache_file: Path | None
) -> Iterator[list[Finding]]:
    """Each readable file's findings, in order: from the cache when its stamp is unchanged,
    else read (and remembered). `cache_file` None: every file is read, nothing is kept."""
    digest = _allow_digest(allow)
    known = _load(cache_file, digest) if cache_file is not None else {}
    fresh: dict[str, Any] = {}
    changed = False
    for path in paths:
        stamp = _stamp(path)
        if stamp is None:
            continue
        entry = known.get(path)
        findings = _findings(entry) if isinstance(entry, dict) and entry.get("stamp") == stamp else None
        if findings is None:
            try:
                findings = audit_file(path, allow).findings
            except (SessionError, OSError):
                continue
            changed = True
            if _stamp(path) != stamp:  # it grew while read: not remembered under the old stamp
                yield findings
                continue
        fresh[path] = {"stamp": stamp, "findings": [f.to_json() for f in findings]}
        yield findings
    if cache_file is not None and (changed or fresh.keys() != known.keys()):
        _save(cache_file, digest, {**known, **fresh})
