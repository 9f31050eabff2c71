"""What one change of the open session means for the tree pane: decided here, once.

A refresh of the open session gives one `SessionDelta` (core/session/session.py). `tree_change`
turns it into what the tree does: nothing, show the rows anew (the file was read again), put
rows for new entries in place below the active leaf (`outline.extend_rows`: a conversation
growing at its tip, the common live case), or make the rows again with the view kept; and
where its cursor goes. Its sibling for the context pane is core/live/context_change.py. The
main screen asks both and the panes apply the answers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from ..session.outline import OutlineRow, RowFilter, RowInsert, extend_rows
from ..session.session import Session, SessionDelta


class TreeAction(StrEnum):
    KEEP = "keep"  # the rows shown are still right
    RESHOW = "reshow"  # the file was read again: the rows anew
    INSERT = "insert"  # `insert`'s rows go in place below the old active leaf
    REBUILD = "rebuild"  # the rows again, the view kept where it is


@dataclass(frozen=True, slots=True)
class TreeChange:
    action: TreeAction
    insert: RowInsert | None = None  # INSERT
    select: str | None = None  # the cursor goes there, unannounced (None: it stays on its entry)


KEEP = TreeChange(TreeAction.KEEP)


def tree_change(
    session: Session,
    delta: SessionDelta,
    rows: Sequence[OutlineRow],
    index_by_id: Mapping[str, int],
    view: RowFilter | None,
    current: str | None,
    *,
    follow: bool = False,
) -> TreeChange:
    """What the tree does after `delta` when it shows `rows` (`index_by_id`: their positions,
    `view`: its filter with what it always shows) with the cursor on `current`. With `follow`,
    the cursor goes to the newest entry; else it stays on its entry (on the newest when a
    file read again no longer has it)."""
    if not delta.changed:
        return KEEP
    newest = session.default_leaf
    if delta.reloaded:
        keep = current is not None and current in session.by_id
        return TreeChange(TreeAction.RESHOW, select=current if keep and not follow else newest)
    select = newest if follow else None
    insert = extend_rows(session, rows, index_by_id, delta, view)
    if insert is not None:
        return TreeChange(TreeAction.INSERT, insert, select)
    return TreeChange(TreeAction.REBUILD, select=select)
