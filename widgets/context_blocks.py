"""The context pane's blocks: which units a projection is drawn as, and what each one says.

A block is the system prompt (replayed when first drawn), one message of a context entry (read
back when first drawn), or an entry that is not in context (with its reason). `build_blocks`
makes them from records only, in reading order; `block_text` says what one block shows, as a
`BlockText` (a first line, paragraphs, what was replaced) that the pane lays out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

from msgspec import UNSET

from ..core.common.glyphs import Glyphs
from ..core.common.jsvalues import js_string
from ..core.common.text import human_count, one_line
from ..core.projection.context import Fate, Projection, Reason, SystemPrompt, entry_messages
from ..core.reading.records import CONTENT_NULL, EntryRecord, MessageHead
from ..core.session.describe import content_text, excerpt, kind_label
from ..core.session.session import Session
from .blockscroll import ScrollBlock
from .message_text import Paragraph, Tone, entry_text, message_paragraphs, role_title, role_tone

PREVIEW_LINES = {
    "user": 8,
    "assistant": 10,
    "toolResult": 4,
    "bashExecution": 4,
    "compactionSummary": 6,
    "system": 3,
}
DEFAULT_PREVIEW = 5


class BlockKind(Enum):
    SYSTEM_PROMPT = "system-prompt"  # the prompt and tools in effect at the leaf
    MESSAGE = "message"  # one message a context entry sends
    EXCLUDED = "excluded"  # an entry on the path that is not in context, with the reason


class Block(ScrollBlock, gc=False):
    """One drawn unit. A message block knows where its message comes from (the entry, its
    position among the entry's messages, the edit that applies) and reads it back only when it
    is drawn; the prompt block replays the prompt of its projection only when drawn.

    Nearly every block is an entry's one unedited message: a `Block`, whose rarer fields are
    their defaults (class attributes, no room in each of 100,000 blocks); any other is a
    `FullBlock`, which holds them."""

    kind: BlockKind
    record: EntryRecord | None
    # The message once read; UNSET before (one field, not two: 100,000 blocks, 1.5 MiB).
    _message: Any = UNSET

    if TYPE_CHECKING:
        fate: Fate | None = None  # why the entry is out of the context, or replaced
        first: bool = False  # the leading compaction of the context (its checkpoint is sent)
        message_index: int = 0
        edit: EntryRecord | None = None
        projection: Projection | None = None  # SYSTEM_PROMPT: the projection the prompt replays from
        prompt: SystemPrompt | None = None  # SYSTEM_PROMPT: once replayed
    else:
        fate = None
        first = False
        message_index = 0
        edit = None
        projection = None
        prompt = None

    @property
    def entry_id(self) -> str | None:
        return self.record.id if self.record is not None else None

    def message(self, session: Session) -> Any:
        """The raw message this block shows (read back once; None when there is none)."""
        if self._message is UNSET:
            message = None
            if self.record is not None:
                messages = entry_messages(session, self.record, self.first, self.edit)
                message = messages[self.message_index] if self.message_index < len(messages) else None
            self._message = message
        return self._message

    def original(self, session: Session) -> Any:
        """For an entry replaced by a context edit: its message before the edit."""
        if self.fate is None or self.fate.reason is not Reason.REPLACED or self.record is None:
            return None
        entry = session.entry_dict(self.record)
        if self.record.type == "message":
            return entry.get("message")
        return {"role": "custom", "content": entry.get("content")}

    def system_prompt(self, session: Session) -> SystemPrompt | None:
        if self.prompt is None and self.projection is not None:
            self.prompt = self.projection.system_prompt(session)
        return self.prompt


class FullBlock(Block, gc=False):
    """A block that is not an entry's one unedited message in the context: the system prompt,
    a message of an entry that sends several, an edited one, the leading compaction, an
    excluded entry."""

    fate: Fate | None = None
    first: bool = False
    message_index: int = 0
    edit: EntryRecord | None = None
    projection: Projection | None = None
    prompt: SystemPrompt | None = None


BlockKey = tuple[int, int, bool, int]  # (record index, message index, first, edit index)


class BlockCache:
    """Message blocks kept across projections of one session. The common block (an entry's
    one unedited message) is kept in a list by record index: a dict of every entry of a
    100,000-entry path took 5 MiB, the list takes 0.8; the rare ones by their full key
    (`other`)."""

    __slots__ = ("_by_index", "other")

    def __init__(self) -> None:
        self._by_index: list[Block | None] = []
        self.other: dict[BlockKey, Block] = {}

    def by_index(self, size: int) -> list[Block | None]:
        """The list of common blocks by record index, `size` long at least (filled in place)."""
        by_index = self._by_index
        if size > len(by_index):
            by_index.extend([None] * (size - len(by_index)))
        return by_index


def build_blocks(
    session: Session,
    projection: Projection,
    show_excluded: bool,
    cache: BlockCache | None = None,
    start: int = 0,
) -> list[Block]:
    """Blocks in reading order, built from records only (bodies are read when drawn).

    Without excluded entries: the system prompt, then every projected message in pi's
    order. With them: summarized entries first (they precede the compaction that replaced
    them), then the context in pi's order with folded, omitted and replaced entries in place.
    `cache` keeps message blocks (and their layout) across projections of the same session:
    moving along a conversation reuses almost all of them, so this is one dictionary lookup
    per message. From `start` (a position in the context, without excluded entries): only
    the blocks of the messages from there on."""
    cache = BlockCache() if cache is None else cache
    blocks: list[Block] = []
    if session.system_prompt_entries and not start:
        # Replayed only when drawn: the prompt sits at the top, usually out of view.
        blocks.append(FullBlock(BlockKind.SYSTEM_PROMPT, None, projection=projection, estimate=5))
    fates: dict[int, Fate] = {}
    pending: list[Fate] = []
    path_index: dict[int, int] = {}
    if show_excluded:
        fates = {id(f.record): f for f in projection.fates}
        path_index = {id(r): i for i, r in enumerate(projection.path)}
        for out in projection.fates:
            if out.reason is Reason.SUMMARIZED:
                blocks.append(FullBlock(BlockKind.EXCLUDED, out.record, fate=out, estimate=2))
            elif not out.in_context:
                pending.append(out)
    edits = projection.edits
    append = blocks.append
    other = cache.other
    size = len(session.records)
    by_index = cache.by_index(size)
    context, counts = projection.context, projection.counts
    for position in range(start, len(context)):
        record, count = context[position], counts[position]
        if pending:
            where = path_index.get(id(record), -1)
            while pending and path_index[id(pending[0].record)] <= where and record.type != "compaction":
                excluded = pending.pop(0)
                append(FullBlock(BlockKind.EXCLUDED, excluded.record, fate=excluded, estimate=2))
        if not count:
            continue
        edit = edits.get(record.id) if edits else None
        if count == 1 and edit is None and position and record.index < size:
            block = by_index[record.index]  # the common case: one message, unedited
            if block is None:
                fate = fates.get(id(record))
                block = (
                    Block(BlockKind.MESSAGE, record, estimate=_estimate(record))
                    if fate is None
                    else FullBlock(BlockKind.MESSAGE, record, fate=fate, estimate=_estimate(record))
                )
                by_index[record.index] = block
            append(block)
            continue
        first = position == 0
        fate = fates.get(id(record)) if show_excluded else None
        if fate is None and edit is not None and edit.replacement_kind != CONTENT_NULL:
            fate = next((f for f in projection.fates if f.record is record), None)
        for k in range(count):
            key = (record.index, k, first, edit.index if edit is not None else -1)
            block = other.get(key)
            if block is None:
                block = FullBlock(
                    BlockKind.MESSAGE,
                    record,
                    fate=fate,
                    first=first,
                    message_index=k,
                    edit=edit,
                    estimate=_estimate(record),
                )
                other[key] = block
            append(block)
    for excluded in pending:
        append(FullBlock(BlockKind.EXCLUDED, excluded.record, fate=excluded, estimate=2))
    return blocks


def _estimate(record: EntryRecord) -> int:
    """A block's height before it is laid out: its first line, a line a 60 bytes of content
    up to its role's preview, and the blank line after it. (Made for every message of a
    context when it is shown: kept to a few steps.)"""
    message = record.message
    role = message.role if message.__class__ is MessageHead and record.type == "message" else None
    preview = PREVIEW_LINES.get(role, DEFAULT_PREVIEW) if role.__class__ is str else DEFAULT_PREVIEW
    lines = record.content_size // 60 or 1
    return 2 + (lines if lines < preview else preview)


# ---------------------------------------------------------------------- what a block says
@dataclass(slots=True)
class BlockText:
    """What one block shows: a first line of pieces, then paragraphs (at most `limit` lines of
    them while collapsed, None: all), then `after` (what an edit replaced), whole."""

    head: list[tuple[str, Tone]] = field(default_factory=list)
    paragraphs: list[Paragraph] = field(default_factory=list)
    limit: int | None = None
    after: list[Paragraph] = field(default_factory=list)


def block_text(block: Block, session: Session, width: int, glyphs: Glyphs) -> BlockText:
    """What `block` says at `width` cells (an excluded entry's excerpt is cut to fit)."""
    if block.kind is BlockKind.SYSTEM_PROMPT:
        return _prompt_text(block.system_prompt(session), block.expanded, glyphs)
    record = block.record
    if record is None:
        return BlockText(paragraphs=[Paragraph(Tone.HINT, "(nothing to show)", wrap=False)])
    if block.kind is BlockKind.EXCLUDED:
        return _excluded_text(block, record, session, width, glyphs)
    message = block.message(session)
    role = message.get("role") if isinstance(message, dict) else None
    head = [
        (one_line(role_title(message, glyphs), 300, glyphs=glyphs), role_tone(role)),
        (f" {one_line(record.id, 200, glyphs=glyphs)}", Tone.META),
    ]
    fate = block.fate
    if fate is not None and fate.reason is Reason.REPLACED:
        head.append(
            (f"  {glyphs.edit} replaced by edit {one_line(str(fate.by), 200, glyphs=glyphs)}", Tone.META)
        )
    text = BlockText(
        head,
        message_paragraphs(message, block.expanded, glyphs),
        None if block.expanded else PREVIEW_LINES.get(str(role), DEFAULT_PREVIEW),
    )
    replaced = block.original(session)
    if replaced is not None and block.expanded:
        text.after.append(Paragraph(Tone.REPLACED, "  original, before the edit:", wrap=False))
        text.after.extend(
            Paragraph(Tone.REPLACED, p.text) for p in message_paragraphs(replaced, True, glyphs)
        )
    elif replaced is not None:
        original = content_text(replaced.get("content"), glyphs=glyphs) if isinstance(replaced, dict) else ""
        text.after.append(Paragraph(Tone.REPLACED, f"  was: {original}", wrap=False))
    return text


def _excluded_text(
    block: Block, record: EntryRecord, session: Session, width: int, glyphs: Glyphs
) -> BlockText:
    fate = block.fate
    reason = fate.describe() if fate else "not in context"
    head = f"{glyphs.excluded} {kind_label(record):<9} {record.id}  {reason}: "
    summary = Paragraph(Tone.EXCLUDED, head + excerpt(session, record, width, glyphs=glyphs), wrap=False)
    text = BlockText(paragraphs=[summary])
    if block.expanded:
        text.paragraphs.append(Paragraph(Tone.EXCLUDED, entry_text(session.entry_dict(record), glyphs)))
    return text


def _prompt_text(prompt: SystemPrompt | None, expanded: bool, glyphs: Glyphs) -> BlockText:
    if prompt is None or prompt.is_empty:
        return BlockText(paragraphs=[Paragraph(Tone.HINT, "(no system prompt at this point)", wrap=False)])
    dot = f" {glyphs.dot} "
    head = f"system prompt{dot}{len(prompt.sections)} section(s){dot}{len(prompt.tools)} tool(s)"
    if prompt.sources:
        head += f" {glyphs.dot} from {', '.join(prompt.sources[-3:])}"
    text = BlockText([(one_line(head, 400, glyphs=glyphs), Tone.ROLE_SYSTEM)])
    out = text.paragraphs
    if not expanded:
        names = ", ".join(f"{n} ({human_count(len(t))} ch)" for n, t in prompt.sections.items()) or "none"
        out.append(Paragraph(Tone.META, f"  sections: {names}", wrap=False))
        tools = ", ".join(str(t.get("name")) for t in prompt.tools) or "none"
        out.append(Paragraph(Tone.META, f"  tools: {tools}", wrap=False))
        out.append(Paragraph(Tone.HINT, "  enter to expand", wrap=False))
        return text
    if prompt.content:
        out.append(Paragraph(Tone.TEXT, prompt.content))
    for name, section in prompt.sections.items():
        source = prompt.section_sources.get(name, "")
        out.append(Paragraph(Tone.ROLE_SYSTEM, f"  § {name}  (set by {source})", wrap=False))
        out.append(Paragraph(Tone.TEXT, section))
    for tool in prompt.tools:
        line = f"  tool {js_string(tool.get('name'))}: {js_string(tool.get('description'))}"
        out.append(Paragraph(Tone.META, line, wrap=False))
    return text
