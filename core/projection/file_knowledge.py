"""What the model knew of each file at a leaf: every path the tool calls on the way there read,
changed or named, and whether its last read and last edit are still in what pi would send
(or were summarized by a compaction, omitted or replaced by a context edit).

Structure first: the walk goes over the path's records; only tool calls, tool results and
user `!` commands are read back, once each (a `FileTracker` remembers what it read, so moving
the leaf along a session reads nothing twice). `seen_text()` reads the exact text of one touch
for a view. (Over 450 lines: the tracker, the facts it reads from bodies and the text a
touch showed are one reading of tool calls.)
"""

from __future__ import annotations

import json
import ntpath
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any
from urllib.parse import unquote, urlsplit

from ..common.jsvalues import js_string
from ..reading.records import EntryRecord, MessageHead
from ..session.session import Session
from .bashpaths import Access, named_paths
from .context import Fate, Projection, Reason, project

__all__ = [
    "Access",
    "FileKnowledge",
    "FileState",
    "FileTracker",
    "FilesAtLeaf",
    "SeenText",
    "Touch",
    "files_at",
    "normalise_path",
    "seen_text",
]

# pi's built-in tools that name files (dist/core/tools/): argument `path`, and `command` for bash.
FILE_TOOLS = frozenset({"read", "edit", "write"})
LISTING_TOOLS = frozenset({"grep", "find", "ls"})
BASH_TOOL = "bash"
USER_BASH = "user-bash"  # a `!command` the user ran: a bashExecution message
_TOOLS = FILE_TOOLS | LISTING_TOOLS | {BASH_TOOL}
_SCAN_BACK = 64  # entries looked back for the call of a tool result that came without one


class FileState(StrEnum):
    """Where the model's latest knowledge of a file stands at the leaf."""

    IN_CONTEXT = "in-context"  # the latest read or edit is sent as it was
    SUMMARIZED = "summarized"  # ... lies before the kept range of a compaction
    OMITTED = "omitted"  # ... was removed by a context edit
    REPLACED = "replaced"  # ... had its content replaced by a context edit
    NEVER_SEEN = "never-seen"  # named (ls, grep, a script run...) but never read or edited


_STATE_BY_REASON = {
    Reason.SENT: FileState.IN_CONTEXT,
    Reason.NO_MESSAGES: FileState.IN_CONTEXT,
    Reason.CHECKPOINT: FileState.IN_CONTEXT,
    Reason.REPLACED: FileState.REPLACED,
    Reason.SUMMARIZED: FileState.SUMMARIZED,
    Reason.FOLDED: FileState.SUMMARIZED,
}


def state_of(fate: Fate) -> FileState:
    return _STATE_BY_REASON.get(fate.reason, FileState.OMITTED)


@dataclass(frozen=True, slots=True)
class Touch:
    """One tool call (or user command) that named a file."""

    path: str  # normalised against the session cwd
    access: Access
    verb: str  # "read", "edit", "write", or the shell program / operator: "cat", "sed -i", ">"...
    tool: str  # the tool's name ("read", "bash"...), or "user-bash" for a `!command`
    entry: EntryRecord  # holds what the model saw: the result for reads, the call for edits
    call: EntryRecord | None  # the assistant entry with the tool call (None for a user command)
    result: EntryRecord  # the tool result, or the user command's bashExecution message
    call_id: str | None = None
    detail: str = ""  # e.g. "lines 72-131" for a partial read
    error: bool = False  # the tool reported an error: nothing was read or changed for sure
    hidden: bool = False  # a `!!command`: excluded from the context, the model never saw it

    @property
    def counts(self) -> bool:
        """Whether this touch tells what the model knew (a failed or hidden one does not)."""
        return not (self.error or self.hidden)


