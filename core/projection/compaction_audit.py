"""What each compaction on a path did: the context before and after, the window it kept, what
it summarized, and the file paths and commands of the summarized work its summary never names.

The summarized span is what the model saw just before the compaction minus what it kept: the
projection at the compaction's parent (the previous checkpoint not counted), up to the first
kept entry. Paths and commands come from the tool calls of that span (read/edit/write `path`,
bash `command`, calls nested in a tool result) and from user-run shell commands (bashExecution);
one "is missing" when the summary text does not contain it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..reading.records import EntryRecord
from ..session.session import Session
from .context import Projection, entry_messages, project
from .message_tokens import js_length
from .tokens import entry_estimate, estimate_context

FILE_TOOLS = ("read", "edit", "write")
COMMAND_TOOLS = ("bash",)


@dataclass(frozen=True, slots=True)
class CompactionAudit:
    compaction_id: str
    position: int  # index on the path
    tokens_before: int | float | None  # as recorded in the entry (pi's estimate when compacting)
    tokens_after: int | float  # pi's estimate with the compaction as the leaf
    first_kept_id: str | None  # None: nothing kept (retain-none, or the id is not on the path)
    kept_entries: int  # path entries from the first kept one up to the compaction
    kept_tokens: int  # what they send after the compaction, in pi's estimate
    summarized_entries: int
    summarized_messages: int
    summarized_tokens: int  # what they sent before the compaction, in pi's estimate
    summary_chars: int
    paths: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    missing_paths: tuple[str, ...] = ()
    missing_commands: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.compaction_id,
            "position": self.position,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "first_kept_id": self.first_kept_id,
            "kept_entries": self.kept_entries,
            "kept_tokens": self.kept_tokens,
            "summarized_entries": self.summarized_entries,
            "summarized_messages": self.summarized_messages,
            "summarized_tokens": self.summarized_tokens,
            "summary_chars": self.summary_chars,
            "paths": list(self.paths),
            "commands": list(self.commands),
            "missing_paths": list(self.missing_paths),
            "missing_commands": list(self.missing_commands),
        }


@dataclass(slots=True)
class _Work:
    """Paths and commands seen, in first-seen order."""

    paths: dict[str, None] = field(default_factory=dict)
    commands: dict[str, None] = field(default_factory=dict)

    def call(self, name: Any, arguments: Any) -> None:
        if not isinstance(arguments, dict):
            return
        if name in FILE_TOOLS:
            path = arguments.get("path")
            if isinstance(path, str) and path:
                self.paths[path] = None
        elif name in COMMAND_TOOLS:
            command = arguments.get("command")
            if isinstance(command, str) and command.strip():
                self.commands[command] = None

    def message(self, message: Any) -> None:
        if not isinstance(message, dict):
            return
        role = message.get("role")
        if role == "assistant":
            content = message.get("content")
            for block in content if isinstance(content, list) else ():
                if isinstance(block, dict) and block.get("type") == "toolCall":
                    self.call(block.get("name"), block.get("arguments"))
        elif role == "toolResult":
            nested = message.get("nestedCalls")
            calls = nested.get("calls") if isinstance(nested, dict) else None
            for call in calls if isinstance(calls, list) else ():
                if isinstance(call, dict):
                    self.call(call.get("name"), call.get("arguments"))
        elif role == "bashExecution":
            command = message.get("command")
            if isinstance(command, str) and command.strip():
                self.commands[command] = None


def audit_compactions(session: Session, path: Sequence[EntryRecord]) -> list[CompactionAudit]:
    """An audit of every compaction on `path` (root first). Reads the summarized entries' bodies."""
    return [audit_compaction(session, path, i) for i, r in enumerate(path) if r.type == "compaction"]


@dataclass(frozen=True, slots=True)
class CompactionsOffPath:
    """The session's compactions that an audit of one path does not show, by where they are."""

    later: int  # further down the same path, below the audited entry
    other_branches: int


def compactions_off_path(session: Session, path: Sequence[EntryRecord]) -> CompactionsOffPath:
    """Where the compactions not on `path` are: later on it (below its last entry), or elsewhere."""
    if not session.type_counts.get("compaction") or not path:
        return CompactionsOffPath(0, 0)
    on_path = {id(r) for r in path}
    end = path[-1]
    later = other = 0
    for record in session.winners():
        if record.type != "compaction" or id(record) in on_path:
            continue
        above: EntryRecord | None = record
        while above is not None and above is not end:
            above = session.parent_of(above)
        if above is end:
            later += 1
        else:
            other += 1
    return CompactionsOffPath(later, other)


def audit_compaction(session: Session, path: Sequence[EntryRecord], position: int) -> CompactionAudit:
    compaction = path[position]
    entry = session.entry_dict(compaction)
    summary = entry.get("summary")
    summary_text = summary if isinstance(summary, str) else ""
    first_kept = compaction.firstKeptEntryId
    kept_from = next((i for i in range(position) if path[i].id == first_kept), None)
    after = project(session, compaction.id)
    kept_tokens = sum(entry_estimate(session, after, i).tokens for i in range(1, len(after.context)))

    summarized: list[tuple[Projection, int]] = []
    parent = path[position - 1] if position > 0 else None
    if parent is not None:
        before = project(session, parent.id)
        on_path = {id(r): i for i, r in enumerate(path[:position])}
        for at, record in enumerate(before.context):
            if at == 0 and before.compaction is not None:
                continue  # the previous checkpoint: summarized again, but not an entry of this span
            index = on_path.get(id(record))
            if index is None or (kept_from is not None and index >= kept_from):
                continue
            summarized.append((before, at))
    work = _Work()
    messages = tokens = 0
    for projection, at in summarized:
        if not projection.counts[at]:
            continue
        record = projection.context[at]
        messages += projection.counts[at]
        tokens += entry_estimate(session, projection, at).tokens
        for message in entry_messages(session, record, at == 0, projection.edits.get(record.id)):
            work.message(message)
    paths, commands = tuple(work.paths), tuple(work.commands)
    return CompactionAudit(
        compaction_id=compaction.id,
        position=position,
        tokens_before=_number(compaction.tokensBefore),
        tokens_after=estimate_context(session, after).tokens,
        first_kept_id=path[kept_from].id if kept_from is not None else None,
        kept_entries=position - kept_from if kept_from is not None else 0,
        kept_tokens=kept_tokens,
        summarized_entries=len(summarized),
        summarized_messages=messages,
        summarized_tokens=tokens,
        summary_chars=js_length(summary_text),
        paths=paths,
        commands=commands,
        missing_paths=_missing(paths, summary_text),
        missing_commands=_missing(commands, summary_text),
    )


def _missing(items: Iterable[str], text: str) -> tuple[str, ...]:
    return tuple(item for item in items if item not in text)


def _number(value: Any) -> int | float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None
