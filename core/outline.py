"""The branch tree as rows to draw: a linear run stays at one level, forks indent.

A conversation is a long chain with a few forks. Nesting one level per entry would make a
10,000-entry session unreadable (and recursive widgets fall over), so rows only indent where
the tree forks: each child of a fork point starts a branch one level deeper, and a single
child continues at its parent's level. The branch holding the active leaf comes first at
every fork, so the conversation pi would resume reads top to bottom without a jump.

Also here: one-line descriptions of entries (what each row says), computed from the entry
read back by offset, only for the rows someone looks at.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .jsvalues import js_string
from .problems import StaleFileError
from .records import EntryRecord
from .session import Session
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


def filter_predicate(view: ViewFilter, session: Session) -> Callable[[EntryRecord], bool] | None:
    if view is ViewFilter.ALL:
        return None
    if view is ViewFilter.USER_ONLY:
        return lambda r: r.type == "message" and r.role == "user"
    if view is ViewFilter.LABELED:
        labels = session.labels
        return lambda r: r.id in labels
    if view is ViewFilter.NO_TOOLS:
        return lambda r: r.type not in SETTINGS_TYPES and not (r.type == "message" and r.role == "toolResult")
    return lambda r: r.type not in SETTINGS_TYPES


@dataclass(slots=True)
class OutlineRow:
    record: EntryRecord
    depth: int
    guides: tuple[bool, ...]  # per outer branch level: does a later sibling branch continue below?
    branch_start: bool  # the first row of a branch below a fork point
    last_branch: bool  # ... and that branch is the last one of its fork
    child_count: int
    on_active_path: bool
    folded: bool = False
    hidden_count: int = 0  # descendants hidden by folding

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
    visible: Callable[[EntryRecord], bool] | None = None,
) -> list[OutlineRow]:
    """Rows in display order (iterative: depth of the tree never matters)."""
    leaf = active_leaf if active_leaf is not None else session.default_leaf
    active = active_path_ids(session, leaf)
    by_id = session.by_id
    children = session.children
    rows: list[OutlineRow] = []
    no_guides: tuple[bool, ...] = ()

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
        stack.append((roots[i], 0, no_guides, multiple_roots, i == len(roots) - 1))
    while stack:
        node, depth, guides, branch_start, last_branch = stack.pop()
        record = by_id[node]
        kids = children.get(node) or ()
        show = visible is None or visible(record)
        is_folded = node in folded and bool(kids)
        if show or is_folded:
            rows.append(
                OutlineRow(
                    record=record,
                    depth=depth,
                    guides=guides,
                    branch_start=branch_start,
                    last_branch=last_branch,
                    child_count=len(kids),
                    on_active_path=node in active,
                    folded=is_folded,
                    hidden_count=subtree_size(session, node) - 1 if is_folded else 0,
                )
            )
            branch_start = False
        if is_folded or not kids:
            continue
        if len(kids) == 1:
            # A chain continues at the same level; a hidden branch start passes its connector on.
            stack.append((kids[0], depth, guides, branch_start, last_branch))
            continue
        kid_list = ordered(list(kids))
        for i in range(len(kid_list) - 1, -1, -1):
            last = i == len(kid_list) - 1
            stack.append((kid_list[i], depth + 1, (*guides, not last), True, last))
    return rows


def subtree_size(session: Session, node: str) -> int:
    count = 0
    stack = [node]
    children = session.children
    while stack:
        current = stack.pop()
        count += 1
        kids = children.get(current)
        if kids:
            stack.extend(kids)
    return count


def fork_points(session: Session) -> list[str]:
    return [r.id for r in session.winners() if len(session.children.get(r.id, ())) > 1]


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
    return {
        "model_change": "model",
        "thinking_level_change": "thinking",
        "branch_summary": "branch",
        "custom_message": "ext-msg",
        "session_info": "name",
        "context_edit": "edit",
    }.get(kind, kind if isinstance(kind, str) else "?")


def content_text(content: Any, with_tools: bool = True) -> str:
    """Readable text of a message content (text blocks, tool calls shown as `→ name(args)`)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return "" if content is None else js_string(content)
    parts: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            parts.append(js_string(block.get("text")))
        elif kind == "toolCall" and with_tools:
            parts.append(
                f"{GLYPHS.arrow} {js_string(block.get('name'))}({_args_preview(block.get('arguments'))})"
            )
        elif kind == "image":
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
    return one_line(_describe(session, record, entry), limit)


