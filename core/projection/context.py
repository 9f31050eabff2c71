"""What the model saw with a given entry as the leaf, and why each entry is in or out.

This is pi's three-pass walk (`buildContextEntries`, `buildSessionProjection`,
`buildSessionContext`) on the structural records, plus what pi does not tell: for every entry
on the path, the reason it is in context, summarized by a compaction, folded into a
checkpoint, omitted or replaced by a context edit. Message bodies are read back only when
`messages()` is asked for, so projecting a 100 MB session costs a walk over its records.
(Over 450 lines: pi's passes, the reasons they give and the messages an entry contributes
follow pi's code closely and change together.)
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import repeat
from operator import attrgetter, eq
from typing import Any

from msgspec import UNSET

from ..common.jsvalues import date_ms, js_string, js_truthy, text_of_blocks
from ..reading.records import CONTENT_ABSENT, CONTENT_NULL, CONTENT_STRING, EntryRecord, MessageHead
from ..session.session import Session, Totals

EDITABLE_ROLES = ("user", "assistant", "toolResult", "custom")


class Reason(StrEnum):
    """Why an entry on the path is, or is not, part of what the model saw."""

    SENT = "sent"  # contributes messages
    NO_MESSAGES = "no-messages"  # in pi's context list but turns into no message (settings, labels...)
    CHECKPOINT = "checkpoint"  # the latest compaction: its summary (and system checkpoint) are sent
    SUMMARIZED = "summarized"  # before the kept range of the latest compaction
    FOLDED = "folded"  # a system message in the kept range, replaced by the compaction's checkpoint
    SUPERSEDED = "superseded"  # an older compaction inside the kept range: contributes nothing
    OMITTED = "omitted"  # a context edit with `replacement: null`
    REPLACED = "replaced"  # a context edit replaced its content
    EMPTY_SUMMARY = "empty-summary"  # a branch summary without text
    UNREADABLE = "unreadable"  # a message entry without a message object (pi would crash)

    @property
    def in_context(self) -> bool:
        return self in (Reason.SENT, Reason.CHECKPOINT, Reason.REPLACED, Reason.NO_MESSAGES)

    def describe(self, by: str | None) -> str:
        return {
            Reason.SENT: "sent to the model",
            Reason.NO_MESSAGES: "kept, but sends no message",
            Reason.CHECKPOINT: "compaction: its summary replaces the history before it",
            Reason.SUMMARIZED: f"summarized by compaction {by}",
            Reason.FOLDED: f"system prompt folded into the checkpoint of compaction {by}",
            Reason.SUPERSEDED: f"older compaction, superseded by {by}",
            Reason.OMITTED: f"omitted by context edit {by}",
            Reason.REPLACED: f"content replaced by context edit {by}",
            Reason.EMPTY_SUMMARY: "branch summary without text: sends nothing",
            Reason.UNREADABLE: "message entry without a message object: skipped",
        }[self]


@dataclass(slots=True)
class Fate:
    """One entry of the root-to-leaf path and what became of it."""

    record: EntryRecord
    reason: Reason
    by: str | None = None  # the compaction or context edit responsible
    message_count: int = 0

    @property
    def in_context(self) -> bool:
        return self.reason.in_context

    def describe(self) -> str:
        return self.reason.describe(self.by)


@dataclass(slots=True)
class SystemPrompt:
    """The system prompt and tools at a leaf, replayed from system messages as pi does."""

    content: str = ""
    sections: dict[str, str] = field(default_factory=dict)
    section_sources: dict[str, str] = field(default_factory=dict)  # section -> entry id that set it
    tools: list[dict[str, Any]] = field(default_factory=list)
    tool_sources: dict[str, str] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)  # entries holding system messages, in order

    @property
    def is_empty(self) -> bool:
        return not (self.content or self.sections or self.tools)

    def text(self) -> str:
        parts = [self.content, *self.sections.values()]
        return "\n\n".join(p for p in parts if p)


class Projection:
    """pi's projection at one leaf. Cheap to build (a walk over records); message bodies are
    read back only by `messages()`, and the per-entry reasons only by `fates`."""

    __slots__ = (
        "__weakref__",
        "_fates",
        "_grown_from",
        "_message_count",
        "_moved_from",
        "_moved_kept",
        "_settings_at",
        "compaction",
        "context",
        "counts",
        "dropped",
        "edits",
        "estimated_bytes",
        "excluded",
        "leaf_id",
        "model",
        "path",
        "thinking_level",
        "tree_version",
    )

    def __init__(
        self,
        leaf_id: str,
        path: list[EntryRecord],
        context: list[EntryRecord],
        counts: list[int],
        compaction: EntryRecord | None,
        edits: dict[Any, EntryRecord],
        model: dict[str, Any] | None,
        thinking_level: Any,
        excluded: dict[Reason, int] | None = None,
        estimated_bytes: int = 0,
        tree_version: int = -1,
        dropped: dict[int, Reason] | None = None,
    ) -> None:
        self.leaf_id = leaf_id
        self.path = path  # root to leaf (shared with the session's tree: never changed)
        self.context = context  # pi's context entries, in pi's order (the compaction first; the
        # path itself when there is none)
        self.counts = counts  # messages each context entry contributes
        self.compaction = compaction
        self.edits = edits  # target id -> the edit that applies
        self.model = model
        self.thinking_level = thinking_level
        self.excluded = excluded or {}  # how many path entries are out of context, by reason
        self.dropped = dropped or {}  # context position -> why that entry sends nothing
        self.estimated_bytes = estimated_bytes  # JSON bytes of what is sent (a size estimate)
        self.tree_version = tree_version  # the session's tree this was walked on
        self._fates: list[Fate] | None = None
        self._grown_from: weakref.ref[Projection] | None = None
        # Path positions of the entries that set the thinking level and the model (-1: none;
        # None: not known, as for a projection grown by `extend_projection`).
        self._settings_at: tuple[int, int] | None = None
        self._message_count: int | None = None
        # Made from that projection by a move (`project` building on the last one), sharing
        # its first `_moved_kept` context entries, their counts and its edits (weak, as above).
        self._moved_from: weakref.ref[Projection] | None = None
        self._moved_kept = 0

    def shared_context(self, other: Projection) -> int | None:
        """How many leading context entries this projection sends exactly as `other` does
        (the same entries, message counts and edits), when that is known without a walk: it
        was made from `other` by a move or a growth. None: not known."""
        if self._grown_from is not None and self._grown_from() is other:
            return len(other.context)
        if self._moved_from is not None and self._moved_from() is other:
            return self._moved_kept
        return None

    @property
    def grown_from(self) -> Projection | None:
        """The projection this one extends (set by `extend_projection`; weak, so a live
        session does not keep a chain of every earlier projection)."""
        return self._grown_from() if self._grown_from is not None else None

    @property
    def message_count(self) -> int:
        if self._message_count is None:
            self._message_count = sum(self.counts)
        return self._message_count

    def path_totals(self, session: Session) -> Totals:
        """Tokens and cost spent on the way to this leaf (every entry of the path)."""
        return session.totals_along(self.path)

    @property
    def fates(self) -> list[Fate]:
        """For every entry of the path (root first): in or out, and why."""
        if self._fates is None:
            self._fates = _fates(self)
        return self._fates

    def messages(self, session: Session) -> list[Any]:
        return [m for _, m in self.sourced_messages(session)]

    def sourced_messages(self, session: Session, role: str | None = None) -> list[tuple[EntryRecord, Any]]:
        """(source entry, message) pairs, exactly the messages pi's projection holds."""
        out: list[tuple[EntryRecord, Any]] = []
        for index, (record, count) in enumerate(zip(self.context, self.counts, strict=True)):
            if not count:
                continue
            if role is not None and not (record.type == "compaction" or record.role == role):
                continue
            for message in entry_messages(session, record, index == 0, self.edits.get(record.id)):
                if role is None or (isinstance(message, dict) and message.get("role") == role):
                    out.append((record, message))
        return out

    def system_prompt(self, session: Session) -> SystemPrompt:
        return replay_system_prompt(self.sourced_messages(session, role="system"))


