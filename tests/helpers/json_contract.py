"""The `--json` contract of every subcommand, written by hand from ../shared/DESIGN.md section 6
(the command-line contract), and a checker: fields named there must be present with their type.

DESIGN.md says its JSON field names are fixed ("add fields freely, never rename these"), so a
record may carry more fields than listed here, never fewer, and never one of another type.
Subcommands DESIGN.md names no fields for (`stats`, `config`, the marks) are pinned from their
`--help` and what they print today, marked so below.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

ISO_MS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")  # JavaScript's toISOString


@dataclass(frozen=True)
class T:
    """A JSON type: `kind` one of str, int, number, bool, object, list, map (object of one value
    type), any; `nullable` lets null in; `item` is a list's or map's value type, `fields` an
    object's named fields, `choices` the strings allowed, `pattern` the form of a string."""

    kind: str
    nullable: bool = False
    item: T | None = None
    fields: dict[str, T] | None = None
    choices: tuple[str, ...] = ()
    pattern: re.Pattern[str] | None = None


STR = T("str")
INT = T("int")
NUM = T("number")
BOOL = T("bool")
ANY = T("any", nullable=True)
OBJECT = T("object")
ISO = T("str", pattern=ISO_MS)


def opt(t: T) -> T:
    return T(t.kind, True, t.item, t.fields, t.choices, t.pattern)


def list_of(t: T) -> T:
    return T("list", item=t)


def map_of(t: T) -> T:
    return T("map", item=t)


def obj(**fields: T) -> T:
    return T("object", fields=fields)


def one_of(*choices: str) -> T:
    return T("str", choices=choices)


IDS = list_of(STR)

# subcommand -> the fields of each object it prints (one per line for JSON Lines).
CONTRACT: dict[str, dict[str, T]] = {
    "list": {
        "path": STR,
        "id": STR,
        "cwd": STR,
        "name": opt(STR),
        "parentSessionPath": opt(STR),
        "created": ISO,
        "modified": ISO,
        "messageCount": INT,
        "firstMessage": STR,
    },
    "tree": {
        "header": OBJECT,
        "entry_ids": IDS,
        "default_leaf": opt(STR),
        "session_name": opt(STR),
        "roots": IDS,
        "children": map_of(IDS),
        "preorder": IDS,
        "labels": map_of(STR),
        "label_timestamps": map_of(STR),
        "diagnostics": list_of(ANY),
    },
    "context": {
        "leaf": opt(STR),
        "context_entry_ids": IDS,
        "projection_message_counts": list_of(INT),
        "messages": list_of(OBJECT),
        "model": opt(OBJECT),
        "thinkingLevel": opt(STR),
        "context_tokens": INT,
    },
    "search": {
        "path": STR,
        "session_id": STR,
        "entry_id": opt(STR),
        "field": STR,
        "excerpt": STR,
        "on_active_path": opt(BOOL),  # null with entry_id: a hit on the name, id or cwd is on no path
    },
    "labels": {
        "path": STR,
        "session_id": STR,
        "entry_id": STR,
        "label": STR,
        "timestamp": STR,
        "on_active_path": BOOL,
    },
    "compare": {
        "split": opt(STR),
        "a": obj(leaf=STR, entries_since_split=IDS, tokens=INT, cost=NUM, context_tokens=INT),
        "b": obj(leaf=STR, entries_since_split=IDS, tokens=INT, cost=NUM, context_tokens=INT),
        "only_in_a": IDS,
        "only_in_b": IDS,
    },
    "files": {
        "path": STR,
        "state": STR,
        "last_read_entry": opt(STR),
        "last_edit_entry": opt(STR),
        "in_context": BOOL,
    },
    "fork": {"path": opt(STR), "lines": list_of(OBJECT)},
    "history": {
        "path": STR,
        "session_path": STR,
        "session_id": STR,
        "entry_id": STR,
        "action": one_of("read", "changed", "named"),
        "timestamp": STR,
        "on_active_path": BOOL,
        "in_context": BOOL,
        "host": opt(STR),
    },
    "costs": {
        "key": STR,
        "input": INT,
        "output": INT,
        "cache_read": INT,
        "cache_write": INT,
        "cost": NUM,
        "replies": INT,
        "estimated": INT,
    },
    "edits": {"session_path": STR, "entry_id": STR, "timestamp": STR, "on_active_path": BOOL, "path": STR},
    "commands": {
        "session_path": STR,
        "entry_id": STR,
        "timestamp": STR,
        "on_active_path": BOOL,
        "command": STR,
    },
    "check": {
        "ready": BOOL,
        "findings": list_of(obj(code=STR, message=STR, entry_id=opt(STR))),
        "stale_files": list_of(obj(path=STR, why=one_of("changed", "deleted", "differs_from_head"))),
    },
    "slim": {
        "path": opt(STR),
        "moved": list_of(obj(entry_id=STR, kind=one_of("image", "output"), bytes=INT, file=STR)),
        "bytes_before": INT,
        "bytes_after": INT,
    },
    "secrets": {
        "session_path": STR,
        "entry_id": STR,
        "kind": STR,
        "preview": STR,
        "on_active_path": BOOL,
        "in_context": BOOL,
    },
    # Not in DESIGN.md: from `stats --help`'s example (`jq .context.context_percent`) and its output.
    "stats": {
        "path": STR,
        "session_id": STR,
        "leaf": opt(STR),
        "model": opt(OBJECT),
        "thinkingLevel": opt(STR),
        "context_tokens": INT,
        "context": obj(context_percent=opt(NUM), context_window=opt(INT)),
        "path_totals": obj(entries=INT, tokens=INT, cost=NUM),
        "session_totals": obj(entries=INT, tokens=INT, cost=NUM),
    },
    # Not in DESIGN.md: what `config --json` prints.
    "config": {
        "config_file": STR,
        "config_file_found": BOOL,
        "problems": list_of(ANY),
        "settings": map_of(obj(value=ANY, source=STR)),
    },
}
# `list --json --subagents`: every row adds these two (null on pi's own rows), a subagent session
# found below pi's two levels has its parent's path.
SUBAGENT_ROW: dict[str, T] = {**CONTRACT["list"], "parent": opt(STR), "parentEntryId": opt(STR)}
# Not in DESIGN.md: the marks' `--json` ("one object: path, session_id, pinned, archived, tags").
MARKS: dict[str, T] = {"path": STR, "session_id": STR, "pinned": BOOL, "archived": BOOL, "tags": list_of(STR)}
for _name in ("pin", "unpin", "archive", "unarchive", "tag"):
    CONTRACT[_name] = MARKS


