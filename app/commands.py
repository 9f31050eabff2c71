"""The printing subcommands: list, tree, context, fork. No textual import here."""

from __future__ import annotations

import os
import sys
from typing import BinaryIO

from ..core.context import Projection, entry_messages, project
from ..core.fork import plan_fork, write_fork
from ..core.jsonout import encode_json
from ..core.locations import fork_folder, resolve_sessions_root
from ..core.outline import entry_summary_line, outline_rows
from ..core.problems import SessionError
from ..core.session import Session
from ..core.store import list_sessions


def _out() -> BinaryIO:
    return sys.stdout.buffer


def _write_line(data: bytes) -> None:
    _out().write(data + b"\n")


def _text(line: str) -> None:
    _out().write(line.encode("utf-8", "replace") + b"\n")


def cmd_list(session_dir: str | None, cwd: str | None, as_json: bool, use_cache: bool = True) -> int:
    root = resolve_sessions_root(session_dir)
    listing = list_sessions(root.path, use_cache=use_cache)
    rows = listing.summaries
    if cwd is not None:
        wanted = os.path.abspath(os.path.expanduser(cwd))
        rows = [s for s in rows if s.cwd and os.path.abspath(s.cwd) == wanted]
    if as_json:
        for summary in rows:
            _write_line(encode_json(summary.to_json()))
        return 0
    if not rows:
        _text(f"no sessions in {root.describe()}")
        return 0
    for summary in rows:
        name = (summary.name or summary.first_message).replace("\n", " ")[:70]
        flags = "".join(
            f
            for f, on in (("*", summary.is_fork), ("!", bool(summary.problems)), ("+", summary.tip_count > 1))
            if on
        )
        _text(f"{(summary.modified or '')[:16]:16}  {summary.message_count:5} msgs  {flags:3} {name}")
        _text(f"{'':16}  {summary.cwd}  {summary.path}")
    for path, reason in listing.skipped:
        print(f"skipped {path}: {reason}", file=sys.stderr)
    return 0


def _open(path: str, cache_entries: int = 512) -> Session:
    session = Session.open(path, cache_entries=cache_entries)
    if session.header is None:
        raise SessionError(f"not a pi session yet: {session.path} is empty")
    return session


def cmd_tree(path: str, as_json: bool) -> int:
    session = _open(path)
    if as_json:
        ids = set(session.by_id)
        obj = {
            "header": session.header,
            "entry_ids": session.entry_ids(),
            "default_leaf": session.default_leaf,
            "session_name": session.name,
            "roots": session.roots,
            "children": {r.id: list(session.children.get(r.id, ())) for r in session.winners()},
            "preorder": session.preorder(),
            "labels": {k: v for k, v in session.labels.items() if k in ids},
            "label_timestamps": {k: v for k, v in session.label_timestamps.items() if k in ids},
            "diagnostics": [p.to_json() for p in session.problems],
        }
        _write_line(encode_json(obj))
        return 0
    header = session.header or {}
    _text(f"session {header.get('id')}  cwd {header.get('cwd')}  {len(session.records)} entries")
    if session.name:
        _text(f"name: {session.name}")
    for row in outline_rows(session):
        marker = "*" if row.on_active_path else " "
        _text(f"{marker} {'  ' * row.depth}{row.connector}{entry_summary_line(session, row.record)}")
    for problem in session.problems:
        _text(f"! {problem}")
    return 0


class _MessageCache:
    """Encoded messages per (context entry, position, edit): `context --all` repeats them."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.cache: dict[tuple[int, bool, int], list[bytes]] = {}

    def encoded(self, projection: Projection) -> list[bytes]:
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
    }
    encoded = encode_json(head)
    return encoded[:-1] + b',"messages":[' + b",".join(messages) + b"]}"


def cmd_context(path: str, leaves: list[str] | None, all_leaves: bool, as_json: bool) -> int:
    session = _open(path, cache_entries=1 << 30)
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
    for leaf in wanted:
        projection = project(session, leaf)
        if as_json:
            _write_line(_context_line(session, projection, cache.encoded(projection)))
        else:
            _print_context(session, projection)
    return 0


def _print_context(session: Session, projection: Projection) -> None:
    model = projection.model or {}
    _text(
        f"leaf {projection.leaf_id}  model {model.get('provider', '?')}/{model.get('modelId', '?')}  "
        f"thinking {projection.thinking_level}  {projection.message_count} messages  "
        f"~{projection.estimated_tokens()} tokens"
    )
    counts = dict(zip((r.index for r in projection.context), projection.counts, strict=True))
    for fate in projection.fates:
        mark = "+" if fate.in_context else "-"
        n = counts.get(fate.record.index, 0)
        why = fate.describe() + (f", {n} msg" if n else "")
        _text(f"{mark} {entry_summary_line(session, fate.record)}  [{why}]")
    _text("")


def cmd_fork(
    path: str,
    leaf: str,
    cwd: str | None,
    session_dir: str | None,
    dry_run: bool,
    as_json: bool,
) -> int:
    session = _open(path)
    folder = None
    if cwd is not None:
        folder = fork_folder(resolve_sessions_root(session_dir), cwd)
    plan = plan_fork(session, leaf, cwd=cwd, folder=folder)
    written: str | None = None
    if not dry_run:
        written = write_fork(plan)
    if as_json:
        _write_line(encode_json({"path": written, "lines": plan.lines, "plannedPath": plan.path}))
        return 0
    what = "would write" if dry_run else "wrote"
    _text(f"{what} {plan.path}")
    _text(f"  {plan.entry_count} entries, from {session.path} at {leaf}")
    for target, label in plan.labels:
        _text(f"  label {label!r} on {target}")
    return 0


def cmd_resume(path: str, template: str | None, here: bool, print_only: bool) -> int:
    import shutil

    from ..core.resume import build_resume_command, shell_line
    from .config import load_settings

    session = _open(path)
    settings, _ = load_settings()
    cwd = os.getcwd() if here else session.cwd
    argv = build_resume_command(
        template or settings.resume_command, session.path or path, cwd, session.session_id or ""
    )
    line = shell_line(argv, cwd)
    if print_only:
        _text(line)
        return 0
    if not cwd or not os.path.isdir(cwd):
        raise SessionError(
            f"the session's directory no longer exists: {cwd or '(none)'}; use --here to resume in this one"
        )
    if not argv or shutil.which(argv[0]) is None:
        raise SessionError(f"{argv[0] if argv else 'pi'} is not on PATH; the command would be: {line}")
    sys.stdout.flush()
    os.chdir(cwd)
    os.execvp(argv[0], argv)


__all__ = ["cmd_context", "cmd_fork", "cmd_list", "cmd_resume", "cmd_tree"]
