"""The context pane's header: model, thinking level, messages, tokens and cost at a glance.

Two lines under the pane's title: what the model is and saw (line 1), and what `x` would show
or hide (line 2). A new element of the header (a gauge of pi's context size, a sparkline) is a
child of this widget, fed from `show`.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical

from ..core.context import Projection, Reason
from ..core.jsvalues import js_string
from ..core.session import Totals
from ..core.text import human_count, one_line
from .glyphs import glyphs_of
from .plain import FitStatic

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


class ContextHeader(Vertical):
    def compose(self) -> ComposeResult:
        yield FitStatic("", id="context-line1", classes="one-line")
        yield FitStatic("", id="context-line2", classes="one-line dim")

    def clear(self) -> None:
        for line in self.query(FitStatic):
            line.update("")

    def show(self, projection: Projection, totals: Totals, *, show_excluded: bool) -> None:
        glyphs = glyphs_of(self)
        model = projection.model or {}
        model_text = (
            f"{js_string(model.get('provider')) or '?'}/{js_string(model.get('modelId')) or '?'}"
            if model
            else "no model yet"
        )
        line1 = f" {glyphs.dot} ".join(
            [
                model_text,
                f"thinking {js_string(projection.thinking_level) or 'off'}",
                f"{projection.message_count} messages",
                f"~{human_count(projection.estimated_tokens())} tokens",
                f"${totals.cost:.2f} / {human_count(totals.tokens)} tokens spent on this path",
            ]
        )
        hidden = why_hidden(projection.excluded)
        line2 = ("x: hide what is not in context" if show_excluded else "x: show what is not in context") + (
            f" ({hidden})" if hidden else ""
        )
        self.query_one("#context-line1", FitStatic).update(one_line(line1, 300, glyphs=glyphs))
        self.query_one("#context-line2", FitStatic).update(one_line(line2, 300, glyphs=glyphs))
