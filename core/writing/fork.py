"""Forking: the new session file pi's `createBranchedSession` would write, and writing it safely.

`plan_fork` says what the file will hold (nothing written), `fork_preview` says it in a few
lines for the user to confirm, `write_fork` writes it. The new file holds a fresh header
(parentSession = the source file), the root-to-leaf path without label entries and re-chained,
and the labels of that path re-created at the end with their original timestamps. It is written
under a temporary name and linked into place without ever replacing an existing file; the
source is only read.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import time
from dataclasses import dataclass
from typing import Any

from ..common.glyphs import UNICODE, Glyphs
from ..common.jsvalues import iso_from_ms
from ..common.locations import expand_path
from ..common.problems import SessionError
from ..common.text import one_line
from ..session.describe import entry_text, excerpt
from ..session.session import Session


def uuid7(now_ms: int | None = None) -> str:
    """A UUIDv7 (time-ordered), the kind of id pi gives sessions."""
    ms = int(time.time() * 1000) if now_ms is None else now_ms
    rand = int.from_bytes(secrets.token_bytes(10), "big")
    value = (ms & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76
    value |= ((rand >> 62) & 0xFFF) << 64
    value |= 0b10 << 62
    value |= rand & ((1 << 62) - 1)
    h = f"{value:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def short_id(taken: set[str]) -> str:
    """pi's entry id: 8 hex characters, drawn again on collision, a full UUID after 100 tries."""
    for _ in range(100):
        candidate = secrets.token_hex(4)
        if candidate not in taken:
            return candidate
    return uuid7()


def session_file_name(timestamp: str, session_id: str) -> str:
    return f"{timestamp.replace(':', '-').replace('.', '-')}_{session_id}.jsonl"


@dataclass(slots=True)
class ForkPlan:
    """The new file's lines and where it goes (nothing written yet)."""

    lines: list[dict[str, Any]]
    folder: str
    file_name: str
    source_path: str | None
    leaf_id: str

    @property
    def header(self) -> dict[str, Any]:
        return self.lines[0]

    @property
    def path(self) -> str:
        return os.path.join(self.folder, self.file_name)

    @property
    def entry_count(self) -> int:
        return len(self.lines) - 1

    @property
    def labels(self) -> list[tuple[str, str]]:
        return [(line["targetId"], line["label"]) for line in self.lines[1:] if line.get("type") == "label"]

    @property
    def has_conversation(self) -> bool:
        """pi only writes a file once it holds a user or assistant message."""
        return any(
            line.get("type") == "message"
            and isinstance(line.get("message"), dict)
            and line["message"].get("role") in ("user", "assistant")
            for line in self.lines[1:]
        )


def plan_fork(
    session: Session,
    leaf_id: str,
    *,
    cwd: str | None = None,
    folder: str | None = None,
    now_ms: int | None = None,
) -> ForkPlan:
    """The lines of `createBranchedSession(leaf_id)`; with `cwd`, a fork into that directory."""
    path = session.path_to(leaf_id)
    kept: list[dict[str, Any]] = []
    label_successor: dict[str, str] = {}
    pending_labels: list[str] = []
    parent: str | None = None
    for record in path:
        if record.type == "label":
            pending_labels.append(record.id)
            continue
        for label_id in pending_labels:
            label_successor[label_id] = record.id
        pending_labels.clear()
        entry = dict(session.entry_dict(record))
        entry["parentId"] = parent
        if record.type == "compaction" and "firstKeptEntryId" in entry:
            kept_id = entry["firstKeptEntryId"]
            if kept_id != record.id and isinstance(kept_id, str):
                entry["firstKeptEntryId"] = label_successor.get(kept_id, kept_id)
        kept.append(entry)
        parent = record.id

    ms = int(time.time() * 1000) if now_ms is None else now_ms
    timestamp = iso_from_ms(ms) or ""
    new_id = uuid7(ms)
    source_cwd = session.header.get("cwd") if session.header else None
    if cwd is not None:
        header_cwd = expand_path(cwd)
    elif isinstance(source_cwd, str):
        header_cwd = os.path.abspath(source_cwd)
    else:
        header_cwd = os.getcwd()
    header: dict[str, Any] = {
        "type": "session",
        "version": 3,
        "id": new_id,
        "timestamp": timestamp,
        "cwd": header_cwd,
    }
    if session.path is not None:
        header["parentSession"] = session.path

    path_ids = {e["id"] for e in kept if isinstance(e.get("id"), str)}
    label_lines: list[dict[str, Any]] = []
    label_parent = kept[-1].get("id") if kept else None
    for target, label in session.labels.items():
        if target not in path_ids:
            continue
        label_id = short_id(path_ids)
        path_ids.add(label_id)
        label_lines.append(
            {
                "type": "label",
                "id": label_id,
                "parentId": label_parent or None,
                "timestamp": session.label_timestamps.get(target),
                "targetId": target,
                "label": label,
            }
        )
        label_parent = label_id

    if folder is None:
        folder = os.path.dirname(session.path) if session.path else os.getcwd()
    return ForkPlan(
        lines=[header, *kept, *label_lines],
        folder=folder,
        file_name=session_file_name(timestamp, new_id),
        source_path=session.path,
        leaf_id=leaf_id,
    )


