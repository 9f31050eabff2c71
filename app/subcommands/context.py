"""`pi-sessions context`: what the model saw at one or more entries (pi's projection)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from itertools import compress
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...core.projection.context import Projection
    from ...core.reading.early_messages import EarlyMessages
    from ...core.reading.records import EntryRecord
    from ...core.session.session import Session

HELP = "what the model saw at an entry (default: the default leaf)"

EXAMPLES = (
    "pi-sessions context FILE",
    "pi-sessions context FILE --leaf 1a7dd750 --json | jq .context_tokens",
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="PATH")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--leaf", metavar="ID", action="append", help="an entry id (repeatable)")
    group.add_argument("--all", action="store_true", help="every entry as the leaf")
    parser.add_argument("--json", action="store_true", help="JSON Lines, one object per leaf")
    from .common import add_store_arguments

    add_store_arguments(parser)


def run(ns: argparse.Namespace) -> int:
    from ...core.common.gcpause import paused_gc

    with paused_gc():  # it allocates a body per entry and makes no cycles
        return cmd_context(ns.path, ns.leaf, ns.all, ns.json, ns.store, ns.host)


class _MessageCache:
    """Encoded messages per (context entry, position, edit): `context --all` repeats them, so
    there they are kept; for one leaf they are written as they are made."""

    def __init__(self, session: Session, keep: bool) -> None:
        self.session = session
        self.keep = keep
        self.cache: dict[tuple[int, bool, int], list[bytes]] = {}

    def encoded(self, projection: Projection) -> Iterator[bytes]:
        """The projection's messages, encoded, in order, in comma-joined groups (none empty);
        the bodies they need read in one pass over the file."""
        from ...core.common.jsonout import encode_json
        from ...core.projection.context import entry_messages

        session, cache, keep, edits = self.session, self.cache, self.keep, projection.edits
        context, counts = projection.context, projection.counts

        def key(index: int, record: EntryRecord) -> tuple[int, bool, int]:
            edit = edits.get(record.id) if edits else None
            return (record.index, index == 0, edit.index if edit else -1)

        if len(counts) != len(context):
            raise ValueError("a projection's counts are one per context entry")
        # Only the entries that send messages, picked at C speed: `--all` on a long chain of
        # labels has thousands of context entries per leaf and one or two that send any.
        sending = [(i, context[i]) for i in compress(range(len(context)), counts)]
        todo = [r for i, r in sending if key(i, r) not in cache] if cache else [r for _, r in sending]
        if not keep:
            yield from _encoded_runs(session, todo, context[0] if counts and counts[0] else None, edits)
            return
        bodies = session.entry_dicts(todo)
        for index, record in sending:
            found = cache.get(key(index, record))
            if found is None:
                edit = edits.get(record.id) if edits else None
                messages = entry_messages(session, record, index == 0, edit, entry=next(bodies))
                found = cache[key(index, record)] = [encode_json(m) for m in messages]
            if found:
                yield b",".join(found)


def _encoded_runs(
    session: Session, todo: list[EntryRecord], first: EntryRecord | None, edits: dict[Any, EntryRecord]
) -> Iterator[bytes]:
    """One leaf: the messages of `todo` (its context entries that send any, `first` the
    context's first entry, `edits` the projection's), encoded a read of bodies at a time."""
    from ...core.common.jsonout import encode_json_items
    from ...core.projection.context import run_messages, sent_as_they_are

    if not edits and sent_as_they_are(todo):  # (a conversation: only its lines' messages decoded)
        for messages in session.entry_message_runs(todo):
            if group := encode_json_items(messages):
                yield group
        return
    at = 0
    for bodies in session.entry_dict_runs(todo):
        run = todo[at : at + len(bodies)]
        at += len(bodies)
        if group := encode_json_items(run_messages(session, run, bodies, first, edits)):
            yield group


# The bytes joined before a write.
WRITE_BYTES = 1 << 20


def _context_head(session: Session, projection: Projection) -> bytes:
    """The JSON line of one leaf up to its messages (`{...,"messages":[`)."""
    from ...core.common.jsonout import encode_json
    from ...core.common.jsvalues import json_number
    from ...core.projection.tokens import estimate_context

    totals = projection.path_totals(session)
    head = {
        "leaf": projection.leaf_id,
        "context_entry_ids": [r.id for r in projection.context],
        "projection_message_counts": projection.counts,
        "model": projection.model,
        "thinkingLevel": projection.thinking_level,
        "excluded": [
            {"id": f.record.id, "reason": str(f.reason), "by": f.by}
            for f in (projection.fates if projection.excluded else ())
            if not f.in_context
        ],
        "tokens": json_number(totals.tokens),
        "cost": round(totals.cost, 6),
        "context_tokens": estimate_context(session, projection).pi_value,
    }
    return encode_json(head)[:-1] + b',"messages":['


def _context_line(session: Session, projection: Projection, groups: Iterator[bytes]) -> Iterator[bytes]:
    """The JSON line of one leaf, in pieces (the messages stream from `groups`, comma-joined)."""
    batch = [_context_head(session, projection)]
    size = 0
    for i, group in enumerate(groups):
        if i:
            batch.append(b",")
        batch.append(group)
        size += len(group)
        if size >= WRITE_BYTES:
            yield b"".join(batch)
            batch, size = [], 0
    batch.append(b"]}")
    yield b"".join(batch)


def cmd_context(
    path: str,
    leaves: list[str] | None,
    all_leaves: bool,
    as_json: bool,
    store: str | None = None,
    host: str | None = None,
) -> int:
    early = None
    if store is None and as_json and not all_leaves and (leaves is None or len(leaves) == 1):
        from ...core.reading.early_messages import EarlyMessages

        early = EarlyMessages.start(path)  # before the open: it works while the file is read
    try:
        return _cmd_context(path, leaves, all_leaves, as_json, early, store, host)
    finally:
        if early is not None:
            early.close()


def _cmd_context(
    path: str,
    leaves: list[str] | None,
    all_leaves: bool,
    as_json: bool,
    early: EarlyMessages | None,
    store: str | None,
    host: str | None,
) -> int:
    from ...core.common.problems import SessionError
    from ...core.projection.context import project
    from .common import open_any
    from .output import write_pieces

    session = open_any(path, store, host)
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
    cache = _MessageCache(session, keep=len(wanted) > 1)
    printer = _TextPrinter(session)
    for leaf in wanted:
        projection = project(session, leaf)
        if as_json and early is not None and _write_early(session, projection, early):
            continue
        if as_json:
            write_pieces(_context_line(session, projection, cache.encoded(projection)))
        else:
            printer.write(projection)
    return 0


def _write_early(session: Session, projection: Projection, early: EarlyMessages) -> bool:
    """The leaf's line with the messages the helper encoded, if they are the leaf's (True)."""
    from .output import write_line_around

    if projection.edits or session.migrated or len(session.by_id) != len(session.records):
        return False  # (an id used twice: pi takes its later line, maybe one the helper skipped)
    made = early.take(list(compress(projection.context, projection.counts)))
    if made is None:
        return False
    write_line_around(_context_head(session, projection), *made, b"]}")
    return True


MADE_LINES = 1 << 18  # the whole lines `_TextPrinter` remembers at most


class _TextPrinter:
    """The readable form, leaf after leaf. `--all` prints every path again and again: each
    entry's line (a parse and an excerpt) and each reason's wording are made once."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.entry_lines: dict[int, str] = {}
        self.reasons: dict[tuple[str, str | None], tuple[str, str]] = {}
        self.made: dict[tuple[int, str, str | None, int], str] = {}

    def write(self, projection: Projection) -> None:
        from ...core.common.text import counted
        from ...core.projection.tokens import context_tokens
        from ...core.session.describe import entry_summary_line
        from .output import lines

        session = self.session
        model = projection.model or {}
        out = [
            f"leaf {projection.leaf_id}  model {model.get('provider', '?')}/{model.get('modelId', '?')}  "
            f"thinking {projection.thinking_level}  {counted(projection.message_count, 'message')}  "
            f"{context_tokens(session, projection)} tokens of context"
        ]
        context = projection.context
        counts = {context[i].index: n for i, n in enumerate(projection.counts) if n}
        entry_lines, reasons, made = self.entry_lines, self.reasons, self.made
        for fate in projection.fates:
            record = fate.record
            n = counts.get(record.index, 0)
            # (each leaf of `--all` prints its whole path again: a line is made once)
            whole = (record.index, fate.reason, fate.by, n)  # (the reason says if it is in)
            done = made.get(whole)
            if done is None:
                line = entry_lines.get(record.index)
                if line is None:
                    line = entry_lines[record.index] = entry_summary_line(session, record)
                key = (fate.reason, fate.by)
                said = reasons.get(key)
                if said is None:
                    said = reasons[key] = ("+" if fate.in_context else "-", fate.describe())
                mark, why = said
                done = f"{mark} {line}  [{why}, {n} msg]" if n else f"{mark} {line}  [{why}]"
                if len(made) < MADE_LINES:
                    made[whole] = done
            out.append(done)
        out.append("")
        lines(out)