def _type_ok(value: Any, t: T) -> bool:
    if t.kind == "any":
        return True
    if t.kind == "str":
        return isinstance(value, str)
    if t.kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if t.kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if t.kind == "bool":
        return isinstance(value, bool)
    if t.kind == "list":
        return isinstance(value, list)
    return isinstance(value, dict)  # object, map


def problems(value: Any, t: T, where: str, seen: set[str]) -> list[str]:
    """What in `value` breaks `t` (one line each, naming the field); `seen` collects the fields
    found holding a value other than null, so a caller can tell a sample exercised each type."""
    if value is None:
        return [] if t.nullable else [f"{where}: null"]
    if not _type_ok(value, t):
        return [f"{where}: {type(value).__name__} {value!r:.60}, not {t.kind}"]
    seen.add(where)
    found: list[str] = []
    if t.choices and value not in t.choices:
        found.append(f"{where}: {value!r} not one of {t.choices}")
    if t.pattern is not None and not t.pattern.match(value):
        found.append(f"{where}: {value!r} not of the form {t.pattern.pattern}")
    if t.kind == "list" and t.item is not None:
        for item in value:
            found += problems(item, t.item, f"{where}[]", seen)
    if t.kind == "map" and t.item is not None:
        for item in value.values():
            found += problems(item, t.item, f"{where}{{}}", seen)
    if t.fields is not None:
        found += record_problems(value, t.fields, where, seen)
    return found


def record_problems(record: Any, fields: dict[str, T], where: str, seen: set[str]) -> list[str]:
    """What in one printed object breaks its contract: a named field missing or mistyped."""
    if not isinstance(record, dict):
        return [f"{where}: {type(record).__name__}, not an object"]
    found: list[str] = []
    for name, t in fields.items():
        here = f"{where}.{name}"
        if name not in record:
            found.append(f"{here}: missing")
        else:
            found += problems(record[name], t, here, seen)
    return found


def field_paths(fields: dict[str, T], where: str) -> set[str]:
    """Every field path (as `problems` names them), nested ones included: a sample that holds a
    value other than null at each of them has checked each type."""
    found: set[str] = set()
    for name, t in fields.items():
        here = f"{where}.{name}"
        found.add(here)
        if t.fields is not None:
            found |= field_paths(t.fields, here)
        if t.item is not None and t.item.fields is not None:
            found |= field_paths(t.item.fields, here + ("[]" if t.kind == "list" else "{}"))
    return found