def fork_preview(session: Session, plan: ForkPlan, *, glyphs: Glyphs = UNICODE) -> list[str]:
    """What the planned file will hold, one line per item, to confirm before writing."""
    messages = [line for line in plan.lines[1:] if line.get("type") == "message"]
    first = next(
        (m for m in messages if isinstance(m.get("message"), dict) and m["message"].get("role") == "user"),
        None,
    )
    last = messages[-1] if messages else None
    lines = [
        f"{plan.entry_count} entries (the path from the root to {plan.leaf_id}, labels re-created)",
        f"cwd: {plan.header.get('cwd')}",
        f"new file: {plan.path}",
        f"parent: {plan.source_path}",
    ]
    labels = plan.labels
    lines.append(
        "labels: " + (", ".join(f"{label!r} on {target}" for target, label in labels) if labels else "none")
    )
    for title, line in (("first message", first), ("last message", last)):
        if line is not None:
            record = session.by_id.get(line["id"])
            text = (
                excerpt(session, record, 100, glyphs=glyphs)
                if record is not None
                else one_line(entry_text(line, glyphs=glyphs), 100, glyphs=glyphs)
            )
            lines.append(f"{title}: {text}")
    if not plan.has_conversation:
        lines.append(
            "note: no user or assistant message on this path; pi itself would not write the file yet"
        )
    return lines


def write_fork(plan: ForkPlan) -> str:
    """Write the planned file without ever replacing anything; returns its path.

    The bytes go to a temporary file in the target folder first, which is then hard-linked
    to the final name (a link fails if the name exists) and removed. A failure at any point
    leaves nothing behind.
    """
    from ..common.jsonout import encode_json

    data = b"".join(encode_json(line) + b"\n" for line in plan.lines)
    try:
        os.makedirs(plan.folder, exist_ok=True)
    except OSError as e:
        raise SessionError(f"cannot create the folder {plan.folder}: {e.strerror}") from None
    final = plan.path
    if os.path.lexists(final):
        raise SessionError(f"a file named {plan.file_name} already exists in {plan.folder}")
    temp = os.path.join(plan.folder, f".{plan.file_name}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError as e:
        raise SessionError(f"cannot create a file in {plan.folder}: {e.strerror}") from None
    try:
        try:
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(temp, final)
        except OSError as e:
            if e.errno == errno.EEXIST:
                raise SessionError(f"a file named {plan.file_name} already exists in {plan.folder}") from None
            if e.errno in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
                # No hard links here (some filesystems): create exclusively and copy instead.
                _exclusive_copy(data, final)
            else:
                raise
    except OSError as e:
        raise SessionError(f"could not write {final}: {e.strerror or e}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
    return final


def _exclusive_copy(data: bytes, target: str) -> None:
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        raise SessionError(f"a file named {os.path.basename(target)} already exists") from None
    try:
        try:
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        os.unlink(target)
        raise


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