def project(session: Session, leaf_id: str) -> Projection:
    """pi's projection of the path ending at `leaf_id` (raises UnknownEntryError).

    The last projection of the session is remembered: when the new path differs from its path
    only in entries that cannot change what came before (no compaction, no context edit among
    them), only those entries are walked. Moving the selection along a conversation 100,000
    entries long then costs a few steps, and gives exactly what the full walk gives."""
    path = session.path_to(leaf_id)
    previous = _last_projection.get(session)
    projection = None
    if previous is not None and previous.tree_version == session.tree_version:
        projection = _moved(previous, session, leaf_id, path)
    if projection is None:
        projection = _project(session, leaf_id, path)
    _last_projection[session] = projection
    return projection


_last_projection: weakref.WeakKeyDictionary[Session, Projection] = weakref.WeakKeyDictionary()


def _project(session: Session, leaf_id: str, path: list[EntryRecord]) -> Projection:
    """pi's three passes over the whole path."""
    kinds = session.type_counts
    need_thinking = "thinking_level_change" in kinds
    need_model = "model_change" in kinds or "message" in kinds
    settings_at = _settings_at(path, len(path), 0, need_thinking, need_model)
    compaction: EntryRecord | None = None
    compaction_index = -1
    if "compaction" in kinds:
        for i in range(len(path) - 1, -1, -1):
            if path[i].type == "compaction":
                compaction, compaction_index = path[i], i
                break
    excluded: dict[Reason, int] = {}
    if compaction is None:
        context = path  # the same entries: one list for both (neither is ever changed)
    else:
        context = [compaction]
        first_kept = compaction.firstKeptEntryId
        found = False
        summarized = folded = 0
        for i in range(compaction_index):
            record = path[i]
            if not found and record.id == first_kept:
                found = True
            if not found:
                summarized += 1
            elif record.type == "message" and record.role == "system":
                folded += 1
            else:
                context.append(record)
        context.extend(path[compaction_index + 1 :])
        if summarized:
            excluded[Reason.SUMMARIZED] = summarized
        if folded:
            excluded[Reason.FOLDED] = folded
    edits: dict[Any, EntryRecord] = {}
    if "context_edit" in kinds:
        for record in context:
            if record.type == "context_edit" and record.replacement_kind != CONTENT_ABSENT:
                try:
                    edits[record.targetId] = record
                except TypeError:
                    continue
    counts = [0] * len(context)
    dropped: dict[int, Reason] = {}
    size = _count_messages(context, 0, counts, edits, excluded, dropped)
    projection = Projection(
        leaf_id,
        path,
        context,
        counts,
        compaction,
        edits,
        _model_of(path, settings_at[1]),
        _thinking_of(path, settings_at[0]),
        excluded,
        size,
        session.tree_version,
        dropped,
    )
    projection._settings_at = settings_at
    return projection