def _describe(session: Session, record: EntryRecord, entry: dict[str, Any]) -> str:
    kind = record.type
    if kind == "message":
        message = entry.get("message")
        if not isinstance(message, dict):
            return "(no message object)"
        role = message.get("role")
        content = message.get("content")
        if role == "toolResult":
            head = js_string(message.get("toolName")) or "tool"
            error = " error" if message.get("isError") else ""
            return f"{head}{error}: {content_text(content)}"
        if role == "bashExecution":
            code = message.get("exitCode")
            tail = f" (exit {code})" if isinstance(code, int) and code else ""
            return f"$ {js_string(message.get('command'))}{tail}  {js_string(message.get('output'))}"
        if role == "system":
            sections = message.get("sections")
            names = ", ".join(str(k) for k in sections) if isinstance(sections, dict) else ""
            tools = len(message.get("toolsAdded") or []) if isinstance(message.get("toolsAdded"), list) else 0
            bits = [content_text(content) or "system prompt"]
            if names:
                bits.append(f"sections: {names}")
            if tools:
                bits.append(f"+{tools} tools")
            return f" {GLYPHS.dot} ".join(bits)
        if role == "assistant":
            text = content_text(content)
            stop = message.get("stopReason")
            if stop not in (None, "stop", "toolUse"):
                text = f"[{js_string(stop)}] {text}".strip()
            if (
                not text
                and isinstance(content, list)
                and any(isinstance(b, dict) and b.get("type") == "thinking" for b in content)
            ):
                text = "(thinking only)"
            return text or "(empty)"
        if role == "custom":
            return f"{js_string(message.get('customType'))}: {content_text(content)}"
        return content_text(content) or "(empty)"
    if kind == "compaction":
        tokens = entry.get("tokensBefore")
        size = f"{human_count(tokens)} tokens" if isinstance(tokens, int | float) else "?"
        return f"[compaction: {size}] {js_string(entry.get('summary'))}"
    if kind == "branch_summary":
        return f"[branch summary] {js_string(entry.get('summary')) or '(empty)'}"
    if kind == "model_change":
        return f"{GLYPHS.arrow} {js_string(entry.get('provider'))}/{js_string(entry.get('modelId'))}"
    if kind == "thinking_level_change":
        return f"{GLYPHS.arrow} {js_string(entry.get('thinkingLevel'))}"
    if kind == "label":
        label = entry.get("label")
        target = js_string(entry.get("targetId"))
        quoted = f"{GLYPHS.open_quote}{js_string(label)}{GLYPHS.close_quote}"
        return f"cleared label on {target}" if not label else f"{quoted} on {target}"
    if kind == "session_info":
        name = entry.get("name")
        return f"{GLYPHS.open_quote}{js_string(name)}{GLYPHS.close_quote}" if name else "(name cleared)"
    if kind == "custom":
        return f"{js_string(entry.get('customType'))} (extension state, not sent)"
    if kind == "custom_message":
        hidden = "" if entry.get("display", True) else " (hidden)"
        return f"{js_string(entry.get('customType'))}{hidden}: {content_text(entry.get('content'))}"
    if kind == "context_edit":
        target = js_string(entry.get("targetId"))
        replacement = entry.get("replacement")
        if "replacement" not in entry:
            return f"edit of {target} without a replacement (ignored)"
        if replacement is None:
            return f"omit {target}"
        new = content_text(replacement.get("content")) if isinstance(replacement, dict) else ""
        return f"replace {target}: {new}"
    if kind == "usage":
        tokens = human_count(record.tokens)
        note = f" {js_string(entry.get('note'))}" if entry.get("note") else ""
        return f"{js_string(entry.get('kind'))}: {tokens} tokens{note}"
    return f"({js_string(kind)}: unknown entry type, kept as is)"


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
