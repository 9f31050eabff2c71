"""One session file in memory: entries by id, labels, name, default leaf, totals; the facade.

`Session.open(path)` reads the file once; `refresh()` reads only the bytes appended since and
updates everything incrementally (a truncated or replaced file is reloaded from scratch).
The tree lives in `core/tree.py` and legacy v1/v2 migration in `core/migration.py` (in
memory: the file is never written); a session holds one of each and answers for them.
Where pi would silently misbehave (duplicate ids) the session reports a problem.
"""

from __future__ import annotations

import contextlib
import os
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .jsvalues import js_truthy
from .lines import (
    HEAD_BYTES,
    TAIL_BYTES,
    ByteSource,
    BytesSource,
    FileSource,
    Line,
    LineDecodeError,
    decode_json,
    only_grew,
    read_lines,
    read_span,
)
from .migration import CURRENT_VERSION, Migration, header_version, needs_migration
from .problems import Problem, ProblemKind, SessionError, StaleFileError, UnknownEntryError
from .records import CONTENT_ABSENT, EntryRecord, MessageHead, decode_record, session_name_of
from .tree import TREE_PROBLEMS, SessionTree

__all__ = ["AppendResult", "Session", "Totals", "session_name_of"]


@dataclass(slots=True)
class Totals:
    tokens: float = 0.0
    cost: float = 0.0

    def add(self, record: EntryRecord) -> None:
        self.tokens += record.tokens
        self.cost += record.cost


@dataclass(slots=True)
class AppendResult:
    """What one `refresh()` changed."""

    reloaded: bool = False  # the file was truncated or replaced: everything was re-read
    new_records: list[EntryRecord] = field(default_factory=list)
    tree_rebuilt: bool = False
    header_appeared: bool = False

    @property
    def changed(self) -> bool:
        return self.reloaded or bool(self.new_records) or self.header_appeared


