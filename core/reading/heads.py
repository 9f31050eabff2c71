"""What both readers of a line decode alike: the usage an entry reports, and a session's name.

The session's records (core/reading/records.py) and the listing's summaries (core/listing/summary.py) read
these the same way; kept apart so the listing does not load what only sessions need.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..common.jsvalues import is_finite_number, js_number, js_trim


def session_name_of(value: Any) -> str | None:
    """pi's `entry.name?.trim() || undefined` (a non-string name counts as cleared)."""
    if not isinstance(value, str):
        return None
    return js_trim(value) or None


class CostHead(msgspec.Struct, gc=False):
    total: Any = None


class UsageHead(msgspec.Struct, gc=False):
    input: Any = None
    output: Any = None
    cacheRead: Any = None
    cacheWrite: Any = None
    totalTokens: Any = None
    cost: CostHead | None = None

    def tokens(self) -> float:
        if is_finite_number(self.totalTokens):
            return js_number(self.totalTokens)
        parts = (self.input, self.output, self.cacheRead, self.cacheWrite)
        return sum(js_number(v) for v in parts if is_finite_number(v))

    def cost_total(self) -> float:
        if self.cost is not None and is_finite_number(self.cost.total):
            return js_number(self.cost.total)
        return 0.0


def usage_numbers(usage: UsageHead) -> tuple[float, float]:
    """(tokens, cost) of a usage, as `UsageHead.tokens()` and `cost_total()` give them."""
    total = usage.totalTokens
    exact = total.__class__ is int and -(2**53) < total < 2**53
    tokens = float(total) if exact else usage.tokens()
    cost = usage.cost
    spent = cost.total if cost is not None else None
    if spent.__class__ is float and spent - spent == 0.0:  # finite
        return tokens, spent
    return tokens, usage.cost_total()
