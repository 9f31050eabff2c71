"""The two small edits pi itself makes to a session file: a name and a label.

Each appends one complete line, exactly as pi's `appendSessionInfo` / `appendLabelChange`
write it (pi's id scheme, parent = the current default leaf, the name normalised as pi does),
with `O_APPEND` and a single write. Nothing is ever rewritten.

In two halves, so that the session is never refreshed behind its readers' backs: `plan_label`
and `plan_session_name` make the line from the session as it was last read (cheap, where the
session lives); `write_append` writes it (file work only, any thread) and refuses when the file
is not what the session read: when it grew since (`FileChangedError`: read it again, plan
again) or does not end with a newline (a writer is in the middle of a line). The browser takes
its own line in the way it takes pi's, through the watcher. `append_label` and
`append_session_name` do all of it in one call, for scripts and tests.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from typing import Any

from ..common.jsonout import encode_json
from ..common.jsvalues import iso_from_ms
from ..common.problems import SessionError
from ..session.session import Session
from .fork import short_id


class FileChangedError(SessionError):
    """The file is not the one the line was planned for (it grew): read it again and retry."""


@dataclass(frozen=True, slots=True)
class PlannedAppend:
    """One line to append to `path`, planned when the file was `expected_size` bytes long."""

    path: str
    entry: dict[str, Any]
    expected_size: int


def normalize_name(name: str) -> str:
    """pi's sanitising: every run of CR/LF becomes one space, then trim."""
    return re.sub(r"[\r\n]+", " ", name).strip()


def _now_iso() -> str:
    return iso_from_ms(time.time() * 1000) or ""


def _file_of(session: Session) -> str:
    if session.path is None:
        raise SessionError("this session is not a file")
    if session.header is None:
        raise SessionError("the file has no session header yet")
    return session.path


def _planned(session: Session, path: str, entry: dict[str, Any]) -> PlannedAppend:
    return PlannedAppend(path, entry, session.end_offset + session.pending_bytes)


def plan_session_name(session: Session, name: str) -> PlannedAppend:
    """pi's `/name`: a session_info entry below the default leaf (an empty name clears it)."""
    path = _file_of(session)
    entry = {
        "type": "session_info",
        "id": short_id(set(session.by_id)),
        "parentId": session.default_leaf,
        "timestamp": _now_iso(),
        "name": normalize_name(name),
    }
    return _planned(session, path, entry)


def plan_label(session: Session, target_id: str, label: str | None) -> PlannedAppend:
    """Set (or, with None or "", clear) the label of an entry."""
    path = _file_of(session)
    if session.is_v1:
        raise SessionError(
            "this is a version 1 file: pi gives its entries new ids when it opens it, so a label "
            "written now would point at nothing"
        )
    session.get(target_id)
    entry: dict[str, Any] = {
        "type": "label",
        "id": short_id(set(session.by_id)),
        "parentId": session.default_leaf,
        "timestamp": _now_iso(),
        "targetId": target_id,
    }
    if label:
        entry["label"] = label
    return _planned(session, path, entry)


def write_append(plan: PlannedAppend) -> dict[str, Any]:
    """Append the planned line (file work only: fit for a worker thread); returns the entry."""
    path = plan.path
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND)
    except OSError as e:
        raise SessionError(f"cannot open {path} for appending: {e.strerror}") from None
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            raise SessionError("the file is empty: nothing to append to")
        if os.pread(fd, 1, size - 1) != b"\n":
            raise SessionError("the file does not end with a newline (pi may be writing a line); try again")
        if size != plan.expected_size:
            raise FileChangedError(f"{path} changed since it was read ({plan.expected_size} -> {size} bytes)")
        line = encode_json(plan.entry) + b"\n"
        written = os.write(fd, line)
        if written != len(line):
            raise SessionError(f"only {written} of {len(line)} bytes were written to {path}")
    finally:
        os.close(fd)
    return plan.entry


def append_session_name(session: Session, name: str) -> dict[str, Any]:
    """Read what pi appended, append the name line, read it back (all in the caller's thread)."""
    session.refresh()  # pi may have appended since we read: the parent is the current leaf
    entry = write_append(plan_session_name(session, name))
    session.refresh()
    return entry


def append_label(session: Session, target_id: str, label: str | None) -> dict[str, Any]:
    """Read what pi appended, append the label line, read it back (all in the caller's thread)."""
    session.refresh()
    entry = write_append(plan_label(session, target_id, label))
    session.refresh()
    return entry
