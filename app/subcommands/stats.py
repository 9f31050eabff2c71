"""`pi-sessions stats`: cost and context of one session at a leaf, and what makes the file big."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...core.listing.spawner import Child
    from ...core.projection.sizes import ByteCount
    from ...core.projection.stats import SessionStats

HELP = "context size, tokens and cost per path and branch, compactions, file size (at a leaf)"

EXAMPLES = (
    "pi-sessions stats FILE",
    "pi-sessions stats FILE --json | jq .context.context_percent",
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="PATH")
    parser.add_argument("--leaf", metavar="ID", help="an entry id (default: the default leaf)")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    parser.add_argument("--ascii", action="store_true", help="ASCII sparkline")
    parser.add_argument(
        "--with-subagents",
        action="store_true",
        help="also the session's subagent sessions (and theirs): each one's tokens and cost, and the "
        "totals with them",
    )
    parser.add_argument("--session-dir", metavar="DIR", help="where to look for them (default: pi's)")


def run(ns: argparse.Namespace) -> int:
    return cmd_stats(ns.path, ns.leaf, ns.json, ns.ascii, ns.with_subagents, ns.session_dir)


def cmd_stats(
    path: str,
    leaf: str | None,
    as_json: bool,
    ascii: bool,
    with_subagents: bool = False,
    session_dir: str | None = None,
) -> int:
    from ...core.common.jsonout import encode_json
    from ...core.projection.stats import session_stats
    from .common import open_session
    from .output import write_line

    session = open_session(path)
    if leaf is not None:
        session.get(leaf)  # an unknown id is an error before anything is printed
    stats = session_stats(session, leaf)
    kids = _subagents_of(session.path or path, session_dir) if with_subagents else None
    if as_json:
        out = stats.to_json()
        if kids is not None:
            out.update(_subagents_json(kids, stats.session_tokens, stats.session_cost))
        write_line(encode_json(out))
    else:
        _print_stats(stats, ascii)
        if kids is not None:
            _print_subagents(kids, stats.session_tokens, stats.session_cost)
    return 0


def _subagents_of(path: str, session_dir: str | None) -> list[Child]:
    """The session's subagents and theirs, found in the sessions folder it belongs to."""
    import os

    from ...core.common.locations import resolve_sessions_root
    from ...core.listing.store import list_sessions
    from ...core.listing.subagents import find

    root = resolve_sessions_root(session_dir).path
    return find(root, list_sessions(root).summaries).descendants(os.path.abspath(path))


def _subagents_json(kids: list[Child], tokens: float, cost: float) -> dict[str, object]:
    return {
        "subagents": [
            {
                "path": c.summary.path,
                "id": c.summary.id,
                "parent": c.parent,
                "parentEntryId": c.parent_entry_id,
                "tokens": c.summary.tokens,
                "cost": round(c.summary.cost, 6),
            }
            for c in kids
        ],
        "tokens_with_subagents": tokens + sum(c.summary.tokens for c in kids),
        "cost_with_subagents": round(cost + sum(c.summary.cost for c in kids), 6),
    }


def _print_subagents(kids: list[Child], tokens: float, cost: float) -> None:
    from ...core.common.text import one_line
    from .output import text

    if not kids:
        text("subagents none found")
        return
    text(f"subagents {len(kids)}:")
    for c in kids:
        at = f" (spawned at {one_line(c.parent_entry_id)})" if c.parent_entry_id else ""
        text(
            f"  {one_line(c.summary.title, 60)}: {c.summary.tokens:,.0f} tokens, {_money(c.summary.cost)}{at}"
            f"  {one_line(c.summary.path)}"
        )
    total_tokens = tokens + sum(c.summary.tokens for c in kids)
    total_cost = cost + sum(c.summary.cost for c in kids)
    text(f"with them {total_tokens:,.0f} tokens, {_money(total_cost)} (the whole session and its subagents)")


def _size(n: int) -> str:
    for limit, unit in ((1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "kB")):
        if n >= limit:
            return f"{n / limit:.1f} {unit}"
    return f"{n} B"


def _money(cost: float) -> str:
    return f"${cost:.4f}"


def _bytes_table(items: list[tuple[str, ByteCount]]) -> str:
    from ...core.common.text import one_line

    return ", ".join(f"{one_line(k, 40)} {_size(v.bytes)} (x{v.count})" for k, v in items) or "none"


