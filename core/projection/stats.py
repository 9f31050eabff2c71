"""Every cost and context figure of one session at one leaf, gathered for a report (`stats`).

The header-sized figures (`context_gauge`, core/projection/gauge.py) are cheap enough for every cursor
move; the full report (`session_stats`) also audits the compactions and measures the file, which reads bodies,
and is meant for an explicit request.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..common.jsvalues import json_number
from ..common.problems import SessionError
from ..session.session import Session
from .branch_costs import ForkBranch, branch_totals
from .compaction_audit import CompactionAudit, audit_compactions
from .context import project
from .gauge import context_gauge
from .sizes import SizeReport, size_report
from .timeline import ContextTimeline, context_timeline
from .tokens import ContextEstimate, estimate_context
from .window import ContextGauge


@dataclass(frozen=True, slots=True)
class Fork:
    """A fork point and the totals of each branch below it."""

    entry_id: str
    branches: tuple[ForkBranch, ...]
    on_path_child: str | None  # the branch the leaf is on, if the fork is on its path


@dataclass(frozen=True, slots=True)
class SessionStats:
    path: str | None
    session_id: str | None
    leaf_id: str
    model: dict[str, Any] | None
    thinking_level: Any
    estimate: ContextEstimate
    gauge: ContextGauge
    path_entries: int
    path_tokens: float
    path_cost: float
    session_entries: int
    session_tokens: float
    session_cost: float
    timeline: ContextTimeline
    forks: tuple[Fork, ...]
    compactions: tuple[CompactionAudit, ...]
    sizes: SizeReport

    def to_json(self) -> dict[str, Any]:
        gauge = self.gauge.to_json()
        return {
            "path": self.path,
            "session_id": self.session_id,
            "leaf": self.leaf_id,
            "model": self.model,
            "thinkingLevel": self.thinking_level,
            "context_tokens": self.estimate.pi_value,
            "context": {
                "usage_tokens": self.estimate.usage_tokens,
                "trailing_tokens": self.estimate.trailing_tokens,
                "anchor_id": self.estimate.anchor_id,
                **{k: v for k, v in gauge.items() if k != "context_tokens"},
            },
            "path_totals": {
                "entries": self.path_entries,
                "tokens": json_number(self.path_tokens),
                "cost": round(self.path_cost, 6),
            },
            "session_totals": {
                "entries": self.session_entries,
                "tokens": json_number(self.session_tokens),
                "cost": round(self.session_cost, 6),
            },
            "timeline": self.timeline.to_json(),
            "forks": [
                {
                    "id": fork.entry_id,
                    "on_path_child": fork.on_path_child,
                    "branches": [{"child_id": b.child_id, **b.totals.to_json()} for b in fork.branches],
                }
                for fork in self.forks
            ],
            "compactions": [audit.to_json() for audit in self.compactions],
            "sizes": self.sizes.to_json(),
        }


def session_stats(session: Session, leaf_id: str | None = None, *, agent: str | None = None) -> SessionStats:
    """The full report at `leaf_id` (default: the default leaf). Raises SessionError for a
    session without entries and UnknownEntryError for an unknown leaf."""
    leaf = leaf_id if leaf_id is not None else session.default_leaf
    if leaf is None:
        raise SessionError("the session has no entries")
    projection = project(session, leaf)
    estimate = estimate_context(session, projection)
    path_totals = projection.path_totals(session)
    totals = branch_totals(session)
    on_path = {r.id for r in projection.path}
    forks = []
    for fork_id in totals.forks():
        branches = tuple(totals.fork(fork_id))
        child = (
            next((b.child_id for b in branches if b.child_id in on_path), None)
            if fork_id in on_path
            else None
        )
        forks.append(Fork(fork_id, branches, child))
    return SessionStats(
        path=session.path,
        session_id=session.session_id,
        leaf_id=leaf,
        model=projection.model,
        thinking_level=projection.thinking_level,
        estimate=estimate,
        gauge=context_gauge(session, projection, agent=agent, estimate=estimate),
        path_entries=len(projection.path),
        path_tokens=path_totals.tokens,
        path_cost=path_totals.cost,
        session_entries=len(session.records),
        session_tokens=session.totals.tokens,
        session_cost=session.totals.cost,
        timeline=context_timeline(session, projection.path),
        forks=tuple(forks),
        compactions=tuple(audit_compactions(session, projection.path)),
        sizes=size_report(session, leaf),
    )
