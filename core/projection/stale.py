"""Stale context: which files the model read or edited on the way to a leaf are no longer what it
saw. Deleted since; changed since its last read or edit (modified after that entry, or not the
size its last write left); in a git work tree, different from HEAD (asked through a `GitProbe`,
which core/writing/gitprobe.py implements: this module runs no program)."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from ..common.jsvalues import iso_from_ms
from ..session.session import Session
from .file_knowledge import FileKnowledge, FilesAtLeaf, Touch, seen_text

__all__ = ["GitProbe", "StaleFile", "Why", "stale_files"]

MAX_GIT_FILES = 400  # files asked about one by one; past that git is not asked


class Why(StrEnum):
    CHANGED = "changed"
    DELETED = "deleted"
    DIFFERS_FROM_HEAD = "differs_from_head"

    def describe(self) -> str:
        return _DESCRIBE[self]


_DESCRIBE = {
    Why.CHANGED: "changed",
    Why.DELETED: "deleted",
    Why.DIFFERS_FROM_HEAD: "differ from git HEAD",
}


class GitProbe(Protocol):
    """What git says of a file in the session's work tree (None: git could not tell)."""

    def differs_from_head(self, path: str) -> bool | None: ...

    def commits_since(self, path: str, since_ms: float) -> int | None: ...


@dataclass(frozen=True, slots=True)
class StaleFile:
    path: str
    display: str
    why: Why
    entry_id: str  # the last read or edit of it on the path: what the model saw
    detail: str
    commits_since: int | None = None  # commits touching it after that entry (None: not a git tree)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "why": str(self.why),
            "entry_id": self.entry_id,
            "display": self.display,
            "detail": self.detail,
            "commits_since": self.commits_since,
        }


def stale_files(
    session: Session,
    report: FilesAtLeaf,
    git: GitProbe | None = None,
    *,
    lstat: Callable[[str], os.stat_result] = os.lstat,
) -> list[StaleFile]:
    """The files `report` says the model read or edited that differ from what it saw."""
    out: list[StaleFile] = []
    asked = 0
    for known in report.files:
        latest = known.latest
        if latest is None or not _checkable(known.path):
            continue
        since = session.ts_ms(latest.result)
        found = _on_disk(session, known, latest, since, lstat)
        commits = None
        if git is not None and asked < MAX_GIT_FILES and (found is None or found[0] is Why.CHANGED):
            asked += 1
            if since is not None:
                commits = git.commits_since(known.path, since)
            if found is None and git.differs_from_head(known.path):
                found = (Why.DIFFERS_FROM_HEAD, "uncommitted changes: it differs from git HEAD")
        if found is None:
            continue
        why, detail = found
        if commits:
            detail += f"; {commits} commit{'' if commits == 1 else 's'} touched it since"
        out.append(StaleFile(known.path, known.display, why, latest.entry.id, detail, commits))
    return out


def _checkable(path: str) -> bool:
    """An absolute path of this machine (a `~` path names a home the session does not say)."""
    return os.path.isabs(path) and not path.startswith("~") and "\0" not in path


def _on_disk(
    session: Session,
    known: FileKnowledge,
    latest: Touch,
    since: float | None,
    lstat: Callable[[str], os.stat_result],
) -> tuple[Why, str] | None:
    verb = "edit" if latest is known.last_edit else "read"
    try:
        st = lstat(known.path)
    except FileNotFoundError:
        return Why.DELETED, f"no longer on disk; last {verb} in {latest.entry.id}"
    except (OSError, ValueError):  # unreadable here (permissions; a lone surrogate in the name)
        return None
    if stat.S_ISDIR(st.st_mode):
        return None
    mtime_ms = st.st_mtime_ns / 1e6
    if since is not None and mtime_ms > since:
        when = iso_from_ms(mtime_ms) or "later"
        return Why.CHANGED, f"modified {when}, after its last {verb} in {latest.entry.id}"
    written = _written_size(session, latest)
    if written is not None and written != st.st_size:
        return Why.CHANGED, f"{st.st_size} bytes, not the {written} its last write in {latest.entry.id} left"
    return None


def _written_size(session: Session, touch: Touch) -> int | None:
    """The size a `write` tool call left the file at (its content in UTF-8), else None."""
    if touch.tool != "write" or touch.error:
        return None
    args = seen_text(session, touch).arguments
    content = args.get("content") if isinstance(args, dict) else None
    if not isinstance(content, str):
        return None
    return len(content.encode("utf-8", "surrogatepass"))