@dataclass(slots=True)
class FileKnowledge:
    """One file at one leaf."""

    path: str
    display: str  # relative to the session cwd when inside it
    touches: list[Touch] = field(default_factory=list)  # root to leaf
    last_read: Touch | None = None
    last_edit: Touch | None = None
    read_fate: Fate | None = None
    edit_fate: Fate | None = None
    state: FileState = FileState.NEVER_SEEN
    by: str | None = None  # the compaction or context edit behind the state
    visible: Touch | None = None  # the latest read or edit still sent as it was (may be older)

    @property
    def in_context(self) -> bool:
        return self.state is FileState.IN_CONTEXT

    @property
    def latest(self) -> Touch | None:
        """The last read or edit, whichever came later: what the state describes."""
        read, edit = self.last_read, self.last_edit
        if read is None or edit is None:
            return read or edit
        return read if read.result.index > edit.result.index else edit

    @property
    def latest_fate(self) -> Fate | None:
        latest = self.latest
        if latest is None:
            return None
        return self.read_fate if latest is self.last_read else self.edit_fate


@dataclass(slots=True)
class FilesAtLeaf:
    leaf_id: str
    projection: Projection
    files: list[FileKnowledge]  # in the order the path first named them

    def get(self, path: str) -> FileKnowledge | None:
        return next((f for f in self.files if f.path == path), None)


@dataclass(frozen=True, slots=True)
class SeenText:
    """The exact text a touch showed the model."""

    entry_id: str
    source: str  # "tool-result", "tool-call" or "bash-execution"
    text: str
    arguments: Any = None  # the tool call's arguments (an edit's edits, a write's content...)


# ---------------------------------------------------------------------- facts read from bodies
@dataclass(frozen=True, slots=True)
class _Named:
    path: str  # normalised against the session cwd
    access: Access
    verb: str
    detail: str = ""


@dataclass(frozen=True, slots=True)
class _Call:
    call_id: str
    name: str
    named: tuple[_Named, ...]


@dataclass(frozen=True, slots=True)
class _Result:
    call_id: Any
    error: bool


