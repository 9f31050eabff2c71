"""The MCP server's tools, without the protocol: which subcommands they are, their argument
schemas (read off each subcommand's own parser), and one call's answer (the subcommand's
`--json` lines, run in this process, paged by `limit`/`cursor` and cut to a size an agent can take).

Where cutting happens: here, after the subcommand printed, one JSON line at a time. A line with
no string longer than `max_chars` and no list longer than `MAX_ITEMS` is passed on byte for byte,
so an uncut answer is exactly what `pi-sessions NAME ... --json` prints; only a line that needs
a cut is decoded, shortened (the middle of a long string or list is replaced by a note of how
much was left out) and encoded again the way the command line encodes.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

# Tool name -> what it answers (the subcommand of the same name runs it). A subcommand that is
# not on this branch yet is left out of the list: adding a tool is one line here.
TOOLS: dict[str, str] = {
    "list": "The sessions, newest first: path, id, cwd, name, created, modified, messageCount, firstMessage.",
    "search": (
        "Search sessions; each hit lands on a session and an entry (entry_id) with its field, an "
        "excerpt and whether it is on the active path. deep: also tool results, bash, thinking, "
        "summaries, labels. since: only sessions active within e.g. 7d."
    ),
    "tree": "A session's tree: entry ids, children in pi's order, default leaf, labels, diagnostics.",
    "context": (
        "Exactly what the model saw at an entry (pi's projection): context entry ids, the projected "
        "messages, model, thinking level, tokens, and the excluded entries with the reason."
    ),
    "compare": "Two leaves of one session: the split entry, the entries on each side, tokens and cost.",
    "files": "What the model knew of each file at an entry: state, last read, last edit, in context.",
    "labels": "Every label in the sessions, with its entry and whether it is on the active path.",
    "stats": "Tokens, cost and messages of a session up to an entry.",
    "history": "Every touch of a file across sessions: read, changed or named, and where.",
    "costs": "What the sessions cost, grouped by day, week, month, model or cwd.",
    "check": "What pi will do on resuming a session at an entry: findings and stale files.",
}

# Options of the subcommands that are not tool arguments: the answer is always the JSON form,
# and the readable form's switches change nothing in it.
HIDDEN = frozenset({"help", "json", "no_cache", "ascii"})
# Exit statuses that still carry an answer (`check`: ready with warnings).
ANSWER_CODES = frozenset({0, 3})

DEFAULT_LIMIT = 50
MAX_LIMIT = 1000
DEFAULT_MAX_CHARS = 2000
MAX_ITEMS = 200
# An answer's size in bytes (what one tool result can put into an agent's context), at least one line.
MAX_ANSWER_BYTES = 100_000

PAGING: dict[str, dict[str, Any]] = {
    "limit": {
        "type": "integer",
        "minimum": 1,
        "maximum": MAX_LIMIT,
        "default": DEFAULT_LIMIT,
        "description": "JSON lines per answer",
    },
    "cursor": {"type": "string", "description": "where to go on: the cursor a previous answer gave"},
    "max_chars": {
        "type": "integer",
        "minimum": 0,
        "default": DEFAULT_MAX_CHARS,
        "description": "strings longer than this are cut in the middle, with a note of how much was left out",
    },
}


class ToolError(Exception):
    """A bad call: its one line is the tool error the agent sees."""


class _Parser(argparse.ArgumentParser):
    """A subcommand's parser whose errors are raised, not printed with an exit."""

    def error(self, message: str) -> Any:
        raise ToolError(message)


def available() -> list[str]:
    """The tools whose subcommand exists on this build, in the table's order."""
    from . import MODULES

    return [name for name in TOOLS if name in MODULES]


def parser_of(name: str) -> argparse.ArgumentParser:
    from . import module

    mod = module(name)
    parser = _Parser(prog=f"pi-sessions {name}", description=mod.HELP, add_help=False)
    mod.configure(parser)
    return parser


