"""The context pane's header: what the model is, how full its context is, what the path cost.

Four lines under the pane's title, each of its own child: the model, thinking level and
messages in context; pi's context size with the share of the model's window in pi's colours
(`ContextGauge`: warning above 70 %, error above 90 %) and the tokens and cost spent on the
path; the context size at each reply along the path (`ContextSparkline`, widgets/sparkline.py);
and what `x` would show or hide, after where the prompt cache was lost when the entry shown is a
reply that lost it (core/projection/cache_breaks.py's `break_at`). The first two are
`PriorityRow`s: at any width they show the most detailed layout that fits, so the context size
and the cost are still there at 80 columns. Everything here is cheap per move
(core/projection/gauge.py's `context_gauge`; `break_at` reads back to the reply before only);
the sparkline reads what it has not read yet a piece at a time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical

from ..core.common.glyphs import Glyphs
from ..core.common.jsvalues import js_string
from ..core.common.problems import SessionError
from ..core.common.text import one_line
from ..core.projection.cache_breaks import break_at
from ..core.projection.context import Projection, Reason
from ..core.projection.window import ContextGauge, Level, format_tokens, to_fixed
from ..core.session.session import Session, Totals
from .glyphs import glyphs_of
from .plain import FitStatic
from .priority_row import PriorityRow
from .sparkline import ContextSparkline

WHY_HIDDEN = {
    Reason.SUMMARIZED: "summarized",
    Reason.FOLDED: "folded into a checkpoint",
    Reason.OMITTED: "omitted by edits",
    Reason.SUPERSEDED: "superseded compaction",
    Reason.EMPTY_SUMMARY: "empty summary",
    Reason.UNREADABLE: "unreadable",
}


def why_hidden(excluded: dict[Reason, int]) -> str:
    """`3 summarized, 1 omitted by edits`: what is on the path but not in context."""
    return ", ".join(f"{n} {WHY_HIDDEN.get(reason, str(reason))}" for reason, n in excluded.items())


def count(value: int | float) -> str:
    """7,394 (a fractional figure from a hand-edited file keeps its fraction)."""
    return f"{value:,}"


def money(cost: float) -> str:
    """pi's footer: `$` and three decimals."""
    return "$" + to_fixed(cost, 3)


# ---------------------------------------------------------------------- the layouts (pure)
def model_layouts(
    model: Mapping[str, Any] | None, thinking: Any, messages: int, glyphs: Glyphs
) -> list[tuple[str, str, str]]:
    """(model, thinking, messages) texts, most detailed first."""
    dot = glyphs.dot
    if model:
        model_id = js_string(model.get("modelId")) or "?"
        full = f"{js_string(model.get('provider')) or '?'}/{model_id}"
    else:
        full = model_id = "no model yet"
    level = js_string(thinking) or "off"
    long_thinking = f"{dot} thinking {level}"
    short_thinking = long_thinking if level == "off" else f"{dot} {level}"  # as pi's footer says it
    noun = "message" if messages == 1 else "messages"
    long_count, short_count = f"{dot} {messages} {noun}", f"{dot} {messages} msgs"
    return [
        (full, long_thinking, long_count),
        (model_id, long_thinking, long_count),
        (model_id, short_thinking, long_count),
        (model_id, short_thinking, short_count),
    ]


