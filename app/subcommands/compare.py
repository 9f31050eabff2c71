"""`pi-sessions compare`: two leaves of one session side by side (split point, spend, context)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...core.projection.compare import Comparison, Side
    from ...core.projection.context import Fate
    from ...core.session.session import Session

HELP = "where two leaves split, what each spent since, and how their contexts differ"

EXAMPLES = (
    "pi-sessions compare FILE 1a7dd750 58908d9d",
    "pi-sessions compare FILE 1a7dd750 58908d9d --json | jq .split",
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="PATH")
    parser.add_argument("leaf_a", metavar="LEAF_A")
    parser.add_argument("leaf_b", metavar="LEAF_B")
    parser.add_argument("--json", action="store_true", help="one JSON object")


def run(ns: argparse.Namespace) -> int:
    return cmd_compare(ns.path, ns.leaf_a, ns.leaf_b, ns.json)


def cmd_compare(path: str, leaf_a: str, leaf_b: str, as_json: bool) -> int:
    from ...core.common.jsonout import encode_json
    from ...core.projection.compare import compare
    from .common import open_session
    from .output import write_line

    session = open_session(path)
    for leaf in (leaf_a, leaf_b):
        session.get(leaf)  # an unknown id is an error before anything is printed
    comparison = compare(session, leaf_a, leaf_b)
    if as_json:
        write_line(encode_json(comparison_json(comparison)))
    else:
        _print_comparison(session, comparison)
    return 0


def comparison_json(comparison: Comparison) -> dict[str, Any]:
    return {
        "split": comparison.split_id,
        "relation": str(comparison.relation),
        "a": _side_json(comparison.a),
        "b": _side_json(comparison.b),
        "only_in_a": [r.id for r in comparison.a.only_here],
        "only_in_b": [r.id for r in comparison.b.only_here],
        "different_form": [
            {"id": d.record.id, "a": _fate_json(d.a), "b": _fate_json(d.b)} for d in comparison.different_form
        ],
        "shared_count": comparison.shared_count,
    }


def _side_json(side: Side) -> dict[str, Any]:
    from ...core.common.jsvalues import json_number

    return {
        "leaf": side.leaf.id,
        "entries_since_split": [r.id for r in side.since_split],
        "message_count": side.message_count,
        "tokens": json_number(side.totals.tokens),
        "cost": round(side.totals.cost, 6),
        "context_tokens": side.context_tokens,
        "context_message_count": side.context_message_count,
    }


def _fate_json(fate: Fate) -> dict[str, Any]:
    return {"reason": str(fate.reason), "by": fate.by, "messages": fate.message_count}


def _print_comparison(session: Session, comparison: Comparison) -> None:
    from ...core.common.text import counted, human_count, visible
    from ...core.session.describe import entry_summary_line
    from .output import text

    def line(value: str) -> None:
        text(visible(value).replace("\n", "\u240a"))  # one line per line, whatever the session holds

    a, b = comparison.a, comparison.b
    line(f"compare A {a.leaf.id} and B {b.leaf.id} ({comparison.relation})")
    if comparison.split is None:
        line("split: none, the two leaves have different roots")
    else:
        line(f"split: {entry_summary_line(session, comparison.split)}")
    for name, side in (("A", a), ("B", b)):
        line(
            f"{name} {side.leaf.id}: {len(side.since_split)} entries since the split, "
            f"{counted(side.message_count, 'message')}, {human_count(side.totals.tokens)} tokens, "
            f"${side.totals.cost:.4f}; {counted(side.context_message_count, 'message')}, "
            f"{human_count(side.context_tokens)} tokens in its context"
        )
    for name, side in (("A", a), ("B", b)):
        if side.only_here:
            line(f"only in {name}'s context ({len(side.only_here)}):")
            for record in side.only_here:
                line(f"  {entry_summary_line(session, record)}")
    if comparison.different_form:
        line(f"in both, sent differently ({len(comparison.different_form)}):")
        for difference in comparison.different_form:
            line(f"  {entry_summary_line(session, difference.record)}")
            line(f"      A: {difference.a.describe()}")
            line(f"      B: {difference.b.describe()}")
    line(f"{comparison.shared_count} entries sent the same way on both sides")
