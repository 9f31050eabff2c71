"""Pins, archive marks and tags of sessions: the side file's content, a change to one session's
mark, and which sessions a sidebar filter (`tag:auth`, `is:pinned`, `is:archived`) keeps.

Pure: no file is read or written here (core/writing/marks_file.py does that, under a lock).
Marks are keyed by the header's session id, never by the path: pi may move or rename a file
and its mark follows it. The path last seen is kept only to say where the session was.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .summary import SessionSummary

MARKS_FILE = "marks.json"  # beside config.toml
MARKS_VERSION = 1
MAX_TAG = 64
_FILTER_WORD = re.compile(r"(?:tag:(\S+)|is:(pinned|archived))", re.IGNORECASE)


class MarkError(ValueError):
    """A tag that cannot be one, or a side file we would not dare to overwrite."""


@dataclass(frozen=True, slots=True)
class Mark:
    """One session's marks (nothing set: the session is not in the side file)."""

    pinned: bool = False
    archived: bool = False
    tags: tuple[str, ...] = ()  # sorted, each once
    path: str = ""  # where the session file was when last marked (not the key)

    @property
    def is_empty(self) -> bool:
        return not (self.pinned or self.archived or self.tags)

    def to_json(self) -> dict[str, Any]:
        return {"pinned": self.pinned, "archived": self.archived, "tags": list(self.tags), "path": self.path}


NO_MARK = Mark()


@dataclass(frozen=True, slots=True)
class Marks:
    """Every marked session, by session id."""

    sessions: Mapping[str, Mark] = field(default_factory=dict)

    def of(self, session_id: object) -> Mark:
        return self.sessions.get(session_id, NO_MARK) if isinstance(session_id, str) else NO_MARK

    @property
    def pinned(self) -> frozenset[str]:
        return frozenset(key for key, mark in self.sessions.items() if mark.pinned)

    @property
    def archived(self) -> frozenset[str]:
        return frozenset(key for key, mark in self.sessions.items() if mark.archived)

    def __bool__(self) -> bool:
        return bool(self.sessions)


NO_MARKS = Marks()


@dataclass(frozen=True, slots=True)
class MarkChange:
    """What one command changes (None: left as it is)."""

    pinned: bool | None = None
    archived: bool | None = None
    add_tags: tuple[str, ...] = ()
    remove_tags: tuple[str, ...] = ()


def normalize_tag(text: str) -> str:
    """A tag as stored and matched: lowercase, no `+`/`-`/`#` in front; raises MarkError when it
    is empty, too long, or holds whitespace or a control character (it could not be typed
    after `tag:` in a search, nor shown safely)."""
    tag = text.strip().lstrip("#").lower()
    if not tag:
        raise MarkError(f"not a tag: {text!r} (empty)")
    if len(tag) > MAX_TAG:
        raise MarkError(f"not a tag: {text!r} (longer than {MAX_TAG} characters)")
    if any(ch.isspace() or unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in tag):
        raise MarkError(f"not a tag: {text!r} (no spaces or control characters)")
    return tag


def parse_tag_changes(words: Iterable[str]) -> MarkChange:
    """`+auth -wip bug` as a change: `+x` or `x` adds, `-x` removes (the last word on a tag wins)."""
    wanted: dict[str, bool] = {}
    for word in words:
        remove = word.startswith("-")
        tag = normalize_tag(word[1:] if word[:1] in ("+", "-") else word)
        wanted.pop(tag, None)
        wanted[tag] = not remove
    return MarkChange(
        add_tags=tuple(t for t, add in wanted.items() if add),
        remove_tags=tuple(t for t, add in wanted.items() if not add),
    )


def apply_change(mark: Mark, change: MarkChange, path: str | None = None) -> Mark:
    tags = (set(mark.tags) | set(change.add_tags)) - set(change.remove_tags)
    return Mark(
        pinned=mark.pinned if change.pinned is None else change.pinned,
        archived=mark.archived if change.archived is None else change.archived,
        tags=tuple(sorted(tags)),
        path=mark.path if path is None else path,
    )