def figure_layouts(gauge: ContextGauge, totals: Totals, glyphs: Glyphs) -> list[tuple[str, str, str]]:
    """(context size, share of the window, path cost) texts, most detailed first."""
    dot = glyphs.dot
    tokens = count(gauge.tokens)
    sizes = (f"context {tokens} tokens", f"context {tokens}", tokens)
    window = gauge.window
    if window is None:
        shares = ("", "", "")
    else:
        limit = ("~" if window.is_estimate else "") + format_tokens(window.tokens)
        # pi's footer shows "?" until a reply after a compaction reports the context's size.
        share = "?" if gauge.unknown_in_footer else gauge.percent_text()
        shares = (f"{share} of {limit}", f"{share}/{limit}", share)
    cost, spent = money(totals.cost), format_tokens(totals.tokens)
    costs = (
        f"{dot} {cost} {dot} {spent} tokens spent on this path",
        f"{dot} {cost} {dot} {spent} tokens",
        f"{dot} {cost} spent",
        f"{dot} {cost}",
    )
    return [
        (sizes[0], shares[0], costs[0]),
        (sizes[0], shares[0], costs[1]),
        (sizes[1], shares[1], costs[1]),
        (sizes[1], shares[1], costs[2]),
        (sizes[1], shares[1], costs[3]),
        (sizes[2], shares[2], costs[3]),
    ]


# ---------------------------------------------------------------------- the widgets
class ContextGaugeText(FitStatic):
    """The share of the model's window in pi's colours: classes `-warning` and `-error`."""

    def set_level(self, level: Level) -> None:
        self.set_class(level is Level.WARNING, "-warning")
        self.set_class(level is Level.ERROR, "-error")


class ContextHeader(Vertical):
    def compose(self) -> ComposeResult:
        yield PriorityRow(
            FitStatic("", id="context-model"),
            FitStatic("", id="context-thinking", classes="field"),
            FitStatic("", id="context-messages", classes="field"),
            id="context-what",
        )
        yield PriorityRow(
            FitStatic("", id="context-size"),
            ContextGaugeText("", id="context-gauge", classes="field"),
            FitStatic("", id="context-cost", classes="field"),
            id="context-figures",
        )
        yield ContextSparkline(id="context-sparkline")
        yield FitStatic("", id="context-hint", classes="one-line dim")

    @property
    def gauge(self) -> ContextGaugeText:
        return self.query_one(ContextGaugeText)

    @property
    def sparkline(self) -> ContextSparkline:
        return self.query_one(ContextSparkline)

    def text(self) -> str:
        """What the header says right now, line by line (as laid out for its width)."""
        lines = []
        for row in self.query(PriorityRow):
            lines.append(" ".join(text for text in row.shown if text))
        lines.append(self.sparkline.text())
        lines.append(self.query_one("#context-hint", FitStatic).full_text)
        return "\n".join(lines)

    def clear(self) -> None:
        for row in self.query(PriorityRow):
            row.set_layouts([])
        self.gauge.set_level(Level.NORMAL)
        self.sparkline.clear()
        self.query_one("#context-hint", FitStatic).update("")

    def show(
        self,
        session: Session,
        projection: Projection,
        totals: Totals,
        gauge: ContextGauge | None,
        *,
        show_excluded: bool,
        problem: str = "",
    ) -> None:
        """The header at `projection`'s leaf; `gauge` None: the size could not be read (`problem`)."""
        glyphs = glyphs_of(self)
        self.query_one("#context-what", PriorityRow).set_layouts(
            model_layouts(projection.model, projection.thinking_level, projection.message_count, glyphs)
        )
        figures = self.query_one("#context-figures", PriorityRow)
        if gauge is None:
            figures.set_layouts([(f"context size unknown: {problem}", "", "")])
            self.gauge.set_level(Level.NORMAL)
        else:
            figures.set_layouts(figure_layouts(gauge, totals, glyphs))
            self.gauge.set_level(gauge.level)
        self.sparkline.show(session, projection.path)
        hidden = why_hidden(projection.excluded)
        hint = ("x: hide what is not in context" if show_excluded else "x: show what is not in context") + (
            f" ({hidden})" if hidden else ""
        )
        try:
            lost = break_at(session, projection.path)
        except (SessionError, OSError, ValueError):
            lost = None  # (the sparkline says the replies cannot be read)
        if lost is not None:
            hint = f"{glyphs.cache_break} {lost.summary()} {glyphs.dot} {hint}"
        self.query_one("#context-hint", FitStatic).update(one_line(hint, 300, glyphs=glyphs))
