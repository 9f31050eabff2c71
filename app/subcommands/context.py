"""`pi-sessions context`: what the model saw at one or more entries (pi's projection)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...core.context import Projection
    from ...core.session import Session

HELP = "what the model saw at an entry (default: the default leaf)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="PATH")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--leaf", metavar="ID", action="append", help="an entry id (repeatable)")
    group.add_argument("--all", action="store_true", help="every entry as the leaf")
    parser.add_argument("--json", action="store_true", help="JSON Lines, one object per leaf")


def run(ns: argparse.Namespace) -> int:
    return cmd_context(ns.path, ns.leaf, ns.all, ns.json)


class _MessageCache:
    """Encoded messages per (context entry, position, edit): `context --all` repeats them."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.cache: dict[tuple[int, bool, int], list[bytes]] = {}

    def encoded(self, projection: Projection) -> list[bytes]:
        from ...core.context import entry_messages
        from ...core.jsonout import encode_json

        out: list[bytes] = []
        for index, (record, count) in enumerate(zip(projection.context, projection.counts, strict=True)):
            if not count:
                continue
            edit = projection.edits.get(record.id)
            key = (record.index, index == 0, edit.index if edit else -1)
            cached = self.cache.get(key)
            if cached is None:
                messages = entry_messages(self.session, record, index == 0, edit)
                cached = [encode_json(m) for m in messages]
                self.cache[key] = cached
            out.extend(cached)
        return out


def _context_line(session: Session, projection: Projection, messages: list[bytes]) -> bytes:
    from ...core.jsonout import encode_json
    from ...core.tokens import estimate_context

    totals = projection.path_totals(session)
    head = {
        "leaf": projection.leaf_id,
        "context_entry_ids": [r.id for r in projection.context],
        "projection_message_counts": projection.counts,
        "model": projection.model,
        "thinkingLevel": projection.thinking_level,
        "excluded": [
            {"id": f.record.id, "reason": str(f.reason), "by": f.by}
            for f in projection.fates
            if not f.in_context
        ],
        "tokens": totals.tokens,
        "cost": round(totals.cost, 6),
        "context_tokens": estimate_context(session, projection).pi_value,
    }
    encoded = encode_json(head)
    return encoded[:-1] + b',"messages":[' + b",".join(messages) + b"]}"


def cmd_context(path: str, leaves: list[str] | None, all_leaves: bool, as_json: bool) -> int:
    from ...core.context import project
    from ...core.problems import SessionError
    from .common import open_session
    from .output import write_line

    session = open_session(path, cache_entries=1 << 30)
    if all_leaves:
        wanted = list(dict.fromkeys(session.entry_ids()))
    elif leaves:
        wanted = leaves
        for leaf in leaves:
            session.get(leaf)  # unknown ids are an error before anything is printed
    else:
        if session.default_leaf is None:
            raise SessionError("the session has no entries")
        wanted = [session.default_leaf]
    cache = _MessageCache(session)
    printer = _TextPrinter(session)
    for leaf in wanted:
        projection = project(session, leaf)
        if as_json:
            write_line(_context_line(session, projection, cache.encoded(projection)))
        else:
            printer.write(projection)
    return 0


class _TextPrinter:
    """The readable form, leaf after leaf. `--all` prints every path again and again: each
    entry's line (a parse and an excerpt) and each reason's wording are made once."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.entry_lines: dict[int, str] = {}
        self.reasons: dict[tuple[str, str | None], tuple[str, str]] = {}

    def write(self, projection: Projection) -> None:
        from ...core.describe import entry_summary_line
        from ...core.tokens import context_tokens
        from .output import lines

        session = self.session
        model = projection.model or {}
        out = [
            f"leaf {projection.leaf_id}  model {model.get('provider', '?')}/{model.get('modelId', '?')}  "
            f"thinking {projection.thinking_level}  {projection.message_count} messages  "
            f"{context_tokens(session, projection)} tokens of context"
        ]
        counts = dict(zip((r.index for r in projection.context), projection.counts, strict=True))
        entry_lines, reasons = self.entry_lines, self.reasons
        for fate in projection.fates:
            record = fate.record
            line = entry_lines.get(record.index)
            if line is None:
                line = entry_lines[record.index] = entry_summary_line(session, record)
            key = (fate.reason, fate.by)
            said = reasons.get(key)
            if said is None:
                said = reasons[key] = ("+" if fate.in_context else "-", fate.describe())
            mark, why = said
            n = counts.get(record.index, 0)
            out.append(f"{mark} {line}  [{why}, {n} msg]" if n else f"{mark} {line}  [{why}]")
        out.append("")
        lines(out)