# Entries that change what the entries before them contribute (or whether they do).
_REACHING_BACK = ("compaction", "context_edit")


def _moved(
    previous: Projection, session: Session, leaf_id: str, path: list[EntryRecord]
) -> Projection | None:
    """The projection at `leaf_id` (whose path is `path`) made from `previous`, when the
    entries the two paths do not share reach no entry before them; None otherwise."""
    settings = previous._settings_at
    if settings is None:
        return None
    old = previous.path
    shared = min(len(old), len(path))
    while shared and old[shared - 1] is not path[shared - 1]:
        shared -= 1
    removed, added = old[shared:], path[shared:]
    if any(r.type in _REACHING_BACK for r in removed) or any(r.type in _REACHING_BACK for r in added):
        return None
    # Past the shared entries, the path and the context end alike (a compaction is shared).
    kept = len(previous.context) - len(removed)
    if kept < 0 or (removed and previous.context[kept] is not removed[0]):
        return None
    if previous.context is previous.path:
        context = path
    else:
        context = previous.context[:kept]  # (one copy: a slice and a concatenation are two)
        context += added
    counts = previous.counts[:kept]
    counts += [0] * len(added)
    excluded = dict(previous.excluded)
    dropped: dict[int, Reason] = {}
    for position, reason in previous.dropped.items():
        if position < kept:
            dropped[position] = reason
        else:
            excluded[reason] -= 1
            if not excluded[reason]:
                del excluded[reason]
    size = previous.estimated_bytes
    for position in range(kept, len(previous.context)):
        if previous.counts[position]:
            record = previous.context[position]
            size -= record.content_size or record.length
    size += _count_messages(context, kept, counts, previous.edits, excluded, dropped)
    kinds = session.type_counts
    need_thinking = "thinking_level_change" in kinds
    need_model = "model_change" in kinds or "message" in kinds
    thinking_at, model_at = _settings_at(path, len(path), shared, need_thinking, need_model)
    if need_thinking and thinking_at < 0:
        thinking_at = settings[0] if settings[0] < shared else _settings_at(path, shared, 0, True, False)[0]
    if need_model and model_at < 0:
        model_at = settings[1] if settings[1] < shared else _settings_at(path, shared, 0, False, True)[1]
    projection = Projection(
        leaf_id,
        path,
        context,
        counts,
        previous.compaction,
        previous.edits,
        _model_of(path, model_at),
        _thinking_of(path, thinking_at),
        excluded,
        size,
        session.tree_version,
        dropped,
    )
    projection._settings_at = (thinking_at, model_at)
    projection._moved_from, projection._moved_kept = weakref.ref(previous), kept
    if previous._message_count is not None:
        projection._message_count = previous._message_count - sum(previous.counts[kept:]) + sum(counts[kept:])
    if previous._fates is not None:
        fates = previous._fates[:shared]
        compaction_id = previous.compaction.id if previous.compaction is not None else None
        for offset, record in enumerate(added):
            fates.append(_fate_in_context(projection, record, kept + offset, compaction_id))
        projection._fates = fates
    return projection


