"""Problems found while reading a session: reported with their line, never raised."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ProblemKind(StrEnum):
    MALFORMED_LINE = "malformed-line"
    NOT_AN_OBJECT = "not-an-object"
    INVALID_UTF8 = "invalid-utf8"
    PARTIAL_LAST_LINE = "partial-last-line"
    MISSING_ID = "missing-id"
    DUPLICATE_ID = "duplicate-id"
    EXTRA_HEADER = "extra-header"
    PARENT_CYCLE = "parent-cycle"
    MISSING_PARENT = "missing-parent"
    SELF_PARENT = "self-parent"
    BAD_MESSAGE = "bad-message"
    BAD_EDIT = "bad-context-edit"


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a session file. `line` is the 1-based physical line number."""

    kind: ProblemKind
    message: str
    line: int | None = None
    entry_id: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"kind": str(self.kind), "line": self.line, "entry_id": self.entry_id, "message": self.message}

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line is not None else ""
        return f"{where}{self.message}"


class SessionError(Exception):
    """A file that cannot be read as a pi session at all (shown as one clear line)."""


class UnknownEntryError(SessionError):
    """An entry id that the session does not hold."""


class StaleFileError(SessionError):
    """The file changed under us in a way that invalidates remembered byte offsets."""