@dataclass(frozen=True)
class Argument:
    """One tool argument: a positional or an option of the subcommand."""

    name: str
    flag: str | None  # the option string; None for a positional
    kind: str  # "string", "boolean", "integer" or "array"
    required: bool
    choices: tuple[str, ...] = ()
    help: str = ""


def arguments_of(parser: argparse.ArgumentParser) -> list[Argument]:
    found = []
    for action in parser._actions:
        if action.dest in HIDDEN or action.dest == argparse.SUPPRESS:
            continue
        if action.nargs == 0:
            kind = "boolean"
        elif isinstance(action, argparse._AppendAction):
            kind = "array"
        elif action.type is int:
            kind = "integer"
        else:
            kind = "string"
        flag = None
        if action.option_strings:
            flag = next((s for s in action.option_strings if s.startswith("--")), action.option_strings[0])
        required = not action.option_strings and action.nargs not in ("?", "*")
        choices = tuple(str(c) for c in action.choices) if action.choices else ()
        found.append(Argument(action.dest, flag, kind, required, choices, action.help or ""))
    return found


def input_schema(arguments: list[Argument]) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    for arg in arguments:
        prop: dict[str, Any]
        if arg.kind == "array":  # (one id is taken as well as a list of them)
            prop = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}
        else:
            prop = {"type": arg.kind}
        if arg.choices:
            prop["enum"] = list(arg.choices)
        if arg.help and arg.help != argparse.SUPPRESS:
            prop["description"] = arg.help
        properties[arg.name] = prop
    properties.update(PAGING)
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    required = [a.name for a in arguments if a.required]
    if required:
        schema["required"] = required
    return schema


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    arguments: list[Argument]
    schema: dict[str, Any]


def specs(stored: Mapping[str, Sequence[tuple[Any, ...]]] | None = None) -> list[ToolSpec]:
    """The tools, their arguments read off the parsers, or off `stored` (mcp_catalog's table:
    no subcommand imported, what `tools/list` answers with) where it has the tool."""
    found = []
    for name in available():
        if stored is not None and name in stored:
            arguments = [Argument(*row) for row in stored[name]]
        else:
            arguments = arguments_of(parser_of(name))
        found.append(ToolSpec(name, TOOLS[name], arguments, input_schema(arguments)))
    return found


def argv_for(arguments: list[Argument], given: dict[str, Any]) -> list[str]:
    """The command line for `given` (checked against `arguments`): options, `--`, positionals
    (so a query or path that starts with a dash is not read as an option)."""
    by_name = {a.name: a for a in arguments}
    unknown = sorted(set(given) - set(by_name))
    if unknown:
        takes = ", ".join([*by_name, *PAGING]) or "nothing"
        raise ToolError(f"unknown argument {unknown[0]!r} (this tool takes: {takes})")
    options: list[str] = []
    positionals: list[str] = []
    for arg in arguments:
        value = given.get(arg.name)
        if value is None:
            if arg.required:
                raise ToolError(f"missing argument {arg.name!r}")
            continue
        if arg.kind == "boolean":
            if not isinstance(value, bool):
                raise ToolError(f"{arg.name}: expected true or false, got {_shown(value)}")
            if value:
                options.append(str(arg.flag))
            continue
        values = value if arg.kind == "array" and isinstance(value, list) else [value]
        for one in values:
            if arg.kind == "integer" and (isinstance(one, bool) or not isinstance(one, int)):
                raise ToolError(f"{arg.name}: expected an integer, got {_shown(one)}")
            if arg.kind != "integer" and not isinstance(one, str):
                raise ToolError(f"{arg.name}: expected a string, got {_shown(one)}")
            if arg.choices and str(one) not in arg.choices:
                raise ToolError(f"{arg.name}: {_shown(one)} is not one of {', '.join(arg.choices)}")
            if arg.flag is None:
                positionals.append(str(one))
            else:
                options += [arg.flag, str(one)]
    return [*options, "--json", "--", *positionals] if positionals else [*options, "--json"]


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 60 else text[:57] + "..."