class Session:
    """A pi session read from a file (or bytes), kept current by `refresh()`."""

    def __init__(self, source: ByteSource, path: str | None = None, cache_entries: int = 512) -> None:
        self.source = source
        self.path = path
        self._cache_limit = cache_entries
        # Bodies read back stay cached up to this many bytes of JSON (a big tool output is MBs).
        self._cache_byte_limit = 32 * 1024 * 1024 if cache_entries < (1 << 20) else 1 << 62
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
        self.tree = SessionTree(self.by_id)
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
        self._identity: tuple[int, int] | None = None
        self._tail: bytes = b""
        self._head: bytes = b""
        self._migration: Migration | None = None  # a legacy file, migrated as it is read
        self._cache: OrderedDict[int, dict[str, Any]] = OrderedDict()
        self._cache_bytes = 0
        self.last_was_duplicate = False

    def _load(self) -> None:
        if isinstance(self.source, FileSource):
            st = os.stat(self.source.path)
            self._identity = (st.st_dev, st.st_ino)
        result = read_lines(self.source, decode_record)
        self.end_offset, self.end_line, self.pending_bytes = (
            result.end_offset,
            result.end_line,
            result.pending_bytes,
        )
        self.problems.extend(result.problems)
        values = iter(result.lines)
        first = next(values, None)
        if first is None:
            if not self._only_blank():
                raise SessionError("not a pi session: no line of it is valid JSON")
            self._remember_tail()
            return  # empty (or still being written): a session without a header yet
        self._take_header(first)
        for line in values:
            self._ingest(line)
        if self._migration is not None:
            self._migration.finish(self.parsed_count)
        self._build_tree()
        self._remember_tail()

    def _only_blank(self) -> bool:
        return not any(p.kind != ProblemKind.PARTIAL_LAST_LINE for p in self.problems)

    def _take_header(self, line: Line[EntryRecord | dict[str, Any]]) -> None:
        value = line.value
        if (
            not isinstance(value, dict)
            or value.get("type") != "session"
            or not isinstance(value.get("id"), str)
        ):
            what = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
            raise SessionError(
                f"not a pi session: the first entry (line {line.number}) is "
                + (f"of type {what!r}" if isinstance(what, str) else "not a session header")
                + ", not a session header"
            )
        self.header = dict(value)
        self.header_line = line.number
        self.parsed_count = 1
        version = header_version(value.get("version"))
        if needs_migration(version):
            self._migration = Migration(value.get("id"), version)
            self.header["version"] = CURRENT_VERSION

    # ------------------------------------------------------------------ ingesting records
    def _ingest(self, line: Line[EntryRecord | dict[str, Any]]) -> EntryRecord | None:
        value = line.value
        parsed_index = self.parsed_count
        self.parsed_count += 1
        if isinstance(value, dict):
            # A second "session" line: pi ignores it everywhere except when counting v1 indexes.
            if self._migration is not None:
                self._migration.skip(parsed_index)
            self.problems.append(
                Problem(ProblemKind.EXTRA_HEADER, "extra session header ignored", line.number)
            )
            return None
        record = value
        record.line, record.offset, record.length = line.number, line.offset, line.length
        record.parsed_index = parsed_index
        if self._migration is not None:
            self._migration.migrate(record, parsed_index, self.records[-1].id if self.records else None)
        if not isinstance(record.id, str):
            self.problems.append(
                Problem(
                    ProblemKind.MISSING_ID, f"{record.type!s} entry without a string id skipped", line.number
                )
            )
            return None
        if record.type == "context_edit" and record.replacement_kind == CONTENT_ABSENT:
            self.problems.append(
                Problem(
                    ProblemKind.BAD_EDIT,
                    "context edit without a replacement: ignored (pi would stop with an error)",
                    line.number,
                    record.id,
                )
            )
        if record.type == "message" and not isinstance(record.message, MessageHead):
            self.problems.append(
                Problem(
                    ProblemKind.BAD_MESSAGE, "message entry without a message object", line.number, record.id
                )
            )
        record.index = len(self.records)
        self.records.append(record)
        previous = self.by_id.get(record.id)
        self.last_was_duplicate = previous is not None
        if previous is not None:
            self.problems.append(
                Problem(
                    ProblemKind.DUPLICATE_ID,
                    f"id {record.id} also used on line {previous.line}; the later entry wins",
                    line.number,
                    record.id,
                )
            )
        self.by_id[record.id] = record
        self.default_leaf = record.id
        self.totals.add(record)
        if record.has_system_message or (record.type == "message" and record.role == "system"):
            self.system_prompt_entries += 1
        with contextlib.suppress(TypeError):  # an unhashable "type" value: nothing to count
            self.type_counts[record.type] = self.type_counts.get(record.type, 0) + 1
        kind = record.type
        if kind == "label":
            self._apply_label(record)
        elif kind == "session_info":
            self.name = session_name_of(record.name)
        elif kind == "context_edit" and isinstance(record.targetId, str):
            self.edit_counts[record.targetId] = self.edit_counts.get(record.targetId, 0) + 1
        return record

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

    @property
    def children(self) -> dict[str, list[str]]:
        return self.tree.children

    def count_below(self, starts: Iterable[str]) -> int:
        """Entries in the subtrees under `starts` (themselves included), iteratively."""
        return self.tree.count_below(starts)

    # ------------------------------------------------------------------ live updates
    def refresh(self) -> AppendResult:
        """Read what was appended since the last read; reload if the file was replaced or cut."""
        if not isinstance(self.source, FileSource):
            return AppendResult()
        try:
            st = os.stat(self.source.path)
        except FileNotFoundError:
            raise SessionError(f"the file is gone: {self.source.path}") from None
        if (
            (st.st_dev, st.st_ino) != self._identity
            or st.st_size < self.end_offset
            or not self._tail_unchanged()
        ):
            self._reset()
            self._load()
            return AppendResult(reloaded=True)
        if st.st_size == self.end_offset:
            return AppendResult()
        result = read_lines(self.source, decode_record, self.end_offset, self.end_line, end=st.st_size)
        self.end_offset, self.end_line, self.pending_bytes = (
            result.end_offset,
            result.end_line,
            result.pending_bytes,
        )
        self.problems = [p for p in self.problems if p.kind != ProblemKind.PARTIAL_LAST_LINE]
        self.problems.extend(result.problems)
        out = AppendResult()
        lines = iter(result.lines)
        if self.header is None:
            first = next(lines, None)
            if first is None:
                return out
            self._take_header(first)
            out.header_appeared = True
        rebuild = False
        for line in lines:
            record = self._ingest(line)
            if record is None:
                continue
            out.new_records.append(record)
            if not rebuild:
                attached, problem = (False, None) if self.last_was_duplicate else self.tree.attach(record)
                if problem is not None:
                    self.problems.append(problem)
                rebuild = not attached
        if self._migration is not None and self._migration.has_pending:
            self._migration.finish(self.parsed_count)
        if rebuild:
            self._build_tree()
            out.tree_rebuilt = True
        self._remember_tail()
        return out

    def _remember_tail(self) -> None:
        """The first and last bytes read: a file that only grew still has both."""
        end = self.end_offset
        start = max(0, end - TAIL_BYTES)
        self._tail = self.source.read(start, end - start) if end else b""
        if len(self._head) < HEAD_BYTES:
            self._head = self.source.read(0, min(HEAD_BYTES, end)) if end else b""

    def _tail_unchanged(self) -> bool:
        assert isinstance(self.source, FileSource)
        return only_grew(self.source.path, self.end_offset, self._head, self._tail)

    # ------------------------------------------------------------------ reading bodies back
    def entry_dict(self, record: EntryRecord) -> dict[str, Any]:
        """The full entry as pi holds it (after migration), read back by byte offset."""
        # Keyed by index: only a record of this reading may use it (one kept from before a
        # reload has the index of some other entry now).
        current = record.index < len(self.records) and self.records[record.index] is record
        cached = self._cache.get(record.index) if current else None
        if cached is not None:
            self._cache.move_to_end(record.index)
            return cached
        data = read_span(self.source, record.offset, record.length)
        try:
            value = decode_json(data)
        except LineDecodeError:
            raise StaleFileError(f"line {record.line} changed on disk") from None
        if not isinstance(value, dict) or value.get("type") != record.type:
            raise StaleFileError(f"line {record.line} changed on disk")
        if self._migration is None and value.get("id") != record.id:
            raise StaleFileError(f"line {record.line} changed on disk")
        if self._migration is not None:
            self._migration.patch(value, record.parsed_index)
        if not current:
            return value
        self._cache[record.index] = value
        self._cache_bytes += record.length
        while self._cache and (
            len(self._cache) > self._cache_limit or self._cache_bytes > self._cache_byte_limit
        ):
            index, _ = self._cache.popitem(last=False)
            self._cache_bytes -= self.records[index].length if index < len(self.records) else 0
        return value

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
        """Root-to-leaf path (pi's buildSessionPath), finite even on a parent cycle."""
        return self.tree.path_to(leaf_id)

    def totals_along(self, path: list[EntryRecord]) -> Totals:
        """Tokens and cost spent from the root to the end of `path` (a `path_to` result).

        Remembered per entry, so moving the selection along a conversation costs a step or
        two instead of a walk over the whole path."""
        memo = self._totals_to
        start = len(path)
        while start > 0 and path[start - 1].index not in memo:
            start -= 1
        tokens, cost = memo[path[start - 1].index] if start > 0 else (0.0, 0.0)
        for record in path[start:]:
            tokens += record.tokens
            cost += record.cost
            memo[record.index] = (tokens, cost)
        return Totals(tokens, cost)

    def preorder(self) -> list[str]:
        return self.tree.preorder()

    def entry_ids(self) -> list[str]:
        return [r.id for r in self.records]

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
