"""pi's context size at one leaf, with the model's window: the context header's figure,
cheap enough for every cursor move (apart from core/projection/stats.py's full report, which the first
screen does not need)."""

from __future__ import annotations

from ..session.session import Session
from .context import Projection
from .tokens import ContextEstimate, estimate_context
from .window import ContextGauge, context_window


def context_gauge(
    session: Session,
    projection: Projection,
    *,
    agent: str | None = None,
    estimate: ContextEstimate | None = None,
) -> ContextGauge:
    """pi's context size at the leaf, with the model's window and pi's percentage when known."""
    estimate = estimate or estimate_context(session, projection)
    window = context_window(projection.model, projection.path, agent=agent, cwd=session.cwd or None)
    return ContextGauge(estimate.tokens, window, estimate.unknown_in_footer)