def _int_argument(given: dict[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = given.pop(name, None)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ToolError(f"{name}: expected an integer from {low} to {high}, got {_shown(value)}")
    return value


# ---------------------------------------------------------------------- cutting


@dataclass
class Cuts:
    """What a cut left out, for the answer's note."""

    strings: int = 0
    items: int = 0


def _cut(value: Any, max_chars: int, max_items: int, cuts: Cuts) -> Any:
    if isinstance(value, str):
        if max_chars and len(value) > max_chars:
            left = len(value) - max_chars
            cuts.strings += 1
            head = max_chars - max_chars // 4
            return f"{value[:head]}…[{left:,} characters cut]…{value[len(value) - max_chars // 4 :]}"
        return value
    if isinstance(value, list):
        if len(value) > max_items:
            left = len(value) - max_items
            cuts.items += 1
            head = max_items - max_items // 4
            kept = [*value[:head], f"…[{left:,} items cut]…", *value[len(value) - max_items // 4 :]]
            return [_cut(v, max_chars, max_items, cuts) for v in kept]
        return [_cut(v, max_chars, max_items, cuts) for v in value]
    if isinstance(value, dict):
        return {k: _cut(v, max_chars, max_items, cuts) for k, v in value.items()}
    return value


def _needs_cut(value: Any, max_chars: int, max_items: int) -> bool:
    if isinstance(value, str):
        return bool(max_chars) and len(value) > max_chars
    if isinstance(value, list):
        return len(value) > max_items or any(_needs_cut(v, max_chars, max_items) for v in value)
    if isinstance(value, dict):
        return any(_needs_cut(v, max_chars, max_items) for v in value.values())
    return False


def cut_line(line: bytes, max_chars: int, budget: int, cuts: Cuts) -> bytes:
    """`line` as it is if nothing in it is too long, else shortened (and, while it is still
    over `budget` bytes, shortened harder), encoded as the command line encodes."""
    from ...core.common.jsonout import encode_json, escape_terminal_controls

    if len(line) <= 2 * MAX_ITEMS and (not max_chars or len(line) <= max_chars):
        return line  # (too short to hold a string or a list that is too long)
    try:
        value = json.loads(line)
    except ValueError:  # (not JSON: never printed by a subcommand, but still bounded)
        value = line.decode("utf-8", "replace")
    chars, items = max_chars, MAX_ITEMS
    if not _needs_cut(value, chars, items) and len(line) <= budget:
        return line
    while True:
        found = Cuts()
        out = escape_terminal_controls(encode_json(_cut(value, chars, items, found)))
        if len(out) <= budget or (chars and chars <= 40 and items <= 4):
            cuts.strings += found.strings
            cuts.items += found.items
            return out
        chars = max(40, chars // 2) if chars else 2000
        items = max(4, items // 2)


# ---------------------------------------------------------------------- one call


class Enough(BaseException):
    """Raised out of a write once the page is full: the subcommand stops there (a
    BaseException, so that no `except Exception` in a subcommand takes it for a failure)."""


class Pager(io.RawIOBase):
    """Where the subcommand's stdout goes: its lines before `start` are counted and dropped,
    the page's are cut as they come, and the run is stopped (`Enough`) once a line is past
    `limit` or the answer's bytes: neither the time nor the memory grows with what is left."""

    def __init__(
        self, start: int, limit: int, max_chars: int, transform: Callable[[bytes], bytes] | None = None
    ) -> None:
        super().__init__()
        self.start, self.limit, self.max_chars = start, limit, max_chars
        self.transform = transform  # (a line's redaction, when one is on: before it is cut)
        self.partial: list[bytes] = []
        self.seen = 0  # complete lines so far
        self.taken: list[bytes] = []
        self.size = 0
        self.cuts = Cuts()
        self.more = False

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        data = bytes(data)
        if len(self.taken) >= self.limit and data:
            self.more = True
            raise Enough
        at = 0
        while (end := data.find(b"\n", at)) >= 0:
            self.partial.append(data[at:end])
            at = end + 1
            line, self.partial = b"".join(self.partial), []
            self._line(line)
            if len(self.taken) >= self.limit and at < len(data):
                self.more = True
                raise Enough
        if at < len(data):
            self.partial.append(data[at:])
        return len(data)

    def _line(self, line: bytes) -> None:
        index = self.seen
        self.seen += 1
        if index < self.start:
            return
        if self.transform is not None:
            line = self.transform(line)
        found = Cuts()
        line = cut_line(line, self.max_chars, MAX_ANSWER_BYTES, found)
        if self.taken and self.size + len(line) + 1 > MAX_ANSWER_BYTES:
            self.seen -= 1  # (the next page starts with it)
            self.more = True
            raise Enough
        self.taken.append(line)
        self.size += len(line) + 1
        self.cuts.strings += found.strings
        self.cuts.items += found.items

    def end(self) -> None:
        """After a run that was not stopped: a last line without its newline is a line too."""
        if self.partial and not self.more:
            line, self.partial = b"".join(self.partial), []
            if line:
                with contextlib.suppress(Enough):
                    self._line(line)


@dataclass
class Answer:
    """One tool result: the JSON lines (the first text) and a note on what is left (the second)."""

    text: str
    note: str = ""
    warnings: list[str] = field(default_factory=list)


_RUNNING = threading.Lock()  # stdout is captured for the whole process: one subcommand at a time

# runner(name, argv, stdout) runs the subcommand with its stdout going to `stdout`, and gives
# its exit status and what it wrote on stderr (Enough, raised by the pager, ends a run early).
Runner = Callable[[str, list[str], Pager], tuple[int, str]]


def call(
    name: str, given: dict[str, Any], runner: Runner, transform: Callable[[bytes], bytes] | None = None
) -> Answer:
    """`name` with the arguments `given`, each line of its answer passed through `transform`
    first if one is given. Raises ToolError for a bad call or a failed run."""
    if name not in available():
        raise ToolError(f"no tool {name!r} (tools: {', '.join(available())})")
    given = dict(given)
    limit = _int_argument(given, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
    max_chars = _int_argument(given, "max_chars", DEFAULT_MAX_CHARS, 0, 10**9)
    cursor = given.pop("cursor", None)
    start = 0
    if cursor is not None:
        if not isinstance(cursor, str) or not cursor.isdigit():
            raise ToolError(f"cursor: not a cursor this server gave: {_shown(cursor)}")
        start = int(cursor)
    parser = parser_of(name)
    argv = argv_for(arguments_of(parser), given)
    parser.parse_args(argv)  # (its own checks: a bad combination is an error before the run)
    pager = Pager(start, limit, max_chars, transform)
    with _RUNNING:
        code, err = runner(name, argv, pager)
    warnings = [line for line in err.splitlines() if line.strip()]
    if code not in ANSWER_CODES:
        raise ToolError(warnings[-1] if warnings else f"pi-sessions {name} ended with status {code}")
    pager.end()
    if start and start > pager.seen:
        raise ToolError(f"cursor: past the end of the answer ({pager.seen} lines)")
    return answer(pager, warnings)


def answer(pager: Pager, warnings: list[str]) -> Answer:
    start, taken, cuts = pager.start, pager.taken, pager.cuts
    at = start + len(taken)
    notes = []
    if pager.more:
        notes.append(f'lines {start + 1}-{at}; more follow: call again with cursor "{at}"')
    elif start:
        notes.append(f"lines {start + 1}-{at} of {at}")
    if cuts.strings or cuts.items:
        notes.append(
            f"cut: {cuts.strings} long strings and {cuts.items} long lists shortened in the middle "
            f"(each says how much was left out); max_chars sets the strings' length"
        )
    if not pager.seen:
        notes.append("no results")
    text = b"".join(line + b"\n" for line in taken).decode("utf-8", "replace")
    return Answer(text, "; ".join(notes), warnings[-5:])
