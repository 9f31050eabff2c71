"""One session file in memory: entries by id, labels, name, default leaf, totals; the facade.

`Session.open(path)` reads the file once. `refresh()` reads only the bytes appended since, in
two halves: `prepare` reads and decodes into a `SessionUpdate` without changing the session
(fit for a worker thread), `apply` takes that in and returns one `SessionDelta`
(core/session/delta.py); a truncated or
replaced file is read again. The session holds its tree (core/session/tree.py), its legacy v1/v2
migration (core/reading/migration.py, in memory: the file is never written) and its cache of bodies
read back (core/reading/bodies.py), and answers for them. Where pi would silently misbehave
(duplicate ids) the session reports a problem. (A little over 450 lines: reading a file,
taking in its lines and the two halves of a refresh change the same state, kept together.)
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import chain, compress, count
from operator import attrgetter
from typing import Any

from msgspec import UNSET

from ..common.gcpause import paused_gc
from ..common.jsvalues import js_truthy
from ..common.problems import Problem, ProblemKind, SessionError, UnknownEntryError
from ..reading.bodies import BodyCache, read_body, read_body_runs, read_message_runs
from ..reading.growth import (
    Growth,
    GrowthSource,
    ReadMark,
    Stamp,
    Verdict,
    look_at,
    mark_of,
    mark_read_back,
    read_growth,
)
from ..reading.lines import (
    ByteSource,
    BytesSource,
    FileSource,
    ReadResult,
    decode_json,
    read_values,
)
from ..reading.migration import CURRENT_VERSION, Migration, header_version, needs_migration
from ..reading.records import (
    CONTENT_ABSENT,
    EntryRecord,
    HeaderLine,
    MessageHead,
    MessageRecord,
    decode_entries,
    decode_entry_at,
    session_name_of,
)
from .delta import AppendResult, SessionDelta
from .tree import STAMP_WIDTH, TREE_PROBLEMS, SessionTree

TITLE_SLOT_NOTE = "oh-my-pi title line before the header (pi refuses it)"

__all__ = ["AppendResult", "Session", "SessionDelta", "SessionUpdate", "Totals", "session_name_of"]

_BLANK_STAMP = bytes(STAMP_WIDTH)


@dataclass(slots=True)
class Totals:
    tokens: float = 0.0
    cost: float = 0.0

    def add(self, record: EntryRecord) -> None:
        self.tokens += record.tokens
        self.cost += record.cost


@dataclass(slots=True)
class SessionUpdate:
    """A refresh read and decoded but not applied yet (`Session.prepare`, then `apply`)."""

    based_on: tuple[int, int]  # (generation, end offset) of the session it was read for
    mark: ReadMark | None = None  # where the session stops reading once this is applied
    lines: ReadResult[EntryRecord | HeaderLine] | None = None  # appended lines, decoded
    fresh: Session | None = None  # the whole file read again (it was replaced or truncated)
    truncated: bool = False


def _duplicate_id(rid: str, first_line: int, line: int) -> Problem:
    return Problem(
        ProblemKind.DUPLICATE_ID, f"id {rid} also used on line {first_line}; the later entry wins", line, rid
    )


_index_of = attrgetter("index")

# Totals are remembered at path positions p with p & TOTALS_EVERY == TOTALS_EVERY (every 64th).
TOTALS_EVERY = 63


class Session:
    """A pi session read from a file (or bytes), kept current by `refresh()`."""

    def __init__(self, source: ByteSource, path: str | None = None, cache_entries: int = 512) -> None:
        self.source = source
        self.path = path
        self._cache_limit = cache_entries
        self.tree_version = 0  # counts tree builds: what was derived from an older tree is stale
        self._reset()

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

    def _reset(self) -> None:
        self.header: dict[str, Any] | None = None
        self.header_line = 0
        self.records: list[EntryRecord] = []
        self.by_id: dict[str, EntryRecord] = {}
        # A message's timestamp as pi writes it (24 ASCII characters) is kept here, at
        # STAMP_WIDTH * its record index, instead of as a str of its own (100,000 took 7.6 MiB);
        # every other record has a blank slot and keeps its timestamp.
        self.stamps = bytearray()
        self.tree = SessionTree(self.by_id, self.records, self.stamps)
        self.labels: dict[Any, Any] = {}
        self.edit_counts: dict[str, int] = {}  # entry id -> context edits that target it
        self.label_timestamps: dict[Any, Any] = {}
        self.name: str | None = None
        self.default_leaf: str | None = None
        self.problems: list[Problem] = []
        self.totals = Totals()
        self.system_prompt_entries = 0  # system messages and compaction checkpoints in the file
        self.type_counts: dict[Any, int] = {}  # entries per type (lets walks skip what is absent)
        self._totals_to: dict[int, tuple[float, float]] = {}  # record index -> totals root..record
        self.end_offset = 0
        self.end_line = 1
        self.pending_bytes = 0
        self.parsed_count = 0  # objects pi's parser would hold, header included
        self.generation = getattr(self, "generation", -1) + 1
        self._mark: ReadMark | None = None  # where reading stopped (None: not a file)
        self._unseen: SessionDelta | None = None  # what refresh() changed since the last apply()
        self._migration: Migration | None = None  # a legacy file, migrated as it is read
        # Bodies read back stay cached up to this many bytes of JSON (a big tool output is MBs).
        byte_limit = 32 * 1024 * 1024 if self._cache_limit < (1 << 20) else 1 << 62
        self._bodies = BodyCache(self._cache_limit, byte_limit)
        self._bodies_kept = False  # a body was ever put in the cache (else none is looked up)
        self.last_was_duplicate = False

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
        self._take_header(lines[0])
        # In place, not a copy: at the peak of an open (100,000 records) each list is 0.8 MB,
        # and once taken in the records are the session's (the tree is built from those).
        del lines[0]
        self._ingest_many(lines)
        lines.clear()
        if self._migration is not None:
            self._migration.finish(self.parsed_count)
        self._build_tree()

    def _mark_after_load(self, data: bytes | None, stamp: Stamp | None) -> ReadMark | None:
        if stamp is None or not isinstance(self.source, FileSource):
            return None
        if data is not None:
            return mark_of(data, self.end_offset, stamp)
        return mark_read_back(self.source.read, self.end_offset, stamp)

    def _only_blank(self) -> bool:
        return not any(p.kind != ProblemKind.PARTIAL_LAST_LINE for p in self.problems)

    def _take_header(self, line: EntryRecord | HeaderLine) -> None:
        value = line.value if isinstance(line, HeaderLine) else None
        if value is None or value.get("type") != "session" or not isinstance(value.get("id"), str):
            what = value.get("type") if value is not None else getattr(line, "type", None)
            raise SessionError(
                f"not a pi session: the first entry (line {line.line}) is "
                + (f"of type {what!r}" if isinstance(what, str) else "not a session header")
                + ", not a session header"
            )
        self.header = dict(value)
        self.header_line = line.line
        self.parsed_count = 1
        version = header_version(value.get("version"))
        if needs_migration(version):
            self._migration = Migration(value.get("id"), version)
            self.header["version"] = CURRENT_VERSION

    # ------------------------------------------------------------------ ingesting records
    def _ingest(self, line: EntryRecord | HeaderLine) -> EntryRecord | None:
        """Take in one decoded line; the record it adds (None: none)."""
        added = self._ingest_many([line])
        return added[0] if added else None

    def _ingest_many(self, lines: list[EntryRecord | HeaderLine]) -> list[EntryRecord]:
        """Take in decoded lines in file order; the records they add (the session's own list
        when it had none: never change it). One loop for a whole file (the hot state in
        locals): opening a session spends its Python time here."""
        records, by_id, problems, migration = self.records, self.by_id, self.problems, self._migration
        stamps, width, blank, unset = self.stamps, STAMP_WIDTH, _BLANK_STAMP, UNSET
        type_counts = self.type_counts
        tokens, cost = self.totals.tokens, self.totals.cost
        parsed_index = self.parsed_count - 1
        system_prompts = 0
        first_added = len(records)
        messages = 0  # plain message records taken in on the fast path (counted once at the end)
        message_record, message_head, str_ = MessageRecord, MessageHead, str
        previous: EntryRecord | None = None
        last_id: Any = UNSET  # the id of the record taken in last on the fast path (it owns that id)
        for record in lines:
            parsed_index += 1
            if record.__class__ is message_record and migration is None:
                # Nine lines in ten: a plain message (no system message field, not a label,
                # name or edit), taken in as the general path below would.
                rid = record.id
                m = record.message
                if rid.__class__ is str_ and m.__class__ is message_head:
                    if m.role == "system":
                        system_prompts += 1
                    index = len(records)
                    if index > 1:
                        # The same number is, as a rule, the line of the record two back (the
                        # header is line 1): one int object for both (100,000 took 2.7 MiB).
                        line = records[index - 2].line
                        if line == index:
                            index = line
                    record.index = index
                    records.append(record)
                    stamp = record.timestamp
                    if stamp.__class__ is str_ and len(stamp) == width and stamp.isascii():
                        stamps += stamp.encode()
                        record.timestamp = unset
                    else:
                        stamps += blank
                    parent = record.parentId
                    if parent == last_id:  # (a conversation: the entry before is the parent)
                        record.parentId = last_id
                    elif parent.__class__ is str_:
                        above = by_id.get(parent)
                        if above is not None:
                            record.parentId = above.id
                    previous = by_id.get(rid)
                    if previous is not None:
                        problems.append(_duplicate_id(rid, previous.line, record.line))
                    by_id[rid] = record
                    last_id = rid
                    tokens += record.tokens
                    cost += record.cost
                    messages += 1
                    continue
            if isinstance(record, HeaderLine):
                # A second "session" line: pi ignores it everywhere except when counting v1 indexes.
                if migration is not None:
                    migration.skip(parsed_index)
                problems.append(
                    Problem(ProblemKind.EXTRA_HEADER, "extra session header ignored", record.line)
                )
                continue
            if migration is not None:  # (only migration needs where pi's parser holds it)
                record.parsed_index = parsed_index
                migration.migrate(record, parsed_index, records[-1].id if records else None)
            rid = record.id
            if not isinstance(rid, str):
                problems.append(
                    Problem(
                        ProblemKind.MISSING_ID,
                        f"{record.type!s} entry without a string id skipped",
                        record.line,
                    )
                )
                continue
            kind = record.type
            system = record.has_system_message
            if kind == "message":
                m = record.message
                if not isinstance(m, MessageHead):
                    problems.append(
                        Problem(
                            ProblemKind.BAD_MESSAGE,
                            "message entry without a message object",
                            record.line,
                            rid,
                        )
                    )
                elif m.role == "system":
                    system = True
            elif kind == "context_edit" and record.replacement_kind == CONTENT_ABSENT:
                problems.append(
                    Problem(
                        ProblemKind.BAD_EDIT,
                        "context edit without a replacement: ignored (pi would stop with an error)",
                        record.line,
                        rid,
                    )
                )
            if system:
                system_prompts += 1
            record.index = len(records)
            records.append(record)
            stamps += blank
            parent = record.parentId
            if parent.__class__ is str:
                above = by_id.get(parent)
                if above is not None:
                    record.parentId = above.id  # the same string, kept once
            previous = by_id.get(rid)
            if previous is not None:
                problems.append(_duplicate_id(rid, previous.line, record.line))
            by_id[rid] = record
            tokens += record.tokens
            cost += record.cost
            if kind.__class__ is str:
                type_counts[kind] = type_counts.get(kind, 0) + 1
            else:
                with contextlib.suppress(TypeError):  # an unhashable "type" value: nothing to count
                    type_counts[kind] = type_counts.get(kind, 0) + 1
            if kind == "label":
                self._apply_label(record)
            elif kind == "session_info":
                self.name = session_name_of(record.name)
            elif kind == "context_edit" and isinstance(record.targetId, str):
                self.edit_counts[record.targetId] = self.edit_counts.get(record.targetId, 0) + 1
        if messages:
            type_counts["message"] = type_counts.get("message", 0) + messages
        added = records[first_added:] if first_added else records  # (read, never changed)
        self.parsed_count = parsed_index + 1
        self.totals.tokens, self.totals.cost = tokens, cost
        self.system_prompt_entries += system_prompts
        if added:
            self.default_leaf = added[-1].id
            self.last_was_duplicate = previous is not None
        return added

    def _apply_label(self, record: EntryRecord) -> None:
        target = record.targetId
        try:
            hash(target)
        except TypeError:
            return
        if js_truthy(record.label):
            self.labels[target] = record.label
            self.label_timestamps[target] = record.timestamp
        else:
            self.labels.pop(target, None)
            self.label_timestamps.pop(target, None)

    # ------------------------------------------------------------------ the tree
    def winners(self) -> Iterator[EntryRecord]:
        """Records that own their id (a later duplicate shadows an earlier one), file order."""
        return self.tree.winners(self.records)

    def _build_tree(self) -> None:
        # Paths to existing entries may change: what was derived from them goes.
        self.tree_version += 1
        self._totals_to = {}
        self.problems = [p for p in self.problems if p.kind not in TREE_PROBLEMS]
        self.problems.extend(self.tree.build(self.records))

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
        delta = self._take(self.prepare())
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

    @property
    def _version(self) -> tuple[int, int]:
        return self.generation, self.end_offset

    def prepare(self, growth: Growth | None = None, *, renamed: bool = False) -> SessionUpdate:
        """The reading half of `refresh`: what the file gained, read and decoded, not applied.
        It leaves the session as it is, so it may run in a worker thread while the session
        is drawn (nothing else may change the session meanwhile). `growth` is a look at the
        file that judged `read_mark` (the watcher's, shared with the store); without one the
        file is looked at here. `renamed`: the file was renamed since (which gave it a new
        ctime: only its size, mtime and bytes tell). Raises SessionError when the file is
        gone or no session."""
        mark = self._mark
        if renamed and mark is not None:
            mark = replace(mark, ctime_ns=-1)
        if mark is None or not isinstance(self.source, FileSource):
            return SessionUpdate(self._version)
        path = self.source.path
        if growth is None:
            growth = look_at(path, [mark])
        try:
            verdict = growth.verdict(mark)
        except KeyError:  # that look did not read what this session needs to judge it
            return self.prepare(read_growth(growth.path, [mark]), renamed=renamed)
        if verdict is Verdict.UNCHANGED:
            return SessionUpdate(self._version, mark=mark.advanced(b"", growth.stamp))
        if verdict is Verdict.GREW:
            lines = read_values(
                GrowthSource(growth),
                decode_entry_at,
                self.end_offset,
                self.end_line,
                growth.size,
                decode_chunk=decode_entries,
            )
            consumed = growth.span(self.end_offset, lines.end_offset)
            return SessionUpdate(self._version, mark.advanced(consumed, growth.stamp), lines)
        path = growth.path  # (the file may have been renamed since the session was opened)
        fresh = Session(FileSource(path), path, self._cache_limit)
        try:
            fresh._load(growth.since(0), growth.stamp)
        except SessionError as e:
            raise SessionError(f"{e} ({path} was rewritten)") from None
        cut = growth.stamp.inode == mark.inode and growth.size < self.end_offset
        return SessionUpdate(self._version, fresh=fresh, truncated=cut)

    def apply(self, update: SessionUpdate) -> SessionDelta:
        """The changing half of a refresh: take in what `prepare` read (cheap: no file work).
        Returns what changed since the last `apply`, a `refresh()` in between included."""
        if update.based_on != self._version:
            update = self.prepare()  # a refresh came first: this was read for the past
        unseen, self._unseen = self._unseen, None
        delta = self._take(update)
        return unseen.then(delta) if unseen is not None else delta

    def _take(self, update: SessionUpdate) -> SessionDelta:
        delta = SessionDelta(previous_leaf=self.default_leaf)
        if update.fresh is not None:
            self._adopt(update.fresh)
            delta.reloaded, delta.truncated = True, update.truncated
            return delta
        if update.mark is not None:
            self._mark = update.mark
        result = update.lines
        if result is None:
            return delta
        self.end_offset, self.end_line, self.pending_bytes = (
            result.end_offset,
            result.end_line,
            result.pending_bytes,
        )
        self.problems = [p for p in self.problems if p.kind != ProblemKind.PARTIAL_LAST_LINE]
        self.problems.extend(result.problems)
        lines = iter(result.lines)
        if self.header is None:
            first = next(lines, None)
            if first is None:
                return delta
            self._take_header(first)
            delta.header_appeared = True
        rebuild = False
        for line in lines:
            record = self._ingest(line)
            if record is None:
                continue
            delta.new_records.append(record)
            if not rebuild:
                attached, problem = (False, None) if self.last_was_duplicate else self.tree.attach(record)
                if problem is not None:
                    self.problems.append(problem)
                rebuild = not attached
        if self._migration is not None and self._migration.has_pending:
            self._migration.finish(self.parsed_count)
        if rebuild:
            self._build_tree()
            delta.tree_rebuilt = True
        return delta

    def _adopt(self, fresh: Session) -> None:
        """Become `fresh` (the file read again), staying the object everyone holds."""
        source, path, generation, tree_version = self.source, self.path, self.generation, self.tree_version
        self.__dict__.update(fresh.__dict__)
        self.source, self.path = source, path
        self.generation = generation + 1
        self.tree_version = tree_version + 1  # what was derived from the old tree is stale

    # ------------------------------------------------------------------ reading bodies back
    def entry_dict(self, record: EntryRecord) -> dict[str, Any]:
        """The full entry as pi holds it (after migration), read back by byte offset."""
        # Cached by index: only a record of this reading may use it (one kept from before a
        # reload has the index of some other entry now).
        current = record.index < len(self.records) and self.records[record.index] is record
        cached = self._bodies.get(record.index) if current else None
        if cached is not None:
            return cached
        value = read_body(self.source, record, self._migration)
        if current:
            self._bodies.put(record.index, value, record.length)
            self._bodies_kept = True
        return value

    def entry_dicts(self, records: Sequence[EntryRecord]) -> Iterator[dict[str, Any]]:
        """`entry_dict` of each of `records`, in their order, for walking many at once: those
        that lie together in the file are read together, and what is read is not cached (a
        walk over a whole path would push out what the panes keep). (Handed on a read at a
        time: no generator step per entry.)"""
        return chain.from_iterable(self.entry_dict_runs(records))

    def entry_message_runs(self, records: Sequence[EntryRecord]) -> Iterator[list[Any]]:
        """The `message` of each of `records` (message entries), in order, a read at a time
        as `entry_dict_runs` gives bodies; uncached, only the messages are decoded."""
        if self._migration is not None:
            for bodies in self.entry_dict_runs(records):
                yield [body.get("message") for body in bodies]
            return
        for run, cached in self._split_at_cached(records):
            if cached is not None:
                yield [cached.get("message")]
            else:
                yield from read_message_runs(self.source, run)

    def entry_dict_runs(self, records: Sequence[EntryRecord]) -> Iterator[list[dict[str, Any]]]:
        """`entry_dicts`, a read at a time: lists that together hold the bodies of `records`,
        in order (for callers that take a run in one step)."""
        for run, cached in self._split_at_cached(records):
            if cached is not None:
                yield [cached]
            else:
                yield from read_body_runs(self.source, run, self._migration)

    def _split_at_cached(
        self, records: Sequence[EntryRecord]
    ) -> Iterator[tuple[Sequence[EntryRecord], dict[str, Any] | None]]:
        """`records` in order, as (a run of them whose bodies are not cached, None) and
        ((), the cached body of one). The cache holds a few hundred bodies at most: they are
        found among the records without a Python step per record (a context of 100,000
        entries whose last few bodies were read)."""
        kept = self._bodies.indexes() if self._bodies_kept else None
        start = 0
        if kept:
            own = self.records
            for at in compress(count(), map(kept.__contains__, map(_index_of, records))):
                record = records[at]
                current = record.index < len(own) and own[record.index] is record
                cached = self._bodies.get(record.index) if current else None
                if cached is None:
                    continue
                if at > start:
                    yield records[start:at], None
                yield (), cached
                start = at + 1
        if start < len(records):
            yield (records[start:] if start else records), None

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
