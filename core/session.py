"""One session file in memory: entries by id, pi's tree, labels, name, default leaf, totals.

`Session.open(path)` reads the file once; `refresh()` reads only the bytes appended since and
updates everything incrementally (a truncated or replaced file is reloaded from scratch).
Legacy v1/v2 files are migrated in memory exactly as pi migrates them; the file is never
written. Where pi would loop forever (a parent cycle) or silently misbehave (duplicate ids),
the session reports a problem and stays finite.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cmp_to_key
from typing import Any

from .jsvalues import js_number, js_trim, js_truthy
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
from .problems import Problem, ProblemKind, SessionError, StaleFileError, UnknownEntryError
from .records import CONTENT_ABSENT, EntryRecord, MessageHead, decode_record

CURRENT_VERSION = 3


def session_name_of(value: Any) -> str | None:
    """pi's `entry.name?.trim() || undefined` (a non-string name counts as cleared)."""
    if not isinstance(value, str):
        return None
    return js_trim(value) or None


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
        self.roots: list[str] = []
        self.children: dict[str, list[str]] = {}
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
        self._orphans: dict[str, list[str]] = {}  # missing parent id -> ids waiting for it
        self._cut: set[str] = set()  # entries whose parent link was cut to break a cycle
        self._unsortable: set[str] = set()  # parents with a child whose timestamp is not a date
        self._migration = False
        self._v1 = False
        self._v1_pending_kept: list[tuple[EntryRecord, int]] = []
        self._parsed_ids: dict[int, str | None] = {}  # v1: parsed index -> id (None: a header)
        self._patches: dict[int, dict[str, Any]] = {}
        self._cache: OrderedDict[int, dict[str, Any]] = OrderedDict()
        self._cache_bytes = 0
        self._mig_ids: set[str] = set()
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
        self._finish_migration()
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
        version = _js_version(value.get("version"))
        self._migration = version < CURRENT_VERSION
        self._v1 = version < 2
        if self._migration:
            self.header["version"] = CURRENT_VERSION
            self._parsed_ids[0] = None

    # ------------------------------------------------------------------ ingesting records
    def _ingest(self, line: Line[EntryRecord | dict[str, Any]]) -> EntryRecord | None:
        value = line.value
        parsed_index = self.parsed_count
        self.parsed_count += 1
        if isinstance(value, dict):
            # A second "session" line: pi ignores it everywhere except when counting v1 indexes.
            self._parsed_ids[parsed_index] = None
            self.problems.append(
                Problem(ProblemKind.EXTRA_HEADER, "extra session header ignored", line.number)
            )
            return None
        record = value
        record.line, record.offset, record.length = line.number, line.offset, line.length
        record.parsed_index = parsed_index
        if self._migration:
            self._migrate(record, parsed_index)
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

    # ------------------------------------------------------------------ legacy migration
    def _migrate(self, record: EntryRecord, parsed_index: int) -> None:
        patch: dict[str, Any] = {}
        if self._v1:
            record.id = self._v1_id(parsed_index)
            record.parentId = self.records[-1].id if self.records else None
            patch["id"] = record.id
            patch["parentId"] = record.parentId
            if record.type == "compaction" and _is_js_number(record.firstKeptEntryIndex):
                patch["-firstKeptEntryIndex"] = True
                self._v1_pending_kept.append((record, parsed_index))
        self._parsed_ids[parsed_index] = record.id if self._v1 else None
        m = record.message
        if record.type == "message" and isinstance(m, MessageHead) and m.role == "hookMessage":
            m.role = "custom"
            patch["role"] = "custom"
        if patch:
            self._patches[parsed_index] = patch

    def _v1_id(self, parsed_index: int) -> str:
        # pi draws random ids here; ours are derived from the session id so every read agrees.
        seed = f"{self.header.get('id') if self.header else ''}:{parsed_index}"
        salt = 0
        while True:
            digest = hashlib.blake2b(f"{seed}:{salt}".encode(), digest_size=4).hexdigest()
            if digest not in self._mig_ids:
                self._mig_ids.add(digest)
                return digest
            salt += 1

    def _finish_migration(self) -> None:
        """Resolve v1 `firstKeptEntryIndex` (it may point at a later line)."""
        still: list[tuple[EntryRecord, int]] = []
        for record, parsed_index in self._v1_pending_kept:
            index = record.firstKeptEntryIndex
            target_id: str | None = None
            if isinstance(index, float) and index.is_integer():
                index = int(index)  # JavaScript indexes an array with 3.0 as with 3
            if isinstance(index, int) and not isinstance(index, bool) and index >= 0:
                if index >= self.parsed_count:
                    still.append((record, parsed_index))  # may still arrive
                    continue
                target_id = self._parsed_ids.get(index)
            if target_id is not None:
                record.firstKeptEntryId = target_id
                self._patches[parsed_index]["firstKeptEntryId"] = target_id
        self._v1_pending_kept = still

    # ------------------------------------------------------------------ the tree
    def winners(self) -> Iterator[EntryRecord]:
        """Records that own their id (a later duplicate shadows an earlier one), file order."""
        by_id = self.by_id
        for record in self.records:
            if by_id.get(record.id) is record:
                yield record

    def _build_tree(self) -> None:
        # Paths to existing entries may change: what was derived from them goes.
        self.tree_version += 1
        self._totals_to = {}
        self.roots = []
        self.children = {}
        self._orphans = {}
        self._cut = set()
        self._unsortable = set()
        children = self.children
        missing_parents: list[Problem] = []
        for record in self.winners():
            parent = self._parent_in_tree(record)
            if parent is not None:
                children.setdefault(parent, []).append(record.id)
                continue
            problem = self._add_root(record)
            if problem is None:
                continue
            if problem.kind is ProblemKind.MISSING_PARENT:
                missing_parents.append(problem)  # reported after the cycles are broken
            else:
                self.problems.append(problem)
        for kids in children.values():
            if len(kids) > 1:
                self._sort_children(kids)
        self._break_cycles()
        self.problems.extend(missing_parents)

    def _parent_in_tree(self, record: EntryRecord) -> str | None:
        """The id `record` hangs from; None for a root (no parent, itself, one not there)."""
        parent = record.parentId
        if isinstance(parent, str) and parent != record.id and parent in self.by_id:
            return parent
        return None

    def _add_root(self, record: EntryRecord) -> Problem | None:
        """Shows `record` as a root; a parent it names but cannot have is a problem."""
        rid, parent = record.id, record.parentId
        self.roots.append(rid)
        if parent is None:
            return None
        if parent == rid:
            self._cut.add(rid)
            return Problem(
                ProblemKind.SELF_PARENT, "entry is its own parent; shown as a root", record.line, rid
            )
        if isinstance(parent, str):
            self._orphans.setdefault(parent, []).append(rid)  # moves under it if it arrives
        return Problem(
            ProblemKind.MISSING_PARENT, f"parent {parent} does not exist; shown as a root", record.line, rid
        )

    def _sort_children(self, kids: list[str]) -> None:
        """pi sorts children by `new Date(timestamp).getTime()`, oldest first, stably."""
        by_id = self.by_id
        keys = [by_id[k].ts_ms() for k in kids]
        if all(k is not None for k in keys):
            kids.sort(key=lambda k: by_id[k].ts_ms())  # type: ignore[arg-type,return-value]
            return
        parent = by_id[kids[0]].parentId
        if isinstance(parent, str):
            self._unsortable.add(parent)

        # NaN timestamps: reproduce JavaScript's comparator, where NaN compares as "equal".
        def compare(a: str, b: str) -> int:
            ta, tb = by_id[a].ts_ms(), by_id[b].ts_ms()
            if ta is None or tb is None:
                return 0
            return -1 if ta < tb else (1 if ta > tb else 0)

        kids.sort(key=cmp_to_key(compare))

    def _break_cycles(self) -> None:
        """Entries unreachable from the roots sit on a parent cycle (pi loops forever there).
        Each cycle is broken at its first entry in file order, which becomes a root."""
        reachable = self.count_below(self.roots)
        if reachable == len(self.by_id):
            return
        seen: set[str] = set()
        breakers: list[str] = []
        stack = list(self.roots)
        while stack:
            node = stack.pop()
            seen.add(node)
            stack.extend(self.children.get(node, ()))
        for record in self.winners():
            if record.id in seen:
                continue
            # Walk up to find the cycle this entry hangs from.
            chain: list[str] = []
            on_chain: set[str] = set()
            current: str | None = record.id
            while current is not None and current not in on_chain and current not in seen:
                chain.append(current)
                on_chain.add(current)
                parent = self.by_id[current].parentId
                current = parent if isinstance(parent, str) and parent in self.by_id else None
            if current is None or current in seen:
                continue
            cycle = chain[chain.index(current) :]
            breaker = min(cycle, key=lambda i: self.by_id[i].index)
            parent = self.by_id[breaker].parentId
            self.children[parent].remove(breaker)
            self._cut.add(breaker)
            breakers.append(breaker)
            self.problems.append(
                Problem(
                    ProblemKind.PARENT_CYCLE,
                    f"parent links form a cycle ({' -> '.join(cycle)}); broken at {breaker}",
                    self.by_id[breaker].line,
                    breaker,
                )
            )
            stack = [breaker]
            while stack:
                node = stack.pop()
                seen.add(node)
                stack.extend(self.children.get(node, ()))
        if breakers:
            # Roots stay in file order (one sort for all the cycles, however many).
            self.roots.extend(breakers)
            self.roots.sort(key=lambda r: self.by_id[r].index)

    def count_below(self, starts: Iterable[str]) -> int:
        """Entries in the subtrees under `starts` (themselves included), iteratively."""
        count = 0
        stack = list(starts)
        children = self.children
        while stack:
            node = stack.pop()
            count += 1
            kids = children.get(node)
            if kids:
                stack.extend(kids)
        return count

    def _attach(self, record: EntryRecord) -> bool:
        """Place one appended record in the tree; False when a full rebuild is needed."""
        rid = record.id
        if rid in self._orphans:
            return False  # entries that were waiting for this parent move under it
        parent = self._parent_in_tree(record)
        if parent is None:
            problem = self._add_root(record)
            if problem is not None:
                self.problems.append(problem)
            return True
        kids = self.children.setdefault(parent, [])
        ts = record.ts_ms()
        if ts is None or parent in self._unsortable:
            # A sibling without a usable timestamp: sort as a fresh read would, from file order.
            self._unsortable.add(parent)
            kids.append(rid)
            kids.sort(key=lambda k: self.by_id[k].index)
            self._sort_children(kids)
            return True
        # Stable: after every sibling with the same or an older timestamp.
        by_id = self.by_id
        lo, hi = 0, len(kids)
        while lo < hi:
            mid = (lo + hi) // 2
            if by_id[kids[mid]].ts_ms() <= ts:  # type: ignore[operator]
                lo = mid + 1
            else:
                hi = mid
        kids.insert(lo, rid)
        return True

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
            if not rebuild and (self.last_was_duplicate or not self._attach(record)):
                rebuild = True
        if self._v1_pending_kept:
            self._finish_migration()
        if rebuild:
            self.problems = [
                p
                for p in self.problems
                if p.kind
                not in (ProblemKind.PARENT_CYCLE, ProblemKind.MISSING_PARENT, ProblemKind.SELF_PARENT)
            ]
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
        if not self._migration and value.get("id") != record.id:
            raise StaleFileError(f"line {record.line} changed on disk")
        patch = self._patches.get(record.parsed_index)
        if patch:
            _apply_patch(value, patch)
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
        parent = record.parentId
        if record.id in self._cut or parent.__class__ is not str or not parent:
            return None
        return self.by_id.get(parent)

    def path_to(self, leaf_id: str) -> list[EntryRecord]:
        """Root-to-leaf path (pi's buildSessionPath), finite even on a parent cycle."""
        get = self.by_id.get
        current: EntryRecord | None = self.get(leaf_id)
        path: list[EntryRecord] = []
        append = path.append
        cut = self._cut
        limit = len(self.by_id)  # more steps than entries means a cycle
        while current is not None:
            append(current)
            if cut and current.id in cut:
                break
            if len(path) > limit:
                path = _until_repeat(path)
                break
            parent = current.parentId
            current = get(parent) if parent.__class__ is str and parent else None
        path.reverse()
        return path

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
        out: list[str] = []
        stack = list(reversed(self.roots))
        children = self.children
        while stack:
            node = stack.pop()
            out.append(node)
            kids = children.get(node)
            if kids:
                stack.extend(reversed(kids))
        return out

    def entry_ids(self) -> list[str]:
        return [r.id for r in self.records]

    @property
    def is_v1(self) -> bool:
        """A legacy v1 file: entry ids are ours (pi draws random ones and rewrites the file)."""
        return self._v1

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


def _until_repeat(path: list[EntryRecord]) -> list[EntryRecord]:
    seen: set[str] = set()
    out: list[EntryRecord] = []
    for record in path:
        if record.id in seen:
            break
        seen.add(record.id)
        out.append(record)
    return out


def _apply_patch(value: dict[str, Any], patch: dict[str, Any]) -> None:
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


def _js_version(value: Any) -> float:
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
