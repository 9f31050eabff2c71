"""The subagent sessions of the open session, named on the tree entries that spawned them."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..core.common.glyphs import Glyphs
from ..core.common.text import one_line

if TYPE_CHECKING:
    from ..core.listing.spawner import Child
    from ..core.listing.subagents import Subagents
    from ..core.session.session import Session


class SpawnMarks:
    """What app/scan_watch.py found (`subagents`), looked up per session once."""

    def __init__(self) -> None:
        self.subagents: Subagents | None = None
        self._spawned: tuple[str | None, dict[str, list[Child]]] = (None, {})

    def set(self, subagents: Subagents) -> None:
        self.subagents = subagents
        self._spawned = (None, {})

    def spawned(self, session: Session | None) -> dict[str, list[Child]]:
        """The session's subagents by the entry that spawned them."""
        path = _path_of(session)
        known, spawned = self._spawned
        if known != path:
            subagents = self.subagents
            spawned = subagents.spawned_at(path) if subagents is not None and path else {}
            self._spawned = (path, spawned)
        return spawned

    def names(self, session: Session | None, entry_id: str, glyphs: Glyphs) -> list[str]:
        """The marker of the entry `entry_id`: the names of the subagents it spawned, if any."""
        if self.subagents is None:
            return []
        kids = self.spawned(session).get(entry_id)
        if not kids:
            return []
        return [glyphs.child + ", ".join(one_line(c.summary.title, 30, glyphs=glyphs) for c in kids)]

    def descendants(self, session: Session | None) -> list[Child]:
        """The session's subagents and theirs."""
        path = _path_of(session)
        return self.subagents.descendants(path) if self.subagents is not None and path else []


def _path_of(session: Session | None) -> str | None:
    return os.path.normpath(session.path) if session is not None and session.path else None
