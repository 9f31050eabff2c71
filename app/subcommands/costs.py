"""`pi-sessions costs`: tokens by kind and cost over every session, by period, model or project."""

from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from ...core.listing.summary import SessionSummary
    from ...core.projection.cost_report import CostGroup, CostReport, Grouping
    from ...core.projection.paid_replies import PaidReply

HELP = "tokens and cost of every session by day, week, month, model or project (each paid reply once)"

EPILOG = """\
Each paid reply is counted once: a fork or a clone copies earlier replies into its new file,
and those copies were not paid again. Days, weeks (ISO) and months are in UTC."""

EXAMPLES = (
    "pi-sessions costs                      per day, every session",
    "pi-sessions costs --by model --since 30d",
    "pi-sessions costs --by week --json     one JSON object per week",
)


def configure(parser: argparse.ArgumentParser) -> None:
    from ...core.projection.cost_report import GROUPINGS

    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EPILOG
    parser.add_argument(
        "--by",
        choices=GROUPINGS,
        default="day",
        help="group by UTC day (default), ISO week, month, model or cwd",
    )
    parser.add_argument("--since", metavar="DUR", help="only replies made within DUR (12h, 7d, 2w, 3mo, 1y)")
    parser.add_argument("--session-dir", metavar="DIR")
    parser.add_argument("--json", action="store_true", help="JSON Lines, one object per group")
    parser.add_argument(
        "--no-cache", action="store_true", help="list every file instead of using the index cache"
    )
    parser.add_argument(
        "--with-subagents",
        action="store_true",
        help="also the subagent sessions pi does not list (below its two levels; see list --subagents)",
    )


def run(ns: argparse.Namespace) -> int:
    from .common import since_ms

    return cmd_costs(
        ns.by,
        since_ms(ns.since),
        ns.session_dir,
        ns.json,
        use_cache=not ns.no_cache,
        with_subagents=ns.with_subagents,
    )


def store_replies(root: str, use_cache: bool = True, with_subagents: bool = False) -> list[PaidReply]:
    """Every paid reply of every session under `root` (see `replies_of`; `with_subagents`:
    those of the subagent sessions pi does not list too); a file that cannot be read is
    skipped with a line on stderr."""
    from ...core.listing.store import list_sessions
    from .output import warn

    skipped: list[str] = []
    summaries = list_sessions(root, use_cache=use_cache).summaries
    if with_subagents:
        from ...core.listing.subagents import find

        summaries = summaries + find(root, summaries).extra
    replies = replies_of(summaries, skipped)
    for line in skipped:
        warn(f"pi-sessions: skipped {line}")
    return replies


def replies_of(
    summaries: Iterable[SessionSummary], skipped: list[str], cancelled: Callable[[], bool] | None = None
) -> list[PaidReply]:
    """Every paid reply of these sessions, oldest session first (so a reply a fork copied is
    found first in the file where it was made); each file that cannot be read adds a line
    to `skipped`. Stops early (with what it has) once `cancelled()` says so."""
    from ...core.common.jsvalues import date_ms
    from ...core.common.problems import SessionError
    from ...core.projection.paid_replies import paid_replies
    from ...core.session.session import Session

    def age(summary: SessionSummary) -> tuple[float, str]:
        ms = date_ms(summary.created)
        return (ms if ms is not None else float("inf"), summary.path)

    replies: list[PaidReply] = []
    for summary in sorted(summaries, key=age):
        if cancelled is not None and cancelled():
            break
        try:
            replies.extend(paid_replies(Session.open(summary.path, cache_entries=0)))
        except (SessionError, OSError) as e:
            skipped.append(f"{summary.path}: {e}")
    return replies


def cmd_costs(
    by: Grouping,
    since_ms: float | None,
    session_dir: str | None,
    as_json: bool,
    use_cache: bool = True,
    with_subagents: bool = False,
) -> int:
    from ...core.common.jsonout import encode_json
    from ...core.common.locations import resolve_sessions_root
    from ...core.projection.cost_report import cost_report
    from .output import text, write_lines

    root = resolve_sessions_root(session_dir)
    report = cost_report(store_replies(root.path, use_cache, with_subagents), by, since_ms)
    if as_json:
        write_lines([encode_json(g.to_json()) for g in report.groups])
        return 0
    if not report.groups:
        text(f"no paid replies in {root.describe()}")
        return 0
    for line in report_lines(report):
        text(line)
    text(f"in {root.describe()}")
    return 0


_HEADS = {"day": "day (UTC)", "week": "week (UTC)", "month": "month (UTC)", "model": "model", "cwd": "cwd"}
_COLUMNS = ("replies", "estimated", "input", "output", "cache read", "cache write", "cost")


def _cells(group: CostGroup) -> list[str]:
    return [
        f"{group.replies:,}",
        f"{group.estimated:,}",
        f"{group.input:,}",
        f"{group.output:,}",
        f"{group.cache_read:,}",
        f"{group.cache_write:,}",
        f"${group.cost:.4f}",
    ]


def report_lines(report: CostReport, bar_width: int = 0, bar: str = "#") -> list[str]:
    """The readable table: a row per group (with a bar of its cost, `bar_width` cells at
    most, when that is above 0), then the totals and what was counted once."""
    from ...core.common.text import one_line

    rows = [[one_line(g.key, 60), *_cells(g)] for g in report.groups]
    total = ["total", *_cells(report.total)]
    head = [_HEADS[report.by], *_COLUMNS]
    if bar_width > 0:
        top = max((g.cost for g in report.groups), default=0.0)
        for row, group in zip(rows, report.groups, strict=True):
            row.append(_bar(group.cost, top, bar_width, bar))
        head.append("")
        total.append("")
    widths = [max(len(r[i]) for r in [head, total, *rows]) for i in range(len(head))]

    def line(cells: list[str]) -> str:
        first = cells[0].ljust(widths[0])
        middle = [c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
        if bar_width > 0:
            middle[-1] = cells[-1]  # the bar grows from the left
        return "  ".join([first, *middle]).rstrip()

    ruled = widths[:-1] if bar_width > 0 else widths  # (no rule under the bars)
    rule = "  ".join("-" * w for w in ruled)
    out = [line(head), rule, *(line(r) for r in rows), rule, line(total)]
    note = f"{report.total.replies:,} paid replies"
    if report.copies:
        note += f"; {report.copies:,} copies of them in forks or clones not counted again"
    if report.total.estimated:
        note += f"; {report.total.estimated:,} of them priced by pi's model catalog (estimated), not billed"
    out.append(note)
    return out


def _bar(value: float, top: float, width: int, bar: str) -> str:
    """`value`'s share of `top` as a run of `bar` (at least one cell for anything spent)."""
    if not (top > 0 and value > 0):
        return ""
    share = value / top  # NaN or inf when a file reports an infinite cost: a full bar
    return bar * max(1, round(share * width)) if math.isfinite(share) else bar * width