def extend_projection(previous: Projection, session: Session, leaf_id: str) -> Projection | None:
    """The projection at `leaf_id` built on `previous` when the entries between them only
    add to the conversation (what a live session does); None when it takes `project`.

    A compaction or a context edit among the new entries changes what came before, so they
    are left to the full walk; so is a tree built again (an arriving parent, a duplicate id
    or a new reading can change the path to entries that were there)."""
    path = previous.path
    if not path or previous.tree_version != session.tree_version:
        return None
    tail: list[EntryRecord] = []
    record = session.by_id.get(leaf_id)
    while record is not None and record is not path[-1]:
        if len(tail) > 10_000 or record.type in ("compaction", "context_edit"):
            return None
        if previous.edits and record.id in previous.edits:
            return None
        tail.append(record)
        record = session.parent_of(record)
    if record is None:
        return None
    tail.reverse()
    thinking, model = _settings(tail, thinking=previous.thinking_level, model=previous.model)
    grown_path = path + tail
    # Without a compaction the context is the path: one list for both, as `project` makes it.
    context = grown_path if previous.context is path else previous.context + tail
    counts = previous.counts[:]
    counts += [0] * len(tail)
    excluded = dict(previous.excluded)
    dropped = dict(previous.dropped)
    size = _count_messages(context, len(previous.context), counts, previous.edits, excluded, dropped)
    grown = Projection(
        leaf_id,
        grown_path,
        context,
        counts,
        previous.compaction,
        previous.edits,
        model,
        thinking,
        excluded,
        previous.estimated_bytes + size,
        session.tree_version,
        dropped,
    )
    grown._grown_from = weakref.ref(previous)
    return grown


