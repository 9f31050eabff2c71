"""pi's migration of legacy v1/v2 session files to v3, done in memory: the file is never written.

v1 entries have no ids: each gets one derived from the session id and its position (pi draws
random ones and rewrites the file; ours are the same on every read), its parent is the entry
before it, and a compaction's `firstKeptEntryIndex` (an index into pi's parsed array, which may
point at a later line) becomes `firstKeptEntryId`. v1 and v2 `hookMessage` roles become
`custom`. What changed is remembered per entry as a patch, applied again to an entry read
back by offset.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..common.jsvalues import js_number
from .records import EntryRecord, MessageHead

CURRENT_VERSION = 3


def header_version(value: Any) -> float:
    """`header.version ?? 1` as JavaScript compares it with numbers."""
    if value is None:
        return 1.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return js_number(value)
    if isinstance(value, str):
        try:
            return float(value.strip() or "0")
        except ValueError:
            return float("nan")
    return float("nan")


def needs_migration(version: float) -> bool:
    return version < CURRENT_VERSION


class Migration:
    """The running state of migrating one legacy file, line by line as it is read."""

    __slots__ = ("_ids", "_parsed_ids", "_patches", "_pending_kept", "_seed", "v1")

    def __init__(self, session_id: Any, version: float) -> None:
        self.v1 = version < 2
        self._seed = session_id if isinstance(session_id, str) else ""
        self._pending_kept: list[tuple[EntryRecord, int]] = []  # compactions with an index to resolve
        self._parsed_ids: dict[int, str | None] = {0: None}  # v1: parsed index -> id (None: a header)
        self._patches: dict[int, dict[str, Any]] = {}  # parsed index -> what migration changed
        self._ids: set[str] = set()

    def skip(self, parsed_index: int) -> None:
        """A parsed object that is not an entry (an extra header) still counts in v1 indexes."""
        self._parsed_ids[parsed_index] = None

    def migrate(self, record: EntryRecord, parsed_index: int, previous_id: Any) -> None:
        """Migrate one record in place; `previous_id` is the id of the record read before it."""
        patch: dict[str, Any] = {}
        if self.v1:
            record.id = self._v1_id(parsed_index)
            record.parentId = previous_id
            patch["id"] = record.id
            patch["parentId"] = record.parentId
            if record.type == "compaction" and _is_js_number(record.firstKeptEntryIndex):
                patch["-firstKeptEntryIndex"] = True
                self._pending_kept.append((record, parsed_index))
        self._parsed_ids[parsed_index] = record.id if self.v1 else None
        m = record.message
        if record.type == "message" and isinstance(m, MessageHead) and m.role == "hookMessage":
            record.message = msgspec.structs.replace(m, role="custom")  # (heads may be shared)
            patch["role"] = "custom"
        if patch:
            self._patches[parsed_index] = patch

    def _v1_id(self, parsed_index: int) -> str:
        # pi draws random ids here; ours are derived from the session id so every read agrees.
        import hashlib  # (only legacy v1 files need it)

        seed = f"{self._seed}:{parsed_index}"
        salt = 0
        while True:
            digest = hashlib.blake2b(
                f"{seed}:{salt}".encode("utf-8", "surrogatepass"), digest_size=4
            ).hexdigest()
            if digest not in self._ids:
                self._ids.add(digest)
                return digest
            salt += 1

    @property
    def has_pending(self) -> bool:
        return bool(self._pending_kept)

    def finish(self, parsed_count: int) -> None:
        """Resolve v1 `firstKeptEntryIndex` for what has been read (it may point at a later
        line: those stay pending until `parsed_count` reaches them)."""
        still: list[tuple[EntryRecord, int]] = []
        for record, parsed_index in self._pending_kept:
            index = record.firstKeptEntryIndex
            target_id: str | None = None
            if isinstance(index, float) and index.is_integer():
                index = int(index)  # JavaScript indexes an array with 3.0 as with 3
            if isinstance(index, int) and not isinstance(index, bool) and index >= 0:
                if index >= parsed_count:
                    still.append((record, parsed_index))  # may still arrive
                    continue
                target_id = self._parsed_ids.get(index)
            if target_id is not None:
                record.firstKeptEntryId = target_id
                self._patches[parsed_index]["firstKeptEntryId"] = target_id
        self._pending_kept = still

    def patch(self, value: dict[str, Any], parsed_index: int) -> None:
        """Apply to an entry read back by offset what migration changed in its record."""
        patch = self._patches.get(parsed_index)
        if not patch:
            return
        for key, new in patch.items():
            if key == "role":
                message = value.get("message")
                if isinstance(message, dict):
                    message["role"] = new
            elif key.startswith("-"):
                value.pop(key[1:], None)
            else:
                value[key] = new


def _is_js_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