def _print_stats(stats: SessionStats, ascii: bool) -> None:
    from ...core.common.text import one_line
    from ...core.projection.window import format_tokens
    from .output import text

    model = stats.model or {}
    text(f"session {one_line(str(stats.session_id))}  {one_line(str(stats.path))}")
    text(
        f"leaf {one_line(stats.leaf_id)}  model {one_line(str(model.get('provider', '?')))}/"
        f"{one_line(str(model.get('modelId', '?')))}  thinking {one_line(str(stats.thinking_level))}"
    )
    estimate, gauge = stats.estimate, stats.gauge
    if estimate.anchor_id:
        how = (
            f"reply {one_line(estimate.anchor_id)} reported {estimate.usage_tokens:,}, "
            f"{estimate.trailing_tokens:,} estimated after it"
        )
    else:
        how = "estimated from every message: no usage pi trusts here"
    line = f"context   {estimate.tokens:,} tokens ({how})"
    if gauge.window is not None:
        approx = "at most " if gauge.window.is_estimate else ""
        line += (
            f"; {gauge.percent_text()} of {approx}{format_tokens(gauge.window.tokens)} "
            f"[{gauge.level}] ({gauge.window.source}: {one_line(gauge.window.detail, 80)})"
        )
    if gauge.unknown_in_footer:
        line += "; pi's footer shows ? until the next reply"
    text(line)
    text(
        f"path      {stats.path_entries} entries, {stats.path_tokens:,.0f} tokens, {_money(stats.path_cost)}"
        f"   (whole session: {stats.session_entries} entries, {stats.session_tokens:,.0f} tokens, "
        f"{_money(stats.session_cost)})"
    )
    timeline = stats.timeline
    if timeline.tokens:
        from ...core.common.glyphs import glyphs_for
        from ...core.projection.cache_breaks import break_turns

        spark = timeline.sparkline(60, ascii=ascii, breaks=break_turns(timeline, stats.cache_breaks))
        lost = len(stats.cache_breaks)
        breaks = f", the cache lost at {lost} ({glyphs_for(ascii).cache_break})" if lost else ""
        text(f"over time {spark}  ({len(timeline.tokens)} replies, peak {timeline.peak:,}{breaks})")
    if stats.forks:
        text("branches")
        for fork in stats.forks:
            text(f"  fork at {one_line(fork.entry_id)}:")
            for branch in fork.branches:
                mark = "*" if branch.child_id == fork.on_path_child else " "
                t = branch.totals
                text(
                    f"   {mark} {one_line(branch.child_id)}: {t.entries} entries, {t.leaves} leaves, "
                    f"{t.tokens:,.0f} tokens, {_money(t.cost)}"
                )
    if stats.compactions:
        text("compactions")
    for audit in stats.compactions:
        before = f"{audit.tokens_before:,}" if audit.tokens_before is not None else "?"
        kept = "kept nothing"
        if audit.first_kept_id:
            kept = f"kept {audit.kept_entries} entries from {one_line(audit.first_kept_id)} "
            kept += f"({audit.kept_tokens:,} tokens)"
        text(
            f"  {one_line(audit.compaction_id)} (entry {audit.position + 1} of the path): {before} -> "
            f"{audit.tokens_after:,} tokens; {kept}; summarized {audit.summarized_entries} entries, "
            f"{audit.summarized_messages} messages ({audit.summarized_tokens:,} tokens) into "
            f"{audit.summary_chars:,} characters"
        )
        if audit.missing_paths:
            text("    files not in the summary: " + ", ".join(one_line(p, 80) for p in audit.missing_paths))
        if audit.missing_commands:
            text(
                "    commands not in the summary: "
                + "; ".join(one_line(c, 80) for c in audit.missing_commands)
            )
    sizes = stats.sizes
    text(f"size      {_size(sizes.file_bytes)}: " + _bytes_table(sizes.largest(sizes.by_role)))
    others = {k: v for k, v in sizes.by_type.items() if k != "message"}
    if others:
        text("  other entries: " + _bytes_table(sizes.largest(others)))
    if sizes.tool_results:
        text("  tool results: " + _bytes_table(sizes.largest(sizes.tool_results)))
    if sizes.tool_calls:
        text("  tool calls: " + _bytes_table(sizes.largest(sizes.tool_calls)))
    text(
        f"  active path {_size(sizes.active.bytes)} ({sizes.active.count} entries), "
        f"abandoned branches {_size(sizes.abandoned.bytes)} ({sizes.abandoned.count} entries)"
    )
    if sizes.images.count:
        text(f"  images: {sizes.images.count} ({_size(sizes.images.bytes)} of data)")
    if sizes.clone_drops > 0:
        text(f"  a clone of this leaf (pi-sessions fork) would drop about {_size(sizes.clone_drops)}")
