"""Every session under a sessions folder, listed as pi lists them (newest first)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from .listing import SessionSummary, summarize
from .locations import iter_session_files


@dataclass(slots=True)
class Listing:
    summaries: list[SessionSummary] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why it is not a session)


def sort_newest_first(summaries: list[SessionSummary]) -> None:
    """pi's order: `modified` newest first; ties by file mtime, then file name, both descending."""
    summaries.sort(key=lambda s: (s.modified_ms, s.mtime_ns, os.path.basename(s.path)), reverse=True)


def list_sessions(root: str, use_cache: bool = True) -> Listing:
    listing = Listing()
    for path in iter_session_files(root):
        summary, _, reason = summarize(path)
        if summary is None:
            listing.skipped.append((path, reason or "not a session"))
        else:
            listing.summaries.append(summary)
    sort_newest_first(listing.summaries)
    return listing
