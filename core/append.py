"""The two small edits pi itself makes to a session file: a name and a label.

Each appends one complete line, exactly as pi's `appendSessionInfo` / `appendLabelChange`
write it (pi's id scheme, parent = the current default leaf, the name normalised as pi does),
with `O_APPEND` and a single write. Nothing is ever rewritten. A file that does not end with
a newline is refused: a writer is in the middle of a line.
"""

from __future__ import annotations

import os
import re
import time
from typing import Any

from .fork import short_id
from .jsonout import encode_json
from .jsvalues import iso_from_ms
from .problems import SessionError
from .session import Session


def normalize_name(name: str) -> str:
    """pi's sanitising: every run of CR/LF becomes one space, then trim."""
    return re.sub(r"[\r\n]+", " ", name).strip()


def _now_iso() -> str:
    return iso_from_ms(time.time() * 1000) or ""


def _append_line(session: Session, entry: dict[str, Any]) -> dict[str, Any]:
    path = session.path
    if path is None:
        raise SessionError("this session is not a file")
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
        line = encode_json(entry) + b"\n"
        written = os.write(fd, line)
        if written != len(line):
            raise SessionError(f"only {written} of {len(line)} bytes were written to {path}")
    finally:
        os.close(fd)
    session.refresh()
    return entry


def _prepare(session: Session) -> None:
    session.refresh()  # pi may have appended since we read: the parent is the current leaf
    if session.header is None:
        raise SessionError("the file has no session header yet")


def append_session_name(session: Session, name: str) -> dict[str, Any]:
    _prepare(session)
    entry = {
        "type": "session_info",
        "id": short_id(set(session.by_id)),
        "parentId": session.default_leaf,
        "timestamp": _now_iso(),
        "name": normalize_name(name),
    }
    return _append_line(session, entry)


def append_label(session: Session, target_id: str, label: str | None) -> dict[str, Any]:
    """Set (or, with None or "", clear) the label of an entry."""
    _prepare(session)
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
    return _append_line(session, entry)
