"""What one refresh of a session changed: the one description the panes are updated from.

`Session.apply` (after `Session.prepare` read what the file gained, see core/session/session.py)
returns a `SessionDelta`; the panes are brought up to date from it (`outline.extend_rows` for
the tree rows, `live.context_change` for the context).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from ..reading.records import EntryRecord


class _Tree(Protocol):
    """What `continuation` reads of a session (a Session; named so that this module, which
    session.py imports, does not import it back)."""

    def child_count(self, entry_id: str) -> int: ...


@dataclass(slots=True)
class SessionDelta:
    """What one `refresh()` changed: the one description of a change that the panes are
    brought up to date from (see core/live/context_change.py and `outline.extend_rows`)."""

    reloaded: bool = False  # the file was truncated or replaced: everything was read again
    truncated: bool = False  # ... because it got shorter than what had been read (same inode)
    new_records: list[EntryRecord] = field(default_factory=list)
    tree_rebuilt: bool = False  # paths to entries that were there before may have changed
    header_appeared: bool = False
    previous_leaf: str | None = None  # the default leaf before the change

    @property
    def changed(self) -> bool:
        return self.reloaded or bool(self.new_records) or self.header_appeared

    def then(self, later: SessionDelta) -> SessionDelta:
        """This change followed by `later`, as one change."""
        if self.reloaded or later.reloaded:
            # Everything was read again: what came with or after it is part of that reading.
            return SessionDelta(
                reloaded=True, truncated=self.truncated or later.truncated, previous_leaf=self.previous_leaf
            )
        return SessionDelta(
            new_records=self.new_records + later.new_records,
            tree_rebuilt=self.tree_rebuilt or later.tree_rebuilt,
            header_appeared=self.header_appeared or later.header_appeared,
            previous_leaf=self.previous_leaf,
        )

    def continuation(self, session: _Tree, entry_id: str | None) -> list[EntryRecord]:
        """The new records that only continue the conversation at `entry_id`: each the one
        child of the entry before it, `entry_id` first (a leaf until now). Empty when none
        do (or everything was read again)."""
        if entry_id is None or self.reloaded or not self.new_records:
            return []
        chain: list[EntryRecord] = []
        tip = entry_id
        for record in self.new_records:
            if record.parentId == tip and session.child_count(tip) == 1:
                chain.append(record)
                tip = record.id
        return chain


AppendResult = SessionDelta  # its name before it said more than what was appended
