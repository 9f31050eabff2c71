"""What one change of the open session means for the context pane: decided here, once.

A refresh of the open session gives one `SessionDelta` (core/session/session.py). `context_change`
turns it into what the context pane does: keep what it shows, extend it (blocks for the new
messages go below the ones shown), show another projection, or say why there is nothing to
show. Its sibling for the tree is core/live/tree_change.py. The main screen asks both and the
panes apply the answers. When the pane shows another projection, `kept_blocks` says which of
the blocks shown stay (a move or a growth along the conversation keeps the shared ones).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ..projection.context import Projection, extend_projection, project
from ..session.session import Session, SessionDelta

NO_HEADER = "This file is empty: no session header yet."
NO_ENTRIES = "This session has no entries yet."


class ContextAction(StrEnum):
    KEEP = "keep"  # what is shown is still right
    EXTEND = "extend"  # `projection` grew from the shown one: add blocks for its context from `start` on
    SHOW = "show"  # show `projection` instead of what is shown
    CLEAR = "clear"  # nothing to show: say `text`


@dataclass(frozen=True, slots=True)
class ContextChange:
    action: ContextAction
    projection: Projection | None = None
    start: int = 0  # EXTEND: the first new position in `projection.context`
    text: str = ""  # CLEAR
    keep_scroll: bool = True  # SHOW: leave the view where it is (a view at the end follows)
    live: bool = False  # the context moved past the selected entry to follow the file


KEEP = ContextChange(ContextAction.KEEP)


def nothing_to_show(session: Session) -> str | None:
    """Why a session has no context to show (no header, no entries), or None."""
    if session.is_empty:
        return NO_HEADER
    if not session.records:
        return NO_ENTRIES
    return None


def context_change(
    session: Session,
    delta: SessionDelta,
    shown: Projection | None,
    leaf: str | None,
    *,
    follow: bool = False,
    show_excluded: bool = False,
) -> ContextChange:
    """What the context pane does after `delta`, when it shows `shown` (the context at
    `leaf`; None: nothing yet). With `follow`, the context goes to the newest entry; else it
    grows along with a conversation that continues at `leaf`, and stays otherwise."""
    if not delta.changed:
        return KEEP
    empty = nothing_to_show(session)
    if empty is not None:
        return ContextChange(ContextAction.CLEAR, text=empty)
    newest = session.default_leaf
    if newest is None:  # (a session with records always has a newest entry)
        return ContextChange(ContextAction.CLEAR, text=NO_ENTRIES)
    if delta.reloaded or shown is None or leaf is None or leaf not in session.by_id:
        # Read again (paths may be new) or nothing shown yet: the entry that was shown if it
        # is still there, else the newest.
        target = leaf if not follow and leaf is not None and leaf in session.by_id else newest
        return ContextChange(ContextAction.SHOW, project(session, target), keep_scroll=False)
    chain = [] if follow else delta.continuation(session, leaf)
    target = newest if follow else (chain[-1].id if chain else leaf)
    if target == shown.leaf_id and shown.tree_version == session.tree_version:
        return KEEP
    grown = extend_projection(shown, session, target)
    if follow:
        # Following the newest entry: its context, from the top, scrolled to the end.
        return ContextChange(ContextAction.SHOW, grown or project(session, target), keep_scroll=False)
    if grown is None:
        # Not a growth of what is shown (another branch, a compaction, an edit, a tree built
        # again): the whole walk.
        return ContextChange(ContextAction.SHOW, project(session, target), live=bool(chain))
    start = len(shown.context)
    if show_excluded or any(record.role == "system" for record in grown.context[start:]):
        # Entries out of context are drawn in place, and a system message changes the prompt
        # replayed at the top: the blocks are laid out again (the view stays).
        return ContextChange(ContextAction.SHOW, grown, live=True)
    return ContextChange(ContextAction.EXTEND, grown, start=start, live=True)


@dataclass(frozen=True, slots=True)
class KeptBlocks:
    keep: int  # the first blocks shown that stay
    start: int  # the position in the new projection's context the blocks after them start at


def kept_blocks(
    session: Session,
    shown: Projection,
    projection: Projection,
    *,
    blocks: int,
    prompt_on_top: bool,
    excluded: bool,
) -> KeptBlocks | None:
    """Which blocks stay when the pane showing `shown` (as `blocks` blocks; `prompt_on_top`:
    the first is the replayed system prompt; `excluded`: excluded entries sit among them)
    shows `projection`: those of the first context entries the two share (known when a move
    or a growth made `projection` from `shown`), if they are what the pane would make again.
    None: make them all."""
    if excluded:
        return None
    start = projection.shared_context(shown)
    if not start:
        return None
    changed = (*shown.context[start:], *projection.context[start:])
    if session.system_prompt_entries and any(r.type == "compaction" or r.role == "system" for r in changed):
        return None  # the prompt replayed at the top changes
    if bool(session.system_prompt_entries) != prompt_on_top:
        return None  # the first system prompt arrived (elsewhere) since: it goes on top
    keep = blocks - sum(shown.counts[start:])
    return KeptBlocks(keep, start) if keep > 0 else None