def _count_messages(
    context: list[EntryRecord],
    start: int,
    counts: list[int],
    edits: dict[Any, EntryRecord],
    excluded: dict[Reason, int],
    dropped: dict[int, Reason],
) -> int:
    """pi's rules for what each context entry sends: fill `counts` from `start` on, and
    for an entry that would send something but does not, why (in `dropped`, counted in
    `excluded`). Returns the estimated JSON bytes of what is sent."""
    size = 0
    for index in range(start, len(context)):
        record = context[index]
        kind = record.type
        reason: Reason | None = None
        count = 1
        if kind == "message":
            if not isinstance(record.message, MessageHead):
                reason = Reason.UNREADABLE
        elif kind == "branch_summary":
            if not js_truthy(record.summary):
                reason = Reason.EMPTY_SUMMARY
        elif kind == "compaction":
            if index:
                reason = Reason.SUPERSEDED
            elif record.has_system_message:
                count = 2
        elif kind != "custom_message":
            continue  # settings, labels...: in context, but no message
        if reason is None and edits:
            edit = edits.get(record.id)
            if edit is not None and edit.replacement_kind == CONTENT_NULL:
                reason = Reason.OMITTED
        if reason is not None:
            dropped[index] = reason
            excluded[reason] = excluded.get(reason, 0) + 1
            continue
        counts[index] = count
        size += record.content_size or record.length
    return size


def _fates(projection: Projection) -> list[Fate]:
    compaction = projection.compaction
    compaction_id = compaction.id if compaction is not None else None
    in_context = {id(r): i for i, r in enumerate(projection.context)}
    fates: list[Fate] = []
    first_kept_seen = compaction is None
    for record in projection.path:
        position = in_context.get(id(record))
        if compaction is not None and not first_kept_seen:
            first_kept_seen = record.id == compaction.firstKeptEntryId or record is compaction
        if position is None:
            folded = record.type == "message" and record.role == "system" and first_kept_seen
            fates.append(Fate(record, Reason.FOLDED if folded else Reason.SUMMARIZED, compaction_id))
            continue
        fates.append(_fate_in_context(projection, record, position, compaction_id))
    return fates


def _fate_in_context(projection: Projection, record: EntryRecord, position: int, compaction_id: Any) -> Fate:
    """The fate of `record`, at `position` of the projection's context."""
    edit = projection.edits.get(record.id)
    dropped = projection.dropped.get(position)
    if dropped is not None:
        by = edit.id if dropped is Reason.OMITTED and edit is not None else None
        return Fate(record, dropped, compaction_id if dropped is Reason.SUPERSEDED else by)
    count = projection.counts[position]
    fate = Fate(record, Reason.SENT if count else Reason.NO_MESSAGES, None, count)
    if position == 0 and record is projection.compaction:
        fate.reason = Reason.CHECKPOINT
    elif count and edit is not None and _edit_changes(record):
        fate.reason, fate.by = Reason.REPLACED, edit.id
    return fate


def _edit_changes(record: EntryRecord) -> bool:
    if record.type == "custom_message":
        return True
    return record.type == "message" and record.role in EDITABLE_ROLES


def _settings(
    path: list[EntryRecord],
    need_thinking: bool = True,
    need_model: bool = True,
    *,
    thinking: Any = "off",
    model: dict[str, Any] | None = None,
) -> tuple[Any, dict[str, Any] | None]:
    """Thinking level and model from the full path (compaction hides nothing here), or the
    given ones when the path sets none. The flags skip looking for what the session does
    not hold at all."""
    if not (need_thinking or need_model):
        return thinking, model
    # The last of each wins, so walk back from the leaf and stop once both are known.
    for record in reversed(path):
        kind = record.type
        if kind == "message":
            if need_model:
                m = record.message
                if isinstance(m, MessageHead) and m.role == "assistant":
                    model = _defined(provider=m.provider, modelId=m.model)
                    need_model = False
        elif kind == "thinking_level_change":
            if need_thinking:
                thinking = None if record.thinkingLevel is UNSET else record.thinkingLevel
                need_thinking = False
        elif kind == "model_change" and need_model:
            model = _defined(provider=record.provider, modelId=record.modelId)
            need_model = False
        if not (need_thinking or need_model):
            break
    return thinking, model


