"""Taking decoded lines into a session: its header, then each record in file order, with the
problems, totals, labels, name and context edits it brings.

`ingest_lines` is the one loop an open spends its Python time in: a plain message (nine lines
in ten) is taken in on a fast path with the hot state in locals, every other line on the general
path below it, to the same effect (tests/unit/reading/test_fast_paths_agree.py). The session
(core/session/session.py) holds the state; this module only changes it.
"""

from __future__ import annotations

import contextlib
from typing import Any

from msgspec import UNSET

from ..common.jsvalues import js_truthy
from ..common.problems import Problem, ProblemKind, SessionError
from ..reading.migration import CURRENT_VERSION, Migration, header_version, needs_migration
from ..reading.records import (
    CONTENT_ABSENT,
    EntryRecord,
    HeaderLine,
    MessageHead,
    MessageRecord,
    session_name_of,
)
from .state import SessionState
from .tree import STAMP_WIDTH

_BLANK_STAMP = bytes(STAMP_WIDTH)


def _duplicate_id(rid: str, first_line: int, line: int) -> Problem:
    return Problem(
        ProblemKind.DUPLICATE_ID, f"id {rid} also used on line {first_line}; the later entry wins", line, rid
    )


def take_header(session: SessionState, line: EntryRecord | HeaderLine) -> None:
    value = line.value if isinstance(line, HeaderLine) else None
    if value is None or value.get("type") != "session" or not isinstance(value.get("id"), str):
        what = value.get("type") if value is not None else getattr(line, "type", None)
        raise SessionError(
            f"not a pi session: the first entry (line {line.line}) is "
            + (f"of type {what!r}" if isinstance(what, str) else "not a session header")
            + ", not a session header"
        )
    session.header = dict(value)
    session.header_line = line.line
    session.parsed_count = 1
    version = header_version(value.get("version"))
    if needs_migration(version):
        session._migration = Migration(value.get("id"), version)
        session.header["version"] = CURRENT_VERSION


def ingest_lines(session: SessionState, lines: list[EntryRecord | HeaderLine]) -> list[EntryRecord]:
    """Take in decoded lines in file order; the records they add (the session's own list
    when it had none: never change it). One loop for a whole file (the hot state in
    locals): opening a session spends its Python time here."""
    records, by_id, problems, migration = session.records, session.by_id, session.problems, session._migration
    stamps, width, blank, unset = session.stamps, STAMP_WIDTH, _BLANK_STAMP, UNSET
    type_counts = session.type_counts
    tokens, cost = session.totals.tokens, session.totals.cost
    parsed_index = session.parsed_count - 1
    system_prompts = 0
    first_added = len(records)
    messages = 0  # plain message records taken in on the fast path (counted once at the end)
    message_record, message_head, str_ = MessageRecord, MessageHead, str
    previous: EntryRecord | None = None
    last_id: Any = UNSET  # the id of the record taken in last on the fast path (it owns that id)
    for record in lines:
        parsed_index += 1
        if record.__class__ is message_record and migration is None:
            # Nine lines in ten: a plain message (no system message field, not a label,
            # name or edit), taken in as the general path below would.
            rid = record.id
            m = record.message
            if rid.__class__ is str_ and m.__class__ is message_head:
                if m.role == "system":
                    system_prompts += 1
                index = len(records)
                if index > 1:
                    # The same number is, as a rule, the line of the record two back (the
                    # header is line 1): one int object for both (100,000 took 2.7 MiB).
                    line = records[index - 2].line
                    if line == index:
                        index = line
                record.index = index
                records.append(record)
                stamp = record.timestamp
                if stamp.__class__ is str_ and len(stamp) == width and stamp.isascii():
                    stamps += stamp.encode()
                    record.timestamp = unset
                else:
                    stamps += blank
                parent = record.parentId
                if parent == last_id:  # (a conversation: the entry before is the parent)
                    record.parentId = last_id
                elif parent.__class__ is str_:
                    above = by_id.get(parent)
                    if above is not None:
                        record.parentId = above.id
                previous = by_id.get(rid)
                if previous is not None:
                    problems.append(_duplicate_id(rid, previous.line, record.line))
                by_id[rid] = record
                last_id = rid
                tokens += record.tokens
                cost += record.cost
                messages += 1
                continue
        if isinstance(record, HeaderLine):
            # A second "session" line: pi ignores it everywhere except when counting v1 indexes.
            if migration is not None:
                migration.skip(parsed_index)
            problems.append(Problem(ProblemKind.EXTRA_HEADER, "extra session header ignored", record.line))
            continue
        if migration is not None:  # (only migration needs where pi's parser holds it)
            record.parsed_index = parsed_index
            migration.migrate(record, parsed_index, records[-1].id if records else None)
        rid = record.id
        if not isinstance(rid, str):
            problems.append(
                Problem(
                    ProblemKind.MISSING_ID,
                    f"{record.type!s} entry without a string id skipped",
                    record.line,
                )
            )
            continue
        kind = record.type
        system = record.has_system_message
        if kind == "message":
            m = record.message
            if not isinstance(m, MessageHead):
                problems.append(
                    Problem(
                        ProblemKind.BAD_MESSAGE,
                        "message entry without a message object",
                        record.line,
                        rid,
                    )
                )
            elif m.role == "system":
                system = True
        elif kind == "context_edit" and record.replacement_kind == CONTENT_ABSENT:
            problems.append(
                Problem(
                    ProblemKind.BAD_EDIT,
                    "context edit without a replacement: ignored (pi would stop with an error)",
                    record.line,
                    rid,
                )
            )
        if system:
            system_prompts += 1
        record.index = len(records)
        records.append(record)
        stamps += blank
        parent = record.parentId
        if parent.__class__ is str:
            above = by_id.get(parent)
            if above is not None:
                record.parentId = above.id  # the same string, kept once
        previous = by_id.get(rid)
        if previous is not None:
            problems.append(_duplicate_id(rid, previous.line, record.line))
        by_id[rid] = record
        tokens += record.tokens
        cost += record.cost
        if kind.__class__ is str:
            type_counts[kind] = type_counts.get(kind, 0) + 1
        else:
            with contextlib.suppress(TypeError):  # an unhashable "type" value: nothing to count
                type_counts[kind] = type_counts.get(kind, 0) + 1
        if kind == "label":
            apply_label(session, record)
        elif kind == "session_info":
            session.name = session_name_of(record.name)
        elif kind == "context_edit" and isinstance(record.targetId, str):
            session.edit_counts[record.targetId] = session.edit_counts.get(record.targetId, 0) + 1
    if messages:
        type_counts["message"] = type_counts.get("message", 0) + messages
    added = records[first_added:] if first_added else records  # (read, never changed)
    session.parsed_count = parsed_index + 1
    session.totals.tokens, session.totals.cost = tokens, cost
    session.system_prompt_entries += system_prompts
    if added:
        session.default_leaf = added[-1].id
        session.last_was_duplicate = previous is not None
    return added


def apply_label(session: SessionState, record: EntryRecord) -> None:
    target = record.targetId
    try:
        hash(target)
    except TypeError:
        return
    if js_truthy(record.label):
        session.labels[target] = record.label
        session.label_timestamps[target] = record.timestamp
    else:
        session.labels.pop(target, None)
        session.label_timestamps.pop(target, None)
