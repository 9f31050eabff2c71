"""One session file in memory: entries by id, labels, name, default leaf, totals; the facade.

`Session.open(path)` reads the file once. `refresh()` reads only the bytes appended since, in
two halves: `prepare` reads and decodes into a `SessionUpdate` without changing the session
(fit for a worker thread), `apply` takes that in and returns one `SessionDelta`
(core/session/delta.py); a truncated or replaced file is read again. The session holds the
state and answers the questions; the work on it is done by its collaborators, one job each:
taking decoded lines in (core/session/ingest.py), keeping it current (core/session/refresh.py),
reading bodies back through its cache (core/session/read_back.py) and its tree
(core/session/tree.py). A legacy v1/v2 file is migrated in memory (core/reading/migration.py:
the file is never written). Where pi would silently misbehave (duplicate ids) the session
reports a problem.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain
from typing import Any

from ..common.gcpause import paused_gc
from ..common.problems import Problem, ProblemKind, SessionError, UnknownEntryError
from ..reading.growth import Growth, ReadMark, Stamp, mark_of, mark_read_back
from ..reading.lines import ByteSource, BytesSource, FileSource, ReadResult, decode_json, read_values
from ..reading.records import EntryRecord, HeaderLine, decode_entries, decode_entry_at, session_name_of
from . import read_back
from .delta import AppendResult, SessionDelta
from .ingest import ingest_lines, take_header
from .refresh import SessionUpdate, read_update, take_update, version_of
from .state import SessionState, Totals

TITLE_SLOT_NOTE = "oh-my-pi title line before the header (pi refuses it)"

__all__ = ["AppendResult", "Session", "SessionDelta", "SessionUpdate", "Totals", "session_name_of"]


# Totals are remembered at path positions p with p & TOTALS_EVERY == TOTALS_EVERY (every 64th).
TOTALS_EVERY = 63


class Session(SessionState):
    """A pi session read from a file (or bytes), kept current by `refresh()`."""

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, path: str | os.PathLike[str], cache_entries: int = 512) -> Session:
        p = os.path.abspath(os.fspath(path))
        if not os.path.exists(p):
            raise SessionError(f"no such file: {p}")
        if os.path.isdir(p):
            raise SessionError(f"is a folder, not a session file: {p}")
        session = cls(FileSource(p), p, cache_entries)
        try:
            session._load()
        except OSError as e:
            raise SessionError(f"cannot read {p}: {e.strerror or e}") from None
        return session

    @classmethod
    def from_bytes(cls, data: bytes, path: str | None = None) -> Session:
        session = cls(BytesSource(data), path, cache_entries=1 << 30)
        session._load()
        return session

    def _load(self, data: bytes | None = None, stamp: Stamp | None = None) -> None:
        """Read the whole file (or `data`, all of its bytes, with its `stamp`)."""
        source: ByteSource = self.source
        if data is not None:
            source = BytesSource(data)
        elif isinstance(self.source, FileSource):
            st = os.stat(self.source.path)  # before reading: a later look sees what came after
            stamp = Stamp.of(st)
        with paused_gc():
            result = read_values(
                source,
                decode_entry_at,
                end=stamp.size if stamp is not None else None,
                decode_chunk=decode_entries,
            )
            try:
                self._read_all(result)
            finally:
                self._mark = self._mark_after_load(data, stamp)

    def _read_all(self, result: ReadResult[EntryRecord | HeaderLine]) -> None:
        r = result
        self.end_offset, self.end_line, self.pending_bytes = r.end_offset, r.end_line, r.pending_bytes
        self.problems.extend(result.problems)
        lines = result.lines
        if not lines:
            if not self._only_blank():
                raise SessionError("not a pi session: no line of it is valid JSON")
            return  # empty (or still being written): a session without a header yet
        if len(lines) > 1 and _is_title_slot(lines[0], lines[1]):  # (oh-my-pi: see _title_of_slot)
            self.name = _title_of_slot(self.source, lines.pop(0), self.problems)
        take_header(self, lines[0])
        # In place, not a copy: at the peak of an open (100,000 records) each list is 0.8 MB,
        # and once taken in the records are the session's (the tree is built from those).
        del lines[0]
        ingest_lines(self, lines)
        lines.clear()
        if self._migration is not None:
            self._migration.finish(self.parsed_count)
        self.build_tree()

    def _mark_after_load(self, data: bytes | None, stamp: Stamp | None) -> ReadMark | None:
        if stamp is None or not isinstance(self.source, FileSource):
            return None
        if data is not None:
            return mark_of(data, self.end_offset, stamp)
        return mark_read_back(self.source.read, self.end_offset, stamp)

    def _only_blank(self) -> bool:
        return not any(p.kind != ProblemKind.PARTIAL_LAST_LINE for p in self.problems)

    # ------------------------------------------------------------------ the tree
    def winners(self) -> Iterator[EntryRecord]:
        """Records that own their id (a later duplicate shadows an earlier one), file order."""
        return self.tree.winners(self.records)

    @property
    def roots(self) -> list[str]:
        return self.tree.roots

    def timestamp_of(self, record: EntryRecord) -> Any:
        """The record's `timestamp` as in its line (see `stamps`)."""
        return self.tree.timestamp_of(record)

    def ts_ms(self, record: EntryRecord) -> float | None:
        """`new Date(timestamp).getTime()`, None for NaN."""
        return self.tree.ts_ms(record)

    def children_of(self, entry_id: str) -> Sequence[str]:
        """An entry's children in pi's order (never change what is returned)."""
        return self.tree.children_of(entry_id)

    def child_count(self, entry_id: str) -> int:
        return self.tree.child_count(entry_id)

    def children_lists(self) -> dict[str, list[str]]:
        """Every parent's children (fresh lists), parents in the order they got a first child."""
        return self.tree.children_lists()

    def count_below(self, starts: Iterable[str]) -> int:
        """Entries in the subtrees under `starts` (themselves included), iteratively."""
        return self.tree.count_below(starts)

    # ------------------------------------------------------------------ live updates
    def refresh(self) -> SessionDelta:
        """Read what was appended since the last read; reload if the file was replaced or cut.
        What it changed is also handed on by the next `apply` (the panes' path), so a caller
        that refreshes on its own (core/writing/append.py) never leaves the panes behind."""
        delta = take_update(self, self.prepare())
        if delta.changed:
            self._unseen = delta if self._unseen is None else self._unseen.then(delta)
        return delta

    @property
    def has_unseen_changes(self) -> bool:
        """`refresh()` changed something that no `apply` has handed on yet."""
        return self._unseen is not None

    @property
    def read_mark(self) -> ReadMark | None:
        """Where this session stopped reading its file (None: it is not read from a file)."""
        return self._mark

    def prepare(self, growth: Growth | None = None, *, renamed: bool = False) -> SessionUpdate:
        """The reading half of `refresh`: what the file gained, read and decoded, not applied.
        It leaves the session as it is, so it may run in a worker thread while the session
        is drawn (nothing else may change the session meanwhile). `growth` is a look at the
        file that judged `read_mark` (the watcher's, shared with the store); without one the
        file is looked at here. `renamed`: the file was renamed since (which gave it a new
        ctime: only its size, mtime and bytes tell). Raises SessionError when the file is
        gone or no session."""
        return read_update(self, self._reread, growth, renamed=renamed)

    def _reread(self, path: str, data: bytes, stamp: Stamp) -> Session:
        """A session of `data`, the whole file at `path` read again (replaced or cut)."""
        fresh = Session(FileSource(path), path, self._cache_limit)
        fresh._load(data, stamp)
        return fresh

    def apply(self, update: SessionUpdate) -> SessionDelta:
        """The changing half of a refresh: take in what `prepare` read (cheap: no file work).
        Returns what changed since the last `apply`, a `refresh()` in between included."""
        if update.based_on != version_of(self):
            update = self.prepare()  # a refresh came first: this was read for the past
        unseen, self._unseen = self._unseen, None
        delta = take_update(self, update)
        return unseen.then(delta) if unseen is not None else delta

    # ------------------------------------------------------------------ bodies (core/session/read_back.py)
    def entry_dict(self, record: EntryRecord) -> dict[str, Any]:
        """The full entry as pi holds it (after migration), read back by byte offset."""
        return read_back.entry_dict(self, record)

    def entry_dicts(self, records: Sequence[EntryRecord]) -> Iterator[dict[str, Any]]:
        """`entry_dict` of each of `records`, in their order, for walking many at once: those
        that lie together in the file are read together, and what is read is not cached (a
        walk over a whole path would push out what the panes keep). (Handed on a read at a
        time: no generator step per entry.)"""
        return chain.from_iterable(self.entry_dict_runs(records))

    def entry_message_runs(self, records: Sequence[EntryRecord]) -> Iterator[list[Any]]:
        """The `message` of each of `records` (message entries), in order, a read at a time
        as `entry_dict_runs` gives bodies; uncached, only the messages are decoded."""
        return read_back.entry_message_runs(self, records)

    def entry_dict_runs(self, records: Sequence[EntryRecord]) -> Iterator[list[dict[str, Any]]]:
        """`entry_dicts`, a read at a time: lists that together hold the bodies of `records`,
        in order (for callers that take a run in one step)."""
        return read_back.entry_dict_runs(self, records)

    # ------------------------------------------------------------------ queries
    def get(self, entry_id: str) -> EntryRecord:
        record = self.by_id.get(entry_id)
        if record is None:
            raise UnknownEntryError(f"no entry with id {entry_id!r} in this session")
        return record

    def parent_of(self, record: EntryRecord) -> EntryRecord | None:
        """The entry above `record` on its path (None at a root, a cut cycle included)."""
        return self.tree.parent_of(record)

    def path_to(self, leaf_id: str) -> list[EntryRecord]:
        """Root-to-leaf path (pi's buildSessionPath), finite even on a parent cycle. Shared
        with the tree (it starts the next walk from there): read it, never change it."""
        return self.tree.path_to(leaf_id)

    def totals_along(self, path: list[EntryRecord]) -> Totals:
        """Tokens and cost spent from the root to the end of `path` (a `path_to` result).

        Remembered for every 64th entry of a path (and its end), so moving the selection
        along a conversation costs a few dozen steps instead of a walk over the whole path."""
        memo = self._totals_to
        start = len(path)
        while start > 0 and path[start - 1].index not in memo:
            start -= 1
        tokens, cost = memo[path[start - 1].index] if start > 0 else (0.0, 0.0)
        for position in range(start, len(path)):
            record = path[position]
            tokens += record.tokens
            cost += record.cost
            if position & TOTALS_EVERY == TOTALS_EVERY:
                memo[record.index] = (tokens, cost)
        if path:
            memo[path[-1].index] = (tokens, cost)
        return Totals(tokens, cost)

    def preorder(self) -> list[str]:
        return self.tree.preorder()

    def entry_ids(self) -> list[str]:
        return [r.id for r in self.records]

    @property
    def migrated(self) -> bool:
        """A legacy v1 or v2 file, migrated in memory as pi does (its bodies are patched as read)."""
        return self._migration is not None

    @property
    def is_v1(self) -> bool:
        """A legacy v1 file: entry ids are ours (pi draws random ones and rewrites the file)."""
        return self._migration is not None and self._migration.v1

    @property
    def is_empty(self) -> bool:
        return self.header is None

    @property
    def cwd(self) -> str:
        cwd = self.header.get("cwd") if self.header else None
        return cwd if isinstance(cwd, str) else ""

    @property
    def session_id(self) -> str | None:
        sid = self.header.get("id") if self.header else None
        return sid if isinstance(sid, str) else None


def _is_title_slot(line: EntryRecord | HeaderLine, after: EntryRecord | HeaderLine) -> bool:
    return (
        not isinstance(line, HeaderLine)
        and line.type == "title"
        and not isinstance(line.id, str)
        and isinstance(after, HeaderLine)
    )


def _title_of_slot(source: ByteSource, line: EntryRecord | HeaderLine, problems: list[Problem]) -> str | None:
    """oh-my-pi's title slot, the line before its header (`{"type":"title","title":...}`,
    padded to a fixed width and rewritten in place): the session's title (until a name
    entry). pi refuses such a file; here it is read, and a note says so."""
    problems.append(Problem(ProblemKind.EXTRA_HEADER, TITLE_SLOT_NOTE, line.line))
    try:
        value = decode_json(source.read(line.offset, line.length))
    except (OSError, ValueError):
        return None
    title = value.get("title") if isinstance(value, dict) else None
    return title.strip() if isinstance(title, str) and title.strip() else None
