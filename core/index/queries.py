"""The questions the index answers across sessions: every touch of a file (`history`), the
files the agent changed (`edits`) and the commands it ran (`commands`), newest first.

Newest first is by the entry's timestamp; entries without a readable one come last, and
ties keep the session's path and then the file's order (later lines first).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

from ..projection.file_knowledge import normalise_path
from .db import stored, text_of
from .facts import CHANGED

__all__ = ["CommandRow", "TouchRow", "changed_files", "commands_run", "file_history"]

_NEWEST_FIRST = "ORDER BY x.ts_ms IS NULL, x.ts_ms DESC, s.path, x.seq DESC"


@dataclass(frozen=True, slots=True)
class TouchRow:
    path: str
    session_path: str
    session_id: str | None
    cwd: str
    entry_id: str
    action: str
    verb: str
    tool: str
    error: bool
    timestamp: str | None
    on_active_path: bool
    in_context: bool


@dataclass(frozen=True, slots=True)
class CommandRow:
    session_path: str
    session_id: str | None
    cwd: str
    entry_id: str
    call_id: str | None
    command: str
    timestamp: str | None
    on_active_path: bool


_TOUCH_COLUMNS = (
    "x.path, s.path, s.session_id, s.cwd, x.entry_id, x.action, x.verb, x.tool, x.error,"
    " x.timestamp, x.on_active_path, x.in_context"
)


def _touch(row: tuple[object, ...]) -> TouchRow:
    path, session_path, sid, cwd, entry, action, verb, tool, error, ts, on_path, in_context = row
    return TouchRow(
        text_of(path) or "",
        text_of(session_path) or "",
        text_of(sid),
        text_of(cwd) or "",
        text_of(entry) or "",
        str(action),
        text_of(verb) or "",
        text_of(tool) or "",
        bool(error),
        text_of(ts),
        bool(on_path),
        bool(in_context),
    )


def file_history(conn: sqlite3.Connection, path: str, each_cwd: bool = False) -> list[TouchRow]:
    """Every touch of `path` (normalised as tool paths are); with `each_cwd`, a relative
    `path` is taken in each session's own cwd (`src/app.py` of every project)."""
    if not each_cwd:
        wanted = [normalise_path(path, "")]
    else:
        cwds = [text_of(row[0]) or "" for row in conn.execute("SELECT DISTINCT cwd FROM sessions")]
        wanted = sorted({normalise_path(path, cwd) for cwd in cwds})
    marks = ",".join("?" * len(wanted))
    rows = conn.execute(
        f"SELECT {_TOUCH_COLUMNS} FROM touches x JOIN sessions s ON s.id = x.session"
        f" WHERE x.path IN ({marks}) {_NEWEST_FIRST}",
        [stored(p) for p in wanted],
    )
    found = map(_touch, rows)
    if not each_cwd:
        return list(found)
    return [t for t in found if t.path == normalise_path(path, t.cwd)]


def changed_files(conn: sqlite3.Connection, since_ms: float | None = None) -> Iterator[TouchRow]:
    """Every change the agent made to a file (not a user's `!command`, not a failed call)."""
    where = "x.action = ? AND x.tool != 'user-bash'"
    args: list[object] = [CHANGED]
    if since_ms is not None:
        where += " AND x.ts_ms >= ?"
        args.append(since_ms)
    rows = conn.execute(
        f"SELECT {_TOUCH_COLUMNS} FROM touches x JOIN sessions s ON s.id = x.session"
        f" WHERE {where} {_NEWEST_FIRST}",
        args,
    )
    return map(_touch, rows)


def commands_run(
    conn: sqlite3.Connection, query: str | None = None, since_ms: float | None = None
) -> Iterator[CommandRow]:
    """Every bash command the agent called; `query`: only those holding it (any case)."""
    where, args = "1", []
    if since_ms is not None:
        where, args = "x.ts_ms >= ?", [since_ms]
    rows = conn.execute(
        "SELECT s.path, s.session_id, s.cwd, x.entry_id, x.call_id, x.command, x.timestamp,"
        " x.on_active_path FROM commands x JOIN sessions s ON s.id = x.session"
        f" WHERE {where} {_NEWEST_FIRST}",
        args,
    )
    needle = query.casefold() if query else None
    for session_path, sid, cwd, entry, call_id, command, ts, on_path in rows:
        text = text_of(command) or ""
        if needle is not None and needle not in text.casefold():
            continue
        yield CommandRow(
            text_of(session_path) or "",
            text_of(sid),
            text_of(cwd) or "",
            text_of(entry) or "",
            text_of(call_id),
            text,
            text_of(ts),
            bool(on_path),
        )