def with_change(marks: Marks, session_id: str, change: MarkChange, path: str | None = None) -> Marks:
    """`marks` with one session's mark changed (an empty mark leaves the file)."""
    sessions = dict(marks.sessions)
    mark = apply_change(marks.of(session_id), change, path)
    if mark.is_empty:
        sessions.pop(session_id, None)
    else:
        sessions[session_id] = mark
    return Marks(sessions)


# ---------------------------------------------------------------------- the side file's text
def parse_marks(text: str) -> Marks:
    """The side file's marks. Raises MarkError when it is not our JSON object (so that it is
    never overwritten by a write that would lose what it holds); an odd entry inside is
    skipped."""
    try:
        data = json.loads(text) if text.strip() else {}
    except (ValueError, RecursionError) as e:
        raise MarkError(f"not JSON: {e}") from None
    if not isinstance(data, dict):
        raise MarkError("not a JSON object")
    version = data.get("version", MARKS_VERSION)
    if not isinstance(version, int) or version > MARKS_VERSION:
        raise MarkError(f"written by a newer pi-sessions (version {version!r})")
    raw = data.get("sessions", {})
    if not isinstance(raw, dict):
        raise MarkError("'sessions' is not an object")
    sessions: dict[str, Mark] = {}
    for key, value in raw.items():
        mark = _mark_of(value)
        if mark is not None and not mark.is_empty:
            sessions[key] = mark
    return Marks(sessions)


def _mark_of(value: object) -> Mark | None:
    if not isinstance(value, dict):
        return None
    tags: set[str] = set()
    for tag in value.get("tags", ()) if isinstance(value.get("tags"), list) else ():
        if isinstance(tag, str):
            try:
                tags.add(normalize_tag(tag))
            except MarkError:
                continue
    path = value.get("path")
    return Mark(
        pinned=value.get("pinned") is True,
        archived=value.get("archived") is True,
        tags=tuple(sorted(tags)),
        path=path if isinstance(path, str) else "",
    )


def dump_marks(marks: Marks) -> str:
    sessions = {key: marks.sessions[key].to_json() for key in sorted(marks.sessions)}
    # ASCII: a lone surrogate in an id (from JSON) or a path (a non-UTF-8 name) survives as \uXXXX
    return json.dumps({"version": MARKS_VERSION, "sessions": sessions}, indent=1) + "\n"


# ---------------------------------------------------------------------- the sidebar's filters
@dataclass(frozen=True, slots=True)
class MarkFilter:
    """The mark words of a sidebar query: every tag must be there; `is:pinned` keeps pinned
    sessions; `is:archived` keeps archived ones (without it archived ones are left out)."""

    tags: tuple[str, ...] = ()
    pinned: bool = False
    archived: bool = False

    def keeps(self, mark: Mark) -> bool:
        if mark.archived != self.archived:
            return False
        if self.pinned and not mark.pinned:
            return False
        return all(tag in mark.tags for tag in self.tags)


DEFAULT_FILTER = MarkFilter()  # what the sidebar lists: every session not archived


def split_filter(text: str) -> tuple[str, MarkFilter | None]:
    """The query without its mark words, and the filter they make (None: there were none).
    A `re:` query is left whole: its pattern runs to the end of the line."""
    if text.lstrip().startswith("re:"):
        return text, None
    tags: list[str] = []
    pinned = archived = False
    kept: list[str] = []
    for word in text.split():
        found = _FILTER_WORD.fullmatch(word)
        if found is None:
            kept.append(word)
        elif found.group(1) is not None:
            try:
                tags.append(normalize_tag(found.group(1)))
            except MarkError:
                kept.append(word)
        elif found.group(2).lower() == "pinned":
            pinned = True
        else:
            archived = True
    if not tags and not pinned and not archived:
        return text, None
    return " ".join(kept), MarkFilter(tuple(tags), pinned, archived)


def kept_summaries(
    summaries: Iterable[SessionSummary], marks: Marks, wanted: MarkFilter = DEFAULT_FILTER
) -> list[SessionSummary]:
    """The sessions `wanted` keeps (the default: all but the archived ones)."""
    summaries = summaries if isinstance(summaries, list) else list(summaries)
    if not marks and wanted == DEFAULT_FILTER:
        return summaries  # nothing marked: everything, at no cost
    mark_of = marks.of
    return [s for s in summaries if wanted.keeps(mark_of(s.id))]
