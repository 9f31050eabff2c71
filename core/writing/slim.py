"""A slim copy of a session: a fork of the path to a leaf (the original untouched) whose inline
images and tool outputs over a size are moved out to files in a folder beside the new file,
each replaced by a short text placeholder that names its file ("offload, don't strip")."""

from __future__ import annotations

import base64
import binascii
import contextlib
import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any

from ..common.jsonout import encode_json
from ..common.problems import SessionError
from ..session.session import Session
from .fork import ForkPlan, plan_fork, write_fork

DEFAULT_MAX_OUTPUT = 64 * 1024  # bytes of one tool output kept inline
_SUFFIXES = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}


@dataclass(frozen=True, slots=True)
class Moved:
    entry_id: str
    kind: str  # "image" or "output"
    bytes: int  # of the file written
    file: str  # its path

    def to_json(self) -> dict[str, Any]:
        return {"entry_id": self.entry_id, "kind": self.kind, "bytes": self.bytes, "file": self.file}


@dataclass(slots=True)
class SlimPlan:
    fork: ForkPlan
    folder: str  # where the moved contents go
    moved: list[Moved] = field(default_factory=list)
    payloads: list[bytes] = field(default_factory=list)  # aligned with `moved`
    bytes_before: int = 0  # a plain copy of the same path (a fork or clone)
    bytes_after: int = 0  # the slim file

    @property
    def path(self) -> str:
        return self.fork.path


def file_bytes(plan: ForkPlan) -> int:
    return sum(len(encode_json(line)) + 1 for line in plan.lines)


def plan_slim(
    session: Session,
    leaf_id: str,
    *,
    max_output: int = DEFAULT_MAX_OUTPUT,
    out: str | None = None,
) -> SlimPlan:
    """The slim copy of the path to `leaf_id` (raises UnknownEntryError); `out` names the new
    file (default: a fork's name beside the source)."""
    fork = plan_fork(session, leaf_id, folder=os.path.dirname(os.path.abspath(out)) if out else None)
    if out:
        fork = dataclasses.replace(fork, file_name=os.path.basename(out))
    stem = fork.path.removesuffix(".jsonl")
    plan = SlimPlan(fork, stem + ".slim", bytes_before=file_bytes(fork))
    lines = [fork.lines[0]]
    for line in fork.lines[1:]:
        lines.append(_slimmed(line, plan, max_output))
    plan.fork = dataclasses.replace(fork, lines=lines)
    plan.bytes_after = file_bytes(plan.fork)
    return plan


def _slimmed(line: dict[str, Any], plan: SlimPlan, max_output: int) -> dict[str, Any]:
    message = line.get("message") if line.get("type") == "message" else None
    if not isinstance(message, dict) or message.get("role") not in ("user", "toolResult"):
        return line
    content = message.get("content")
    if not isinstance(content, list):
        return line
    entry_id = str(line.get("id"))
    blocks: list[Any] = []
    changed = False
    for block in content:
        new = _moved_block(block, entry_id, message.get("role") == "toolResult", plan, max_output)
        changed = changed or new is not block
        blocks.append(new)
    if not changed:
        return line
    return {**line, "message": {**message, "content": blocks}}  # copies: the session's own stay


def _moved_block(block: Any, entry_id: str, is_result: bool, plan: SlimPlan, max_output: int) -> Any:
    if not isinstance(block, dict):
        return block
    if block.get("type") == "image" and isinstance(block.get("data"), str):
        try:
            data = base64.b64decode(block["data"], validate=True)
        except (binascii.Error, ValueError):
            return block  # not base64: left as it is
        mime = block.get("mimeType")
        suffix = _SUFFIXES.get(mime, ".bin") if isinstance(mime, str) else ".bin"
        what = f"image {mime}" if isinstance(mime, str) else "image"
        return _placeholder(plan, entry_id, "image", data, suffix, what) or block
    if is_result and block.get("type") == "text" and isinstance(block.get("text"), str):
        data = block["text"].encode("utf-8", "surrogatepass")
        if len(data) > max_output:
            return _placeholder(plan, entry_id, "output", data, ".txt", "tool output") or block
    return block


def _placeholder(plan: SlimPlan, entry_id: str, kind: str, data: bytes, suffix: str, what: str) -> Any:
    """The placeholder for `data` moved out, or None when it would not make the file smaller."""
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in entry_id)[:64] or "entry"
    name = f"{safe}-{len(plan.moved) + 1}{suffix}"
    file = os.path.join(plan.folder, name)
    text = f"[{what} of {len(data):,} bytes moved out by pi-sessions slim: {file}]"
    placeholder = {"type": "text", "text": text}
    if len(encode_json(placeholder)) >= len(encode_json(block_of(kind, data))):
        return None
    plan.moved.append(Moved(entry_id, kind, len(data), file))
    plan.payloads.append(data)
    return placeholder


def block_of(kind: str, data: bytes) -> dict[str, Any]:
    """About what the block held inline (for the size comparison)."""
    if kind == "image":
        return {"type": "image", "data": base64.b64encode(data).decode("ascii"), "mimeType": "image/png"}
    return {"type": "text", "text": data.decode("utf-8", "replace")}


def write_slim(plan: SlimPlan) -> str:
    """The moved contents first (a new folder, never over a file), then the new session file;
    returns its path. The source is never touched."""
    if os.path.lexists(plan.path):
        raise SessionError(f"{plan.path} exists: a slim copy never replaces a file")
    if not plan.moved:
        return write_fork(plan.fork)
    try:
        os.mkdir(plan.folder)
    except OSError as e:
        raise SessionError(f"cannot make {plan.folder}: {e.strerror or e}") from None
    written: list[str] = []
    try:
        for moved, data in zip(plan.moved, plan.payloads, strict=True):
            with open(moved.file, "xb") as f:
                written.append(moved.file)
                f.write(data)
        return write_fork(plan.fork)
    except (OSError, SessionError) as e:
        for path in written:  # nothing of a failed copy stays behind
            with contextlib.suppress(OSError):
                os.unlink(path)
        with contextlib.suppress(OSError):
            os.rmdir(plan.folder)
        if isinstance(e, SessionError):
            raise
        raise SessionError(f"cannot write the slim copy: {e.strerror or e}") from None
