"""What the sessions sidebar says of what it lists: its title in its wordings (the most
detailed first: a narrow title drops words before its counts), and why no session is listed
when there are some (the folder named, and the key that lists the others)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .sidebar_rows import SortOrder


@dataclass(frozen=True, slots=True)
class Listed:
    """What the sidebar lists now."""

    shown: int  # sessions (or a search's results) listed
    total: int  # sessions there are
    only_current: bool = False
    named_only: bool = False
    order: SortOrder = SortOrder.RECENT
    deep: bool = False
    within: str = ""  # a search's time window in words ("7 days"), "" for none
    status: str = ""  # what the title ends with (a search's count)
    status_short: str = ""  # ... in fewer words


def title_wordings(listed: Listed, dot: str) -> list[str]:
    """The title, then shorter wordings of it (`dot`: the separator, ` · `)."""
    count = f"{listed.shown}" + (f"/{listed.total}" if listed.shown != listed.total else "")
    filters = ["named"] if listed.named_only else []
    if listed.order is not SortOrder.RECENT:
        filters.append(f"by {listed.order}")
    within = [f"active within {listed.within}"] if listed.within else []
    status = [listed.status] if listed.status else []
    scope = "this folder" if listed.only_current else "all folders"
    full = [f"Sessions {count}", scope, *filters, *["deep search"] * listed.deep, *within, *status]
    # Narrower (a third of 160 columns): the words go first, the counts and filters stay.
    brief = [*(["here"] if listed.only_current else []), *filters, *["deep"] * listed.deep, *within]
    short_status = [listed.status_short or listed.status] if listed.status else []
    wordings = [
        full,
        [f"Sessions {count}", *brief, *status],
        [count, *brief, *status],
        [count, *brief, *short_status],
    ]
    return [dot.join(bits) for bits in wordings]


def none_listed(listed: Listed, cwd: str, key_of: Callable[[str], str]) -> list[str]:
    """Paragraphs for an empty list although there are sessions: the folder (named) or the
    names asked for, and the key (`key_of`: a binding's key, "" for none) that lists the others."""
    what = "named sessions" if listed.named_only else "sessions"
    lines = [f"No {what} in this folder:", f"  {cwd}"] if listed.only_current else [f"No {what}."]
    if listed.only_current and (key := key_of("sessions.scope")):
        lines += ["", f"Press {key} to view every folder's."]
    if listed.named_only and (key := key_of("sessions.namedOnly")):
        lines += ["", f"Press {key} for the unnamed ones too."]
    return lines
