"""The branch tree as rows to draw: a linear run stays at one level, forks indent.

A conversation is a long chain with a few forks. Nesting one level per entry would make a
10,000-entry session unreadable (and recursive widgets fall over), so rows only indent where
the tree forks: each child of a fork point starts a branch one level deeper, and a single
child continues at its parent's level. The branch holding the active leaf comes first at
every fork, so the conversation pi would resume reads top to bottom without a jump.

A live session's new entries get rows without building them all again when they only extend
the active leaf (`extend_rows`). Also here: one-line descriptions of entries (what each row
says), computed from the entry read back by offset, only for the rows someone looks at.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .entries import (
    AnyMessage,
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    CustomEntry,
    CustomMessageEntry,
    CustomRoleMessage,
    ImageBlock,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionInfoEntry,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ThinkingLevelChangeEntry,
    ToolCallBlock,
    ToolResultMessage,
    UnknownMessage,
    UsageEntry,
    UserMessage,
    as_content,
    content_blocks,
    parse_entry,
)
from .jsvalues import js_string
from .problems import StaleFileError
from .records import EntryRecord
from .session import Session, SessionDelta
from .text import GLYPHS, human_count, one_line


class ViewFilter(StrEnum):
    DEFAULT = "default"
    NO_TOOLS = "no-tools"
    USER_ONLY = "user-only"
    LABELED = "labeled-only"
    ALL = "all"

    @property
    def label(self) -> str:
        return {
            ViewFilter.DEFAULT: "conversation",
            ViewFilter.NO_TOOLS: "no tool results",
            ViewFilter.USER_ONLY: "user messages",
            ViewFilter.LABELED: "labelled",
            ViewFilter.ALL: "everything",
        }[self]

    def next(self) -> ViewFilter:
        order = list(ViewFilter)
        return order[(order.index(self) + 1) % len(order)]


# Bookkeeping entries pi's tree hides by default.
SETTINGS_TYPES = frozenset(
    {"label", "custom", "usage", "model_change", "thinking_level_change", "session_info", "context_edit"}
)


@dataclass(frozen=True, slots=True)
class RowFilter:
    """Which entries a view shows; the always-shown ids (the active leaf, search matches)
    pass whatever the rest says."""

    hidden_types: frozenset[str] = frozenset()
    hide_tool_results: bool = False
    user_only: bool = False
    labelled_only: bool = False
    always: frozenset[str] = frozenset()

    def with_always(self, ids: Collection[str]) -> RowFilter:
        return RowFilter(
            self.hidden_types, self.hide_tool_results, self.user_only, self.labelled_only, frozenset(ids)
        )

    def shows(self, record: EntryRecord, labels: Collection[Any]) -> bool:
        if record.id in self.always:
            return True
        kind = record.type
        if self.user_only:
            return bool(kind == "message" and record.role == "user")
        if self.labelled_only:
            return record.id in labels
        if kind.__class__ is str and kind in self.hidden_types:
            return False
        return not (self.hide_tool_results and kind == "message" and record.role == "toolResult")


def row_filter(view: ViewFilter) -> RowFilter | None:
    """The filter of a view (None: everything is shown)."""
    if view is ViewFilter.ALL:
        return None
    if view is ViewFilter.USER_ONLY:
        return RowFilter(user_only=True)
    if view is ViewFilter.LABELED:
        return RowFilter(labelled_only=True)
    return RowFilter(hidden_types=SETTINGS_TYPES, hide_tool_results=view is ViewFilter.NO_TOOLS)


class OutlineRow:
    """One drawn row of the branch tree."""

    __slots__ = (
        "branch_start",
        "child_count",
        "depth",
        "folded",
        "guides",
        "hidden_count",
        "last_branch",
        "on_active_path",
        "record",
    )

    def __init__(
        self,
        record: EntryRecord,
        depth: int,
        guides: tuple[bool, ...],
        branch_start: bool,
        last_branch: bool,
        child_count: int,
        on_active_path: bool,
        folded: bool = False,
        hidden_count: int = 0,
    ) -> None:
        self.record = record
        self.depth = depth
        self.guides = guides  # per outer branch level: does a later sibling branch continue below?
        self.branch_start = branch_start  # the first row of a branch below a fork point
        self.last_branch = last_branch  # ... and that branch is the last one of its fork
        self.child_count = child_count
        self.on_active_path = on_active_path
        self.folded = folded
        self.hidden_count = hidden_count  # descendants hidden by folding

    @property
    def is_fork_point(self) -> bool:
        return self.child_count > 1

    @property
    def connector(self) -> str:
        if not self.branch_start:
            return ""
        return "└─ " if self.last_branch else "├─ "


def active_path_ids(session: Session, leaf: str | None) -> set[str]:
    if leaf is None or leaf not in session.by_id:
        return set()
    return {r.id for r in session.path_to(leaf)}


def outline_rows(
    session: Session,
    active_leaf: str | None = None,
    folded: Collection[str] = (),
    view: RowFilter | None = None,
) -> list[OutlineRow]:
    """Rows in display order (iterative: the depth of the tree never matters). A chain of
    single children is followed in an inner loop: that is most of any conversation."""
    leaf = active_leaf if active_leaf is not None else session.default_leaf
    active = active_path_ids(session, leaf)
    by_id = session.by_id
    children = session.children
    labels = session.labels
    rows: list[OutlineRow] = []
    append = rows.append
    shows = view.shows if view is not None else None

    def ordered(ids: list[str]) -> list[str]:
        if len(ids) < 2 or not active:
            return ids
        first = [i for i in ids if i in active]
        return first + [i for i in ids if i not in active] if first else ids

    roots = ordered(session.roots)
    multiple_roots = len(roots) > 1
    # (id, depth, guides, branch_start, last_branch)
    stack: list[tuple[str, int, tuple[bool, ...], bool, bool]] = []
    for i in range(len(roots) - 1, -1, -1):
        stack.append((roots[i], 0, (), multiple_roots, i == len(roots) - 1))
    while stack:
        node, depth, guides, branch_start, last_branch = stack.pop()
        while True:
            record = by_id[node]
            kids = children.get(node) or ()
            is_folded = bool(kids) and node in folded
            if shows is None or is_folded or shows(record, labels):
                append(
                    OutlineRow(
                        record,
                        depth,
                        guides,
                        branch_start,
                        last_branch,
                        len(kids),
                        node in active,
                        is_folded,
                        session.count_below([node]) - 1 if is_folded else 0,
                    )
                )
                branch_start = False
            if is_folded or not kids:
                break
            if len(kids) == 1:
                # A chain continues at the same level; a hidden branch start passes its connector on.
                node = kids[0]
                continue
            kid_list = ordered(list(kids))
            for i in range(len(kid_list) - 1, -1, -1):
                last = i == len(kid_list) - 1
                stack.append((kid_list[i], depth + 1, (*guides, not last), True, last))
            break
    return rows


@dataclass(frozen=True, slots=True)
class RowInsert:
    """Rows for new entries, to go right after row `at`; that row becomes `parent_row`."""

    at: int
    parent_row: OutlineRow
    rows: list[OutlineRow]


def extend_rows(
    session: Session,
    rows: Sequence[OutlineRow],
    index_by_id: Mapping[str, int],
    delta: SessionDelta,
    view: RowFilter | None,
) -> RowInsert | None:
    """The rows `delta` adds when it only extends the active leaf (a conversation growing at
    its tip, the common live case: inserting costs what the new entries cost, a rebuild of
    100,000 rows a fifth of a second); None when the change takes `outline_rows` again.
    `rows`/`index_by_id` are what is shown, `view` its filter (None: everything) with the ids
    it always shows except the active leaf."""
    records = delta.new_records
    previous, leaf = delta.previous_leaf, session.default_leaf
    if delta.reloaded or delta.tree_rebuilt or not records or previous is None or leaf is None:
        return None
    if previous not in index_by_id or leaf != records[-1].id:
        return None  # the active path moved elsewhere: every row's marking may change
    labels = session.labels
    if view is not None and view.labelled_only and any(record.type == "label" for record in records):
        return None  # a new label can reveal an older entry
    if len(delta.continuation(session, previous)) != len(records):
        return None  # not all of them continue the leaf
    at = index_by_id[previous]
    leaf_row = rows[at]
    if leaf_row.folded or not leaf_row.on_active_path:
        return None
    if view is not None and not view.shows(leaf_row.record, labels):
        return None  # the old leaf was shown only for being the leaf: it goes
    shown = view.with_always(view.always | {leaf}) if view is not None else None
    children = session.children
    new_rows = [
        OutlineRow(
            record,
            leaf_row.depth,
            leaf_row.guides,
            False,
            leaf_row.last_branch,
            len(children.get(record.id, ())),
            True,
        )
        for record in records
        if shown is None or shown.shows(record, labels)
    ]
    parent_row = OutlineRow(
        leaf_row.record,
        leaf_row.depth,
        leaf_row.guides,
        leaf_row.branch_start,
        leaf_row.last_branch,
        1,
        leaf_row.on_active_path,
        leaf_row.folded,
        leaf_row.hidden_count,
    )
    return RowInsert(at, parent_row, new_rows)


# ---------------------------------------------------------------------------------------
# What a row says
# ---------------------------------------------------------------------------------------


def kind_label(record: EntryRecord) -> str:
    """`user`, `assistant`, `tool`, `compaction`... (the first column of a row)."""
    kind = record.type
    if kind == "message":
        role = record.role
        if role == "toolResult":
            return "tool"
        if role == "bashExecution":
            return "bash"
        return role if isinstance(role, str) else "message?"
    if not isinstance(kind, str):
        return "?"  # a type that is not even a string (an object, a list...)
    return {
        "model_change": "model",
        "thinking_level_change": "thinking",
        "branch_summary": "branch",
        "custom_message": "ext-msg",
        "session_info": "name",
        "context_edit": "edit",
    }.get(kind, kind)


def content_text(content: Any, with_tools: bool = True) -> str:
    """Readable text of a message content, raw or typed (text blocks; tool calls shown as
    `→ name(args)`; images as `[image]`)."""
    blocks = content_blocks(as_content(content))
    if not blocks and content is not None and not isinstance(content, str | list):
        return js_string(content)
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, TextBlock):
            parts.append(block.text)
        elif isinstance(block, ToolCallBlock) and with_tools:
            parts.append(f"{GLYPHS.arrow} {block.name}({_args_preview(block.arguments)})")
        elif isinstance(block, ImageBlock):
            parts.append("[image]")
    return " ".join(p for p in parts if p)


def _args_preview(args: Any) -> str:
    if isinstance(args, dict):
        items = []
        for key, value in list(args.items())[:3]:
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)[:60]
            items.append(f"{key}={one_line(str(shown), 40)}")
        return ", ".join(items)
    return "" if args is None else one_line(js_string(args), 60)


def excerpt(session: Session, record: EntryRecord, limit: int = 160) -> str:
    """A one-line description of an entry, safe to print (controls shown as placeholders)."""
    try:
        entry = session.entry_dict(record)
    except (StaleFileError, OSError, ValueError):
        return "(could not read this line back: the file changed)"
    return one_line(_describe(record, entry), limit)


def _describe(record: EntryRecord, raw: dict[str, Any]) -> str:
    entry = parse_entry(raw)
    if isinstance(entry, MessageEntry):
        return _describe_message(entry.message)
    if isinstance(entry, CompactionEntry):
        size = f"{human_count(entry.tokensBefore)} tokens" if entry.tokensBefore is not None else "?"
        return f"[compaction: {size}] {entry.summary}"
    if isinstance(entry, BranchSummaryEntry):
        return f"[branch summary] {entry.summary or '(empty)'}"
    if isinstance(entry, ModelChangeEntry):
        return f"{GLYPHS.arrow} {entry.provider or ''}/{entry.modelId or ''}"
    if isinstance(entry, ThinkingLevelChangeEntry):
        return f"{GLYPHS.arrow} {entry.thinkingLevel or ''}"
    if isinstance(entry, LabelEntry):
        quoted = f"{GLYPHS.open_quote}{entry.label}{GLYPHS.close_quote}"
        return f"{quoted} on {entry.targetId}" if entry.label else f"cleared label on {entry.targetId}"
    if isinstance(entry, SessionInfoEntry):
        return f"{GLYPHS.open_quote}{entry.name}{GLYPHS.close_quote}" if entry.name else "(name cleared)"
    if isinstance(entry, CustomEntry):
        return f"{entry.customType or ''} (extension state, not sent)"
    if isinstance(entry, CustomMessageEntry):
        hidden = "" if entry.display is not False else " (hidden)"
        return f"{entry.customType or ''}{hidden}: {content_text(entry.content)}"
    if isinstance(entry, ContextEditEntry):
        if "replacement" not in raw:
            return f"edit of {entry.targetId} without a replacement (ignored)"
        if entry.replacement is None:
            return f"omit {entry.targetId}"
        return f"replace {entry.targetId}: {content_text(entry.replacement.content)}"
    if isinstance(entry, UsageEntry):
        note = f" {entry.note}" if entry.note else ""
        return f"{entry.kind or ''}: {human_count(record.tokens)} tokens{note}"
    if entry.problem:
        return f"({js_string(raw.get('type'))}: {entry.problem}; kept as is)"
    return f"({js_string(raw.get('type'))}: unknown entry type, kept as is)"


def _describe_message(message: AnyMessage) -> str:
    if isinstance(message, ToolResultMessage):
        error = " error" if message.isError else ""
        return f"{message.toolName or 'tool'}{error}: {content_text(message.content)}"
    if isinstance(message, BashExecutionMessage):
        tail = f" (exit {message.exitCode})" if message.exitCode else ""
        return f"$ {message.command}{tail}  {message.output}"
    if isinstance(message, SystemMessage):
        bits = [content_text(message.content) or "system prompt"]
        if message.sections:
            bits.append("sections: " + ", ".join(message.sections))
        if message.toolsAdded:
            bits.append(f"+{len(message.toolsAdded)} tools")
        return f" {GLYPHS.dot} ".join(bits)
    if isinstance(message, AssistantMessage):
        text = content_text(message.content)
        if message.stopReason not in (None, "stop", "toolUse"):
            text = f"[{message.stopReason}] {text}".strip()
        if not text and any(isinstance(b, ThinkingBlock) for b in content_blocks(message.content)):
            text = "(thinking only)"
        return text or "(empty)"
    if isinstance(message, CustomRoleMessage):
        return f"{message.customType or ''}: {content_text(message.content)}"
    if isinstance(message, UserMessage):
        return content_text(message.content) or "(empty)"
    if isinstance(message, UnknownMessage):
        if message.problem and message.role in (None, "user", "assistant", "toolResult"):
            return f"(unreadable message: {message.problem})"
        return content_text(message.extras().get("content")) or f"({js_string(message.role)} message)"
    return content_text(getattr(message, "content", None)) or "(empty)"


def entry_summary_line(session: Session, record: EntryRecord, limit: int = 100) -> str:
    label = session.labels.get(record.id)
    tag = f" [{one_line(js_string(label), 30)}]" if label else ""
    return f"{record.id} {kind_label(record):9}{tag} {excerpt(session, record, limit)}"


def entry_text(entry: dict[str, Any]) -> str:
    """Everything readable in an entry, for searching within a session."""
    parts: list[str] = []
    message = entry.get("message")
    if isinstance(message, dict):
        content = message.get("content")
        parts.append(content_text(content))
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "thinking":
                    parts.append(js_string(block.get("thinking")))
        for key in ("command", "output", "toolName", "customType", "errorMessage"):
            if isinstance(message.get(key), str):
                parts.append(message[key])
    for key in ("summary", "name", "label", "customType", "modelId", "thinkingLevel"):
        if isinstance(entry.get(key), str):
            parts.append(entry[key])
    if entry.get("type") == "custom_message":
        parts.append(content_text(entry.get("content")))
    return "\n".join(p for p in parts if p)


def search_entries(session: Session, query: str) -> list[str]:
    """Ids of entries whose text holds every word of `query` (case-insensitive), in tree
    order. Reads every body back: run it off the UI thread for big sessions."""
    words = [w.casefold() for w in query.split()]
    if not words:
        return []
    order = {entry_id: i for i, entry_id in enumerate(session.preorder())}
    found: list[str] = []
    for record in session.winners():
        if record.id == words[0]:
            found.append(record.id)
            continue
        try:
            text = entry_text(session.entry_dict(record)).casefold()
        except (StaleFileError, OSError, ValueError):
            continue
        if all(w in text for w in words):
            found.append(record.id)
    found.sort(key=lambda i: order.get(i, 0))
    return found
