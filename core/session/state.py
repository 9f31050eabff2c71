"""What one session holds in memory: its header, records by id, tree, labels, name, totals and
where reading its file stopped. The state only: `Session` (core/session/session.py) is the
facade over it, and the jobs that change it have modules of their own (core/session/ingest.py,
core/session/refresh.py, core/session/read_back.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..common.problems import Problem
from ..reading.bodies import BodyCache
from ..reading.growth import ReadMark
from ..reading.lines import ByteSource
from ..reading.migration import Migration
from ..reading.records import EntryRecord
from .delta import SessionDelta
from .tree import TREE_PROBLEMS, SessionTree


@dataclass(slots=True)
class Totals:
    tokens: float = 0.0
    cost: float = 0.0

    def add(self, record: EntryRecord) -> None:
        self.tokens += record.tokens
        self.cost += record.cost


class SessionState:
    """A session's state, empty until its file is read (`Session` reads it)."""

    def __init__(self, source: ByteSource, path: str | None = None, cache_entries: int = 512) -> None:
        self.source = source
        self.path = path
        self._cache_limit = cache_entries
        self.tree_version = 0  # counts tree builds: what was derived from an older tree is stale
        self._reset()

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

    def build_tree(self) -> None:
        """Build the tree again from the records (all of them, or after a change `attach` could
        not follow)."""
        # Paths to existing entries may change: what was derived from them goes.
        self.tree_version += 1
        self._totals_to = {}
        self.problems = [p for p in self.problems if p.kind not in TREE_PROBLEMS]
        self.problems.extend(self.tree.build(self.records))