def _settings_at(
    path: list[EntryRecord], stop: int, start: int, need_thinking: bool, need_model: bool
) -> tuple[int, int]:
    """Positions in `path[start:stop]` of the last entry that sets the thinking level and of
    the last that sets the model, as `_settings` finds them (-1: none, or not asked for)."""
    thinking_at = model_at = -1
    if not (need_thinking or need_model):
        return thinking_at, model_at
    for i in range(stop - 1, start - 1, -1):
        record = path[i]
        kind = record.type
        if kind == "message":
            if need_model:
                m = record.message
                if isinstance(m, MessageHead) and m.role == "assistant":
                    model_at, need_model = i, False
        elif kind == "thinking_level_change":
            if need_thinking:
                thinking_at, need_thinking = i, False
        elif kind == "model_change" and need_model:
            model_at, need_model = i, False
        if not (need_thinking or need_model):
            break
    return thinking_at, model_at


def _thinking_of(path: list[EntryRecord], at: int) -> Any:
    if at < 0:
        return "off"
    level = path[at].thinkingLevel
    return None if level is UNSET else level


def _model_of(path: list[EntryRecord], at: int) -> dict[str, Any] | None:
    if at < 0:
        return None
    record = path[at]
    if record.type == "message":
        m = record.message
        assert isinstance(m, MessageHead)
        return _defined(provider=m.provider, modelId=m.model)
    return _defined(provider=record.provider, modelId=record.modelId)


def _defined(**fields: Any) -> dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not UNSET}


def entry_messages(
    session: Session,
    record: EntryRecord,
    first: bool,
    edit: EntryRecord | None,
    entry: dict[str, Any] | None = None,
) -> list[Any]:
    """pi's `projectContextEntry`: the messages one context entry contributes (`entry`: the
    record's `entry_dict`, when the caller read it already)."""
    if entry is None:
        entry = session.entry_dict(record)
    kind = entry.get("type")
    messages: list[Any]
    if kind == "message":
        message = entry.get("message")
        if not isinstance(message, dict):
            return []
        role = message.get("role")
        content = message.get("content")
        if role == "system" and content is None:
            message = {**message, "content": ""}
        elif role in ("user", "assistant", "toolResult") and content is None:
            message = {**message, "content": []}
        messages = [message]
    elif kind == "custom_message":
        content = entry.get("content")
        message = {"role": "custom"}
        if "customType" in entry:
            message["customType"] = entry["customType"]
        message["content"] = [] if content is None else content
        for key in ("display", "details"):
            if key in entry:
                message[key] = entry[key]
        message["timestamp"] = _timestamp_ms(entry)
        messages = [message]
    elif kind == "branch_summary":
        if not js_truthy(entry.get("summary")):
            return []
        message = {"role": "branchSummary", "summary": entry.get("summary")}
        if "fromId" in entry:
            message["fromId"] = entry["fromId"]
        message["timestamp"] = _timestamp_ms(entry)
        messages = [message]
    elif kind == "compaction":
        if not first:
            return []
        summary: dict[str, Any] = {"role": "compactionSummary"}
        for key in ("summary", "tokensBefore"):
            if key in entry:
                summary[key] = entry[key]
        summary["timestamp"] = _timestamp_ms(entry)
        system = entry.get("systemMessage")
        messages = [system, summary] if js_truthy(system) else [summary]
    else:
        return []
    if edit is None:
        return messages
    replacement = session.entry_dict(edit).get("replacement", UNSET)
    if replacement is UNSET:
        return messages
    if replacement is None:
        return []
    new_content = replacement.get("content", UNSET) if isinstance(replacement, dict) else UNSET
    out: list[Any] = []
    for message in messages:
        role = message.get("role") if isinstance(message, dict) else None
        if role not in EDITABLE_ROLES:
            out.append(message)
            continue
        content = new_content
        if role in ("assistant", "toolResult") and isinstance(content, str):
            content = [{"type": "text", "text": content}]
        replaced = {**message}
        if content is UNSET:
            replaced.pop("content", None)  # JSON.stringify drops an undefined content
        else:
            replaced["content"] = content
        out.append(replaced)
    return out


