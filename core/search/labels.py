"""Every label of every session, in one list, filterable as you type.

Labels resolve as pi resolves them (`labelsById`): label entries apply in file order, across
all branches; a later one on the same target replaces the label, and an empty or missing
label clears it. Only labels on entries the session holds are listed (pi's getLabel). Files
are read on demand; a file without the bytes `"label"` cannot hold a label entry and is
skipped unread (unless it spells ASCII with `\\u` escapes). `LabelIndex` remembers each file's
labels until its summary changes (the browser's labels list opens again at once).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..common.jsvalues import date_ms, js_string
from ..common.problems import SessionError, StaleFileError
from ..listing.summary import SessionSummary
from ..session.session import Session
from .in_session import TreePlaces, entry_segments
from .matching import SearchCancelled
from .query import collapse_whitespace

__all__ = ["LabelIndex", "LabelRow", "all_labels", "filter_labels", "session_labels"]

EXCERPT_CHARS = 200
_ESCAPED_ASCII = re.compile(rb"\\u00[2-7][0-9a-fA-F]")


@dataclass(frozen=True, slots=True)
class LabelRow:
    """One label: where it is and what it labels."""

    path: str
    session_id: str | None
    session_title: str  # the session's name, else its first message (what pi's picker shows)
    cwd: str
    entry_id: str  # the labelled entry
    label: Any  # as in the file (a string, unless someone wrote something else)
    timestamp: Any  # of the label entry that set it, as in the file
    on_active_path: bool
    branch_from: str | None  # off the active path: where the entry's branch leaves it
    excerpt: str  # the start of the labelled entry's text, on one line

    @property
    def text(self) -> str:
        return js_string(self.label)

    @property
    def timestamp_ms(self) -> float | None:
        return date_ms(self.timestamp)


def _entry_excerpt(session: Session, entry_id: str) -> str:
    record = session.by_id.get(entry_id)
    if record is None:
        return ""
    try:
        entry = session.entry_dict(record)
    except (StaleFileError, OSError, ValueError):
        return ""
    segments = entry_segments(entry, "deep")
    text = segments[0][1] if segments else f"({js_string(record.type)})"
    return collapse_whitespace(text[: EXCERPT_CHARS * 4])[:EXCERPT_CHARS]


def session_labels(session: Session, summary: SessionSummary | None = None) -> list[LabelRow]:
    """The labels of one session, in pi's order (the order they were first set)."""
    path = session.path or (summary.path if summary is not None else "")
    title = summary.title if summary is not None else (session.name or "")
    places = TreePlaces(session)
    rows: list[LabelRow] = []
    for target, label in session.labels.items():
        if not isinstance(target, str) or target not in session.by_id:
            continue
        on_path, fork = places.place(target)
        rows.append(
            LabelRow(
                path=path,
                session_id=session.session_id,
                session_title=title,
                cwd=session.cwd,
                entry_id=target,
                label=label,
                timestamp=session.label_timestamps.get(target),
                on_active_path=on_path,
                branch_from=fork,
                excerpt=_entry_excerpt(session, target),
            )
        )
    return rows


def _may_hold_labels(data: bytes) -> bool:
    return b'"label"' in data or (b"\\u" in data and _ESCAPED_ASCII.search(data) is not None)


def all_labels(
    summaries: Iterable[SessionSummary], cancelled: Callable[[], bool] | None = None
) -> Iterator[LabelRow]:
    """Every label of every session, sessions in the order given. Raises `SearchCancelled`
    when `cancelled()` says so (looked at before each file)."""
    for summary in summaries:
        if cancelled is not None and cancelled():
            raise SearchCancelled()
        try:
            with open(summary.path, "rb") as f:
                data = f.read()
        except OSError:
            continue
        if not _may_hold_labels(data):
            continue
        try:
            session = Session.from_bytes(data, summary.path)
        except SessionError:
            continue
        yield from session_labels(session, summary)


class LabelIndex:
    """Every label of the listed sessions, each file's read once until it changes (a summary
    object is new exactly when its file changed). For one worker thread at a time."""

    def __init__(self) -> None:
        self._files: dict[str, tuple[SessionSummary, list[LabelRow]]] = {}

    def read(
        self,
        summaries: Sequence[SessionSummary],
        cancelled: Callable[[], bool] | None = None,
    ) -> Iterator[tuple[int, list[LabelRow]]]:
        """(files read so far, the labels of the last one) for every file, in the order given.
        Raises `SearchCancelled` when `cancelled()` says so (looked at before each file)."""
        files = self._files
        for count, summary in enumerate(summaries, 1):
            if cancelled is not None and cancelled():
                raise SearchCancelled()
            known = files.get(summary.path)
            if known is None or known[0] is not summary:
                known = files[summary.path] = (summary, list(all_labels([summary])))
            yield count, known[1]
        listed = {summary.path for summary in summaries}
        for path in [p for p in files if p not in listed]:
            del files[path]  # not listed any more

    def labels_of(self, path: str) -> list[LabelRow]:
        """The labels of one file as last read (none if it was not read)."""
        known = self._files.get(path)
        return known[1] if known is not None else []


def filter_labels(rows: Sequence[LabelRow], query: str) -> list[LabelRow]:
    """Rows where every word of `query` (case-insensitive) is in the label, the session's
    title, the labelled entry's excerpt or the cwd; rows whose label holds them all first."""
    words = query.lower().split()
    if not words:
        return list(rows)
    in_label: list[LabelRow] = []
    elsewhere: list[LabelRow] = []
    for row in rows:
        label = row.text.lower()
        if all(w in label for w in words):
            in_label.append(row)
            continue
        haystack = f"{label}\n{row.session_title.lower()}\n{row.excerpt.lower()}\n{row.cwd.lower()}"
        if all(w in haystack for w in words):
            elsewhere.append(row)
    return in_label + elsewhere