class FileTracker:
    """Files per leaf of one session; remembers what it read from bodies across leaves."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._generation = session.generation
        self._calls: dict[int, tuple[_Call, ...]] = {}  # record index -> its tool calls
        self._results: dict[int, _Result] = {}
        self._user_bash: dict[int, tuple[tuple[_Named, ...], bool]] = {}

    def files_at(self, leaf_id: str, projection: Projection | None = None) -> FilesAtLeaf:
        """Every file the path to `leaf_id` named (raises UnknownEntryError)."""
        session = self.session
        self._forget_if_reread()
        current = (leaf_id, session.tree_version)
        if projection is None or (projection.leaf_id, projection.tree_version) != current:
            projection = project(session, leaf_id)  # one handed in is reused only if current
        cwd = session.cwd
        files: dict[str, FileKnowledge] = {}
        for touch in self._touches(projection.path):
            known = files.get(touch.path)
            if known is None:
                known = files[touch.path] = FileKnowledge(touch.path, display_path(touch.path, cwd))
            known.touches.append(touch)
        fates = {f.record.index: f for f in projection.fates}
        for known in files.values():
            _settle(known, fates)
        return FilesAtLeaf(leaf_id, projection, list(files.values()))

    def touches_along(self, path: list[EntryRecord]) -> list[Touch]:
        """Every touch on `path` (a `session.path_to` result), root to leaf: what `files_at`
        groups by file, for callers that need the touches of every branch (the index)."""
        self._forget_if_reread()
        return self._touches(path)

    def _forget_if_reread(self) -> None:
        session = self.session
        if self._generation != session.generation:  # the file was read again from scratch
            self._calls.clear()
            self._results.clear()
            self._user_bash.clear()
            self._generation = session.generation

    # ------------------------------------------------------------------ the walk
    def _touches(self, path: list[EntryRecord]) -> list[Touch]:
        out: list[Touch] = []
        open_calls: dict[str, tuple[EntryRecord, _Call]] = {}
        for position, record in enumerate(path):
            head = record.message
            if record.type != "message" or not isinstance(head, MessageHead):
                continue
            role = head.role
            if role == "assistant":
                if head.stopReason == "toolUse":
                    self._open(record, open_calls)
            elif role == "toolResult":
                if not isinstance(head.toolName, str) or head.toolName not in _TOOLS:
                    continue
                result = self._result(record)
                found = open_calls.pop(result.call_id, None) if isinstance(result.call_id, str) else None
                if found is None and isinstance(result.call_id, str):
                    found = self._scan_back(path, position, result.call_id)
                if found is not None:
                    call_record, call = found
                    out.extend(_call_touches(call_record, call, record, result.error))
            elif role == "bashExecution":
                named, hidden = self._bash_execution(record)
                for item in named:
                    out.append(
                        Touch(
                            item.path,
                            item.access,
                            item.verb,
                            USER_BASH,
                            record,
                            None,
                            record,
                            hidden=hidden,
                        )
                    )
        return out

    def _open(self, record: EntryRecord, open_calls: dict[str, tuple[EntryRecord, _Call]]) -> None:
        for call in self._calls_of(record):
            open_calls[call.call_id] = (record, call)

    def _scan_back(
        self,
        path: list[EntryRecord],
        position: int,
        call_id: str,
    ) -> tuple[EntryRecord, _Call] | None:
        """The call of a result whose assistant message did not say `toolUse`."""
        for back in range(position - 1, max(-1, position - 1 - _SCAN_BACK), -1):
            record = path[back]
            if record.type == "message" and record.role == "assistant":
                for call in self._calls_of(record):
                    if call.call_id == call_id:
                        return record, call
        return None

    def _calls_of(self, record: EntryRecord) -> tuple[_Call, ...]:
        calls = self._calls.get(record.index)
        if calls is None:
            calls = self._take_calls(record, self.session.entry_dict(record))
        return calls

    def _take_calls(self, record: EntryRecord, entry: dict[str, Any]) -> tuple[_Call, ...]:
        calls = self._calls[record.index] = _read_calls(entry, self.session.cwd)
        return calls

    def _result(self, record: EntryRecord) -> _Result:
        result = self._results.get(record.index)
        if result is None:
            result = self._take_result(record, self.session.entry_dict(record))
        return result

    def _take_result(self, record: EntryRecord, entry: dict[str, Any]) -> _Result:
        message = entry.get("message")
        message = message if isinstance(message, dict) else {}
        result = _Result(message.get("toolCallId"), message.get("isError") is True)
        self._results[record.index] = result
        return result

    def _bash_execution(self, record: EntryRecord) -> tuple[tuple[_Named, ...], bool]:
        known = self._user_bash.get(record.index)
        if known is None:
            known = self._take_bash_execution(record, self.session.entry_dict(record))
        return known

    def _take_bash_execution(
        self, record: EntryRecord, entry: dict[str, Any]
    ) -> tuple[tuple[_Named, ...], bool]:
        message = entry.get("message")
        message = message if isinstance(message, dict) else {}
        command = message.get("command")
        named = _shell_named(command, self.session.cwd) if isinstance(command, str) else ()
        known = self._user_bash[record.index] = (named, message.get("excludeFromContext") is True)
        return known

    def read_ahead(self, calls_seen: Callable[[EntryRecord, dict[str, Any]], None] | None = None) -> None:
        """Read, in one pass over the file (runs of lines read together, not cached in the
        session), every body the walks will look at: for a caller about to walk every branch.
        `calls_seen` gets each tool-calling reply's body on the way (the index takes its
        commands from there)."""
        self._forget_if_reread()
        wanted: list[EntryRecord] = []
        for record in self.session.winners():
            head = record.message
            if record.type != "message" or not isinstance(head, MessageHead):
                continue
            role = head.role
            if (
                (role == "assistant" and head.stopReason == "toolUse" and record.index not in self._calls)
                or (
                    role == "toolResult"
                    and isinstance(head.toolName, str)
                    and head.toolName in _TOOLS
                    and record.index not in self._results
                )
                or (role == "bashExecution" and record.index not in self._user_bash)
            ):
                wanted.append(record)
        for record, entry in zip(wanted, self.session.entry_dicts(wanted), strict=True):
            role = record.role
            if role == "assistant":
                self._take_calls(record, entry)
                if calls_seen is not None:
                    calls_seen(record, entry)
            elif role == "toolResult":
                self._take_result(record, entry)
            else:
                self._take_bash_execution(record, entry)


def files_at(session: Session, leaf_id: str) -> FilesAtLeaf:
    """Every file the path to `leaf_id` named, and what the model knew of each."""
    return FileTracker(session).files_at(leaf_id)


def _settle(known: FileKnowledge, fates: dict[int, Fate]) -> None:
    for touch in known.touches:
        if not touch.counts:
            continue
        if touch.access is Access.READ:
            known.last_read = touch
        elif touch.access is Access.EDIT:
            known.last_edit = touch
        else:
            continue
        if state_of(fates[touch.entry.index]) is FileState.IN_CONTEXT:
            known.visible = touch
    if known.last_read is not None:
        known.read_fate = fates[known.last_read.entry.index]
    if known.last_edit is not None:
        known.edit_fate = fates[known.last_edit.entry.index]
    latest = known.latest
    if latest is None:
        return
    fate = fates[latest.entry.index]
    known.state = state_of(fate)
    known.by = fate.by


def _call_touches(call_record: EntryRecord, call: _Call, result: EntryRecord, error: bool) -> list[Touch]:
    touches = []
    for item in call.named:
        # What the model saw of a read is the result; of an edit, the call's own arguments.
        holder = call_record if item.access is Access.EDIT else result
        touches.append(
            Touch(
                item.path,
                item.access,
                item.verb,
                call.name,
                holder,
                call_record,
                result,
                call.call_id,
                item.detail,
                error,
            )
        )
    return touches


def _read_calls(entry: dict[str, Any], cwd: str) -> tuple[_Call, ...]:
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return ()
    calls: list[_Call] = []
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "toolCall":
            continue
        name, call_id, args = block.get("name"), block.get("id"), block.get("arguments")
        if (
            not isinstance(name, str)
            or name not in _TOOLS
            or not isinstance(call_id, str)
            or not isinstance(args, dict)
        ):
            continue
        named = _named_by_call(name, args, cwd)
        if named:
            calls.append(_Call(call_id, name, named))
    return tuple(calls)


def _named_by_call(name: str, args: dict[str, Any], cwd: str) -> tuple[_Named, ...]:
    if name == BASH_TOOL:
        command = args.get("command")
        return _shell_named(command, cwd) if isinstance(command, str) else ()
    path = args.get("path")
    if not isinstance(path, str) or not path:
        return ()
    if name == "read":
        return (_Named(normalise_path(path, cwd, True), Access.READ, name, _read_range(args)),)
    access = Access.EDIT if name in ("edit", "write") else Access.OTHER
    return (_Named(normalise_path(path, cwd, True), access, name),)


def _shell_named(command: str, cwd: str) -> tuple[_Named, ...]:
    return tuple(_Named(normalise_path(p.path, cwd), p.access, p.verb) for p in named_paths(command))


def _read_range(args: dict[str, Any]) -> str:
    offset, limit = args.get("offset"), args.get("limit")
    number = (int, float)
    if isinstance(offset, number) and isinstance(limit, number) and not isinstance(offset, bool):
        return f"lines {js_string(offset)}-{js_string(offset + limit - 1)}"
    if isinstance(offset, number) and not isinstance(offset, bool):
        return f"from line {js_string(offset)}"
    if isinstance(limit, number) and not isinstance(limit, bool):
        return f"first {js_string(limit)} lines"
    return ""


# ---------------------------------------------------------------------- paths
_UNICODE_SPACES = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")
_WINDOWS = re.compile(r"^(?:[A-Za-z]:[\\/]|\\\\)")


def normalise_path(raw: str, cwd: str, tool_argument: bool = False) -> str:
    """A path as the tool resolved it: against the session cwd, `.` and `..` folded.

    Tool arguments get pi's own clean-up (unicode spaces, a leading `@`, file:// URLs); a
    home directory (`~/`, and `~user` in a shell command) is kept as written: whose home it
    was is not in the session."""
    path = raw
    if tool_argument:
        path = _UNICODE_SPACES.sub(" ", path)
        if path.startswith("@"):
            path = path[1:]
        if path.startswith("file://"):
            path = unquote(urlsplit(path).path) or path
    flavour = ntpath if _WINDOWS.match(cwd) or _WINDOWS.match(path) else posixpath
    if path == "~" or path.startswith("~/") or (path.startswith("~") and not tool_argument):
        return str(flavour.normpath(path))
    joined = path if flavour.isabs(path) or not cwd else flavour.join(cwd, path)
    return str(flavour.normpath(joined))


def display_path(path: str, cwd: str) -> str:
    """`path` relative to `cwd` when it lies inside it (as pi shows paths), else as it is."""
    if not cwd:
        return path
    flavour = ntpath if _WINDOWS.match(cwd) else posixpath
    root = flavour.normpath(cwd)
    if path == root:
        return "."
    prefix = root if root.endswith(flavour.sep) else root + flavour.sep
    return path[len(prefix) :] if path.startswith(prefix) else path


# ---------------------------------------------------------------------- the text a touch showed
def seen_text(session: Session, touch: Touch) -> SeenText:
    """The exact text the model saw through `touch`: a read's tool result, an edit's or a
    write's arguments, a shell command's output (or, for a change, the command itself)."""
    if touch.tool == USER_BASH:
        message = _message(session, touch.result)
        command = js_string(message.get("command"))
        text = command if touch.access is Access.EDIT else js_string(message.get("output"))
        return SeenText(touch.result.id, "bash-execution", text, {"command": command})
    if touch.access is Access.EDIT and touch.call is not None:
        args = _call_arguments(session, touch.call, touch.call_id)
        return SeenText(touch.call.id, "tool-call", _arguments_text(touch.tool, args), args)
    message = _message(session, touch.result)
    return SeenText(touch.result.id, "tool-result", _result_text(message.get("content")))


def _message(session: Session, record: EntryRecord) -> dict[str, Any]:
    message = session.entry_dict(record).get("message")
    return message if isinstance(message, dict) else {}


def _call_arguments(session: Session, record: EntryRecord, call_id: str | None) -> Any:
    content = _message(session, record).get("content")
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "toolCall" and block.get("id") == call_id:
            return block.get("arguments")
    return None


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return str(content)
    parts: list[str] = []
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            parts.append(js_string(block.get("text")))
        elif block.get("type") == "image":
            mime = block.get("mimeType")
            parts.append(f"[image {mime}]" if isinstance(mime, str) else "[image]")
    return "\n".join(parts)


def _arguments_text(tool: str, args: Any) -> str:
    if not isinstance(args, dict):
        return ""
    if tool == "write":
        return js_string(args.get("content"))
    if tool == BASH_TOOL:
        return js_string(args.get("command"))
    if tool != "edit":
        return ""
    return "\n".join(f"--- old\n{js_string(old)}\n+++ new\n{js_string(new)}" for old, new in edit_pairs(args))


def edit_pairs(args: dict[str, Any]) -> list[tuple[Any, Any]]:
    """An edit call's (oldText, newText) pairs, read as pi's edit tool reads its arguments:
    `edits` as an array, a JSON string or a single object, plus the legacy top-level pair."""
    edits: Any = args.get("edits")
    if isinstance(edits, str):
        try:
            edits = json.loads(edits)
        except ValueError:
            edits = None
    if isinstance(edits, dict):
        edits = [edits]
    pairs = [
        (e.get("oldText"), e.get("newText"))
        for e in (edits if isinstance(edits, list) else [])
        if isinstance(e, dict)
    ]
    if isinstance(args.get("oldText"), str) and isinstance(args.get("newText"), str):
        pairs.append((args["oldText"], args["newText"]))
    return pairs
