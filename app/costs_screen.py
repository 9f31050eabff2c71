"""The costs of every session (`$`): tokens and cost per day, week, month, model or project,
with a plot over the periods (in all and per model or project) and a bar per row; each paid
reply counted once.

The replies are read in a worker thread (every session file: the title says so meanwhile);
changing the grouping (`g`) or the plot's split (`p`) only regroups what was read
(core/projection/cost_report.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.worker import Worker, get_current_worker

from ..core.common.glyphs import ASCII
from ..core.listing.summary import SessionSummary
from ..core.projection.cost_report import (
    GROUPINGS,
    PERIODS,
    CostReport,
    Grouping,
    cost_report,
    cost_series,
)
from ..core.projection.paid_replies import PaidReply
from ..core.projection.timeline import sparkline
from ..widgets.glyphs import glyphs_of
from ..widgets.keys import bindings
from ..widgets.plain import PlainStatic
from ..widgets.worker_failures import tell_failure
from .keymap import hint
from .screens import live_keys

SPLIT_ROWS = 5  # the plot's lines of the costliest models or projects
NAME_CELLS = 40
_SPLIT_NAMES = {"model": "model", "cwd": "project"}
BAR_CELLS = 40  # the longest bar (the costliest row), when the table leaves the room
SPARK_CELLS = 60


class CostsScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    CostsScreen #costs-box {
        width: 95%; max-width: 160; height: auto; max-height: 90%;
        background: $surface; border: round $primary; padding: 0 1;
    }
    .-ascii CostsScreen #costs-box { border: ascii $primary; }
    CostsScreen #costs-lines { height: auto; max-height: 70vh; }
    CostsScreen .lead { text-style: bold; color: $secondary; }
    CostsScreen .dim { color: $text-muted; }
    CostsScreen .spark { color: $secondary; }
    """
    BINDINGS = bindings("costs")

    def __init__(self, summaries: Sequence[SessionSummary], by: Grouping = "day") -> None:
        super().__init__()
        self.summaries = list(summaries)
        self.by: Grouping = by
        self.split: Literal["model", "cwd"] = "model"  # the plot's lines, by period
        self.replies: list[PaidReply] | None = None  # None until read
        self.skipped: list[str] = []
        self.report: CostReport | None = None
        self.lines: list[str] = []

    def compose(self) -> ComposeResult:
        # (Not the `dialog` class: a table this wide needs more than its 110 columns.)
        with Vertical(id="costs-box"):
            yield PlainStatic(self._title(), id="costs-title", classes="dialog-title")
            with VerticalScroll(id="costs-lines"):
                yield PlainStatic(
                    f"reading {len(self.summaries):,} sessions{glyphs_of(self).ellipsis}", classes="dim"
                )
            yield PlainStatic(self._hint(), id="costs-hint", classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one("#costs-lines", VerticalScroll).focus()
        self._read()

    @work(thread=True, exclusive=True, group="costs", exit_on_error=False)
    def _read(self) -> None:
        from .subcommands.costs import replies_of

        worker = get_current_worker()
        skipped: list[str] = []
        replies = replies_of(self.summaries, skipped, cancelled=lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            self.app.call_from_thread(self._take, replies, skipped)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        tell_failure(self, event, "Reading the costs")

    def _take(self, replies: list[PaidReply], skipped: list[str]) -> None:
        self.replies, self.skipped = replies, skipped
        self._show()

    def _show(self) -> None:
        from .subcommands.costs import report_lines

        if self.replies is None:
            self.query_one("#costs-title", PlainStatic).update(self._title())
            self.query_one("#costs-hint", PlainStatic).update(self._hint())
            return
        report = self.report = cost_report(self.replies, self.by)
        ascii = glyphs_of(self) == ASCII
        lines: list[tuple[str, str]] = []
        if report.by in PERIODS:
            lines.extend(self._plot(ascii))
        if report.groups:
            # The bars take what room the table leaves (the scrollbar's and a gap's aside).
            table_width = max(len(line) for line in report_lines(report)[:-1])
            room = self.query_one("#costs-lines", VerticalScroll).size.width - table_width - 4
            table = report_lines(report, min(max(room, 0), BAR_CELLS), "#" if ascii else "█")
            lines.extend((line, "lead" if i == 0 else "") for i, line in enumerate(table))
        else:
            lines.append(("No paid replies in these sessions.", "dim"))
        lines.extend((f"skipped {line}", "dim") for line in self.skipped)
        self.lines = [text for text, _ in lines]
        box = self.query_one("#costs-lines", VerticalScroll)
        box.remove_children()
        box.mount_all([PlainStatic(text, classes=kind or None) for text, kind in lines])
        self.query_one("#costs-title", PlainStatic).update(self._title())
        self.query_one("#costs-hint", PlainStatic).update(self._hint())

    def _plot(self, ascii: bool) -> list[tuple[str, str]]:
        """The cost per period from the first to the last (empty ones too): in all, then the
        costliest models or projects on the same scale."""
        from ..core.common.text import one_line

        series = cost_series(self.replies or [], self.by, self.split)
        if len(series.periods) < 2:
            return []
        top = max(series.total)
        unit = f"{len(series.periods):,} {self.by}s"
        out = [(f"cost per {self.by}, {series.periods[0]} to {series.periods[-1]} ({unit})", "dim")]
        names = [one_line(name, NAME_CELLS) for name, _ in series.parts[:SPLIT_ROWS]]
        width = max((len(n) for n in names), default=0)
        width = max(width, len("all"))
        out.append(
            (
                f"{'all'.ljust(width)}  {sparkline(series.total, SPARK_CELLS, ascii=ascii, ceiling=top)}",
                "spark",
            )
        )
        for name, (_, costs) in zip(names, series.parts, strict=False):
            out.append(
                (f"{name.ljust(width)}  {sparkline(costs, SPARK_CELLS, ascii=ascii, ceiling=top)}", "spark")
            )
        if len(series.parts) > SPLIT_ROWS:
            more = len(series.parts) - SPLIT_ROWS
            out.append((f"and {more} more {_SPLIT_NAMES[self.split]}{'s' if more > 1 else ''}", "dim"))
        out.append(("", ""))
        return out

    def on_resize(self) -> None:
        self._show()  # the bars fit the new width

    def _title(self) -> str:
        dot = f" {glyphs_of(self).dot} "
        title = f"Costs by {self.by}{dot}{len(self.summaries):,} sessions"
        if self.report is not None:
            title += f"{dot}{self.report.total.replies:,} paid replies{dot}${self.report.total.cost:.2f}"
        return title

    def _hint(self) -> str:
        after = GROUPINGS[(GROUPINGS.index(self.by) + 1) % len(GROUPINGS)]
        items = [("costs.by", f"by {after}")]
        if self.by in PERIODS:
            other = "cwd" if self.split == "model" else "model"
            items.append(("costs.split", f"plot by {_SPLIT_NAMES[other]}"))
        return hint(live_keys(self), [*items, ("costs.close", "close")])

    def text(self) -> str:
        return "\n".join(self.lines)

    def action_next_grouping(self) -> None:
        self.by = GROUPINGS[(GROUPINGS.index(self.by) + 1) % len(GROUPINGS)]
        self._show()

    def action_toggle_split(self) -> None:
        if self.by in PERIODS:
            self.split = "cwd" if self.split == "model" else "model"
            self._show()

    def action_close(self) -> None:
        self.workers.cancel_group(self, "costs")
        self.dismiss(None)
