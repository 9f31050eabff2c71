"""What the index keeps of one session: every file touch of every tool call on any branch
(read through `FileTracker`, the same reading as `files`), each with its fate at the default
leaf, and every shell command the agent ran (bash tool calls).

A touch is worked out the same way on every path that holds its tool result (its call is an
ancestor of the result), so walking each tip's path and keeping each result once gives every
touch of the tree exactly once. The walk costs the sum of the tips' depths; bodies are read
once each (the tracker remembers them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..projection.bashpaths import Access
from ..projection.context import project
from ..projection.file_knowledge import FileState, FileTracker, Touch, state_of
from ..reading.records import EntryRecord, MessageHead
from ..session.session import Session

__all__ = ["CommandFact", "SessionFacts", "TouchFact", "action_of", "session_facts"]

READ, CHANGED, NAMED = "read", "changed", "named"


@dataclass(frozen=True, slots=True)
class TouchFact:
    path: str  # normalised against the session cwd, as `files` shows it
    entry_id: str  # the entry holding what the model saw: the result of a read, the call of an edit
    action: str  # READ, CHANGED or NAMED
    verb: str
    tool: str  # "read", "bash", ... or "user-bash" for a `!command`
    error: bool
    timestamp: str | None  # the entry's timestamp as in its line
    ts_ms: float | None
    seq: int  # the entry's line order in the file
    on_active_path: bool
    in_context: bool  # what this touch showed is still sent, as it was, at the default leaf


@dataclass(frozen=True, slots=True)
class CommandFact:
    entry_id: str  # the assistant entry with the call
    call_id: str | None
    command: str
    timestamp: str | None
    ts_ms: float | None
    seq: int
    on_active_path: bool


@dataclass(slots=True)
class SessionFacts:
    session_id: str | None
    cwd: str
    default_leaf: str | None
    touches: list[TouchFact] = field(default_factory=list)
    commands: list[CommandFact] = field(default_factory=list)


def action_of(touch: Touch) -> str:
    """read: its text was shown; changed: the call changed it; named: anything else (a failed
    or hidden call too: nothing was shown to the model or changed for sure)."""
    if touch.error:
        return NAMED
    if touch.access is Access.READ:
        return READ
    if touch.access is Access.EDIT:
        return CHANGED
    return NAMED


def session_facts(session: Session) -> SessionFacts:
    leaf = session.default_leaf
    facts = SessionFacts(session.session_id, session.cwd, leaf)
    active: set[int] = set()
    fates: dict[int, FileState] = {}
    if leaf is not None:
        projection = project(session, leaf)
        active = {r.index for r in projection.path}
        fates = {f.record.index: state_of(f) for f in projection.fates}
    tracker = FileTracker(session)
    called: list[tuple[EntryRecord, list[tuple[str | None, str]]]] = []

    def take_commands(record: EntryRecord, entry: dict[str, Any]) -> None:
        commands = _bash_calls(entry)
        if commands:
            called.append((record, commands))

    tracker.read_ahead(take_commands)
    stamps: dict[int, tuple[str | None, float | None]] = {}
    done: set[int] = set()  # tool results already taken, from an earlier tip's path
    for tip in _tips(session, leaf):
        before = set(done)
        for touch in tracker.touches_along(session.path_to(tip)):
            index = touch.result.index
            if index in before:
                continue
            done.add(index)
            on_path = index in active
            in_context = on_path and touch.counts and fates.get(touch.entry.index) is FileState.IN_CONTEXT
            stamp = _stamp(session, touch.entry, stamps)
            facts.touches.append(
                TouchFact(
                    touch.path,
                    touch.entry.id,
                    action_of(touch),
                    touch.verb,
                    touch.tool,
                    touch.error,
                    *stamp,
                    touch.entry.index,
                    on_path,
                    in_context,
                )
            )
    facts.commands = _commands(session, active, called, stamps)
    return facts


def _tips(session: Session, leaf: str | None) -> list[str]:
    """Every entry without children, the default leaf first."""
    tips = [r.id for r in session.winners() if session.child_count(r.id) == 0 and r.id != leaf]
    return ([leaf] if leaf is not None else []) + tips


def _stamp(
    session: Session, record: EntryRecord, known: dict[int, tuple[str | None, float | None]]
) -> tuple[str | None, float | None]:
    """The record's timestamp as in its line (a string, else None) and in ms, worked out once."""
    stamp = known.get(record.index)
    if stamp is None:
        value = session.timestamp_of(record)
        stamp = known[record.index] = (value if isinstance(value, str) else None, session.ts_ms(record))
    return stamp


# Replies whose tool calls pi's agent loop does not run (an error or abort ends the turn, a
# reply cut at the token limit gets "not executed" results), or that carry none ("stop": pi
# says "toolUse" whenever a reply calls tools). Their bodies are not read.
_RUNS_NO_TOOLS = frozenset({"stop", "error", "aborted", "length"})


def _commands(
    session: Session,
    active: set[int],
    called: list[tuple[EntryRecord, list[tuple[str | None, str]]]],
    stamps: dict[int, tuple[str | None, float | None]],
) -> list[CommandFact]:
    """Every bash tool call pi ran, on any branch, in file order (whatever came of it).
    `called`: the "toolUse" replies with a bash call, read already; others are read here."""
    replies = list(called)
    for record in session.winners():
        head = record.message
        if record.type != "message" or not isinstance(head, MessageHead) or head.role != "assistant":
            continue
        stop = head.stopReason
        if stop == "toolUse" or (isinstance(stop, str) and stop in _RUNS_NO_TOOLS):
            continue
        commands = _bash_calls(session.entry_dict(record))
        if commands:
            replies.append((record, commands))
    replies.sort(key=lambda pair: pair[0].index)
    out: list[CommandFact] = []
    for record, commands in replies:
        for call_id, command in commands:
            stamp = _stamp(session, record, stamps)
            out.append(CommandFact(record.id, call_id, command, *stamp, record.index, record.index in active))
    return out


def _bash_calls(entry: dict[str, Any]) -> list[tuple[str | None, str]]:
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    calls: list[tuple[str | None, str]] = []
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict) or block.get("type") != "toolCall" or block.get("name") != "bash":
            continue
        args = block.get("arguments")
        command = args.get("command") if isinstance(args, dict) else None
        if isinstance(command, str):
            call_id = block.get("id")
            calls.append((call_id if isinstance(call_id, str) else None, command))
    return calls