def sent_as_they_are(records: Sequence[EntryRecord]) -> bool:
    """Whether each of `records` (context entries without an edit) is a message entry whose
    message has a content: `entry_messages` then gives of each its message, as it is."""
    messages = all(map(eq, map(_type_of, records), repeat("message")))
    return messages and (not records or min(map(_content_kind_of, records)) >= CONTENT_STRING)


def run_messages(
    session: Session,
    run: Sequence[EntryRecord],
    bodies: list[dict[str, Any]],
    first: EntryRecord | None,
    edits: dict[Any, EntryRecord],
) -> list[Any]:
    """`entry_messages` of each of `run` (context entries; `bodies` their `entry_dict`s;
    `first`: the context's first entry; `edits`: the projection's), in order; without edits,
    for a run `sent_as_they_are` without a Python step per entry."""
    if not edits and sent_as_they_are(run):
        return list(map(dict.get, bodies, repeat("message")))
    out: list[Any] = []
    for record, body in zip(run, bodies, strict=True):
        edit = edits.get(record.id) if edits else None
        out += entry_messages(session, record, record is first, edit, entry=body)
    return out


_type_of, _content_kind_of = attrgetter("type"), attrgetter("content_kind")


def _timestamp_ms(entry: dict[str, Any]) -> float | int | None:
    if "timestamp" not in entry:
        return None  # new Date(undefined) is NaN, written as null
    ms = date_ms(entry["timestamp"])
    return None if ms is None else int(ms)


def replay_system_prompt(messages: Iterable[tuple[EntryRecord, Any]]) -> SystemPrompt:
    """pi-ai's getCurrentSystemMessage over the projected system messages, with provenance."""
    prompt = SystemPrompt()
    content: list[str] = []
    tools: dict[str, dict[str, Any]] = {}
    for record, message in messages:
        if not isinstance(message, dict) or message.get("role") != "system":
            continue
        prompt.sources.append(record.id)
        try:
            text = text_of_blocks(message.get("content") if message.get("content") is not None else "", "\n")
        except TypeError:
            text = ""
        if text:
            content.append(text)
        sections = message.get("sections")
        if isinstance(sections, dict):
            for name, value in sections.items():
                if value is None:
                    prompt.sections.pop(name, None)
                    prompt.section_sources.pop(name, None)
                else:
                    prompt.sections[name] = value if isinstance(value, str) else str(value)
                    prompt.section_sources[name] = record.id
        for tool in _tool_list(message.get("toolsRemoved")):
            tools.pop(_tool_name(tool), None)
            prompt.tool_sources.pop(_tool_name(tool), None)
        for tool in _tool_list(message.get("toolsAdded")):
            tools[_tool_name(tool)] = tool
            prompt.tool_sources[_tool_name(tool)] = record.id
    prompt.content = "\n\n".join(content)
    prompt.tools = list(tools.values())
    return prompt


def _tool_name(tool: dict[str, Any]) -> str:
    name = tool.get("name")
    return name if isinstance(name, str) else js_string(name)


def _tool_list(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        return []
    return [t for t in value if isinstance(t, dict)]
