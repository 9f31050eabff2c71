"""The context pane: exactly what the model saw at the chosen entry, and why the rest did not.

A header says model, thinking level, message count, estimated tokens and cost on the path.
Below, one block per projected message (the replayed system prompt first), drawn with the
Line API: only blocks near the view are read back and laid out, every other block has an
estimated height, so a 10,000-message context costs a handful of reads per move. With the
excluded entries shown (`x`), entries that are not in context appear in place, dimmed, with
the reason: summarized by a compaction, omitted or replaced by a context edit, or a system
prompt folded into a compaction's checkpoint.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from itertools import accumulate
from typing import Any

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Static

from ..core.context import Fate, Projection, Reason, entry_messages
from ..core.entries import (
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomRoleMessage,
    ImageBlock,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    UnknownMessage,
    UserMessage,
    as_content,
    content_blocks,
    parse_message,
)
from ..core.jsvalues import js_string
from ..core.outline import content_text, excerpt, kind_label
from ..core.problems import StaleFileError
from ..core.records import CONTENT_NULL, EntryRecord
from ..core.session import Session, Totals
from ..core.text import GLYPHS, human_count, one_line, visible
from .glyphs import Glyphs
from .plain import PlainStatic

PREVIEW_LINES = {
    "user": 8,
    "assistant": 10,
    "toolResult": 4,
    "bashExecution": 4,
    "compactionSummary": 6,
    "system": 3,
}
DEFAULT_PREVIEW = 5
MAX_RENDER_CHARS = 200_000  # an expanded block shows at most this much text (the rest: raw JSON)


class Block:
    """One drawn unit: the system prompt, a message, or an entry that is not in context.

    A message block knows where its message comes from (the entry, its position among the
    entry's messages, the edit that applies) and reads it back only when it is drawn."""

    __slots__ = (
        "_message",
        "edit",
        "estimate",
        "expanded",
        "extra",
        "fate",
        "first",
        "height",
        "kind",
        "lines",
        "message_index",
        "record",
        "width",
    )

    def __init__(
        self,
        kind: str,
        record: EntryRecord | None,
        *,
        fate: Fate | None = None,
        first: bool = False,
        message_index: int = 0,
        edit: EntryRecord | None = None,
        estimate: int = 3,
        extra: dict[str, Any] | None = None,
    ) -> None:
        self.kind = kind  # "system-prompt", "message", "excluded"
        self.record = record
        self.fate = fate
        self.first = first  # the leading compaction of the context (its checkpoint is sent)
        self.message_index = message_index
        self.edit = edit
        self.estimate = estimate
        self.extra = extra or {}
        self.expanded = False
        self.lines: list[Strip] | None = None
        self.height = estimate  # lines once laid out, the estimate before
        self.width = 0
        self._message: Any = _UNREAD

    def set_lines(self, lines: list[Strip] | None, width: int = 0) -> None:
        self.lines = lines
        self.width = width
        self.height = len(lines) if lines is not None else self.estimate

    @property
    def entry_id(self) -> str | None:
        return self.record.id if self.record is not None else None

    def message(self, session: Session) -> Any:
        if self._message is _UNREAD:
            assert self.record is not None
            messages = entry_messages(session, self.record, self.first, self.edit)
            self._message = messages[self.message_index] if self.message_index < len(messages) else None
        return self._message

    def original(self, session: Session) -> Any:
        """For an entry replaced by a context edit: its message before the edit."""
        if self.fate is None or self.fate.reason is not Reason.REPLACED or self.record is None:
            return None
        entry = session.entry_dict(self.record)
        if self.record.type == "message":
            return entry.get("message")
        return {"role": "custom", "content": entry.get("content")}


_UNREAD = object()


class ContextBody(ScrollView, can_focus=True):
    COMPONENT_CLASSES = {
        "context--role-user",
        "context--role-assistant",
        "context--role-tool",
        "context--role-system",
        "context--role-summary",
        "context--role-other",
        "context--meta",
        "context--text",
        "context--thinking",
        "context--toolcall",
        "context--excluded",
        "context--replaced",
        "context--current",
        "context--hint",
    }

    BINDINGS = [
        Binding("up,k", "scroll_lines(-1)", "Up", show=False),
        Binding("down,j", "scroll_lines(1)", "Down", show=False),
        Binding("pageup", "scroll_lines(-20)", "Page up", show=False),
        Binding("pagedown", "scroll_lines(20)", "Page down", show=False),
        Binding("home", "to_start", "Start", show=False),
        Binding("end", "to_end", "End", show=False),
        Binding("left_square_bracket", "block(-1)", "Prev message", show=False),
        Binding("right_square_bracket", "block(1)", "Next message", show=False),
        Binding("enter,space", "toggle_block", "Expand"),
    ]

    def __init__(self, glyphs: Glyphs, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.glyphs = glyphs
        self.session: Session | None = None
        self.blocks: list[Block] = []
        self.offsets: list[int] = [0]
        self.current = -1
        self._placeholder = ""
        self.stick_to_end = False  # keep the end in view when the size changes (until scrolled)
        self.scroll_pending = False  # a scroll waits for the next refresh
        self._dirty_from: int | None = None  # the first block whose height changed since the layout

    # ------------------------------------------------------------------ layout
    def set_blocks(
        self, session: Session | None, blocks: list[Block], *, at_end: bool, keep_scroll: bool = False
    ) -> None:
        old_y = int(self.scroll_offset.y)
        if keep_scroll and self.blocks and (self.stick_to_end or old_y >= self.max_scroll_y):
            keep_scroll, at_end = False, True  # a view at the end follows what is added
        self.session = session
        self.blocks = blocks
        if keep_scroll:
            self.current = min(self.current, len(blocks) - 1)
        else:
            self.current = len(blocks) - 1 if at_end else (0 if blocks else -1)
        self.stick_to_end = at_end and not keep_scroll
        self._relayout()
        if keep_scroll:
            self.scroll_to(
                y=min(old_y, max(0, self.offsets[-1] - self.scrollable_content_region.height)),
                animate=False,
                immediate=True,
            )
        elif at_end:
            self._settle_end()
            # A view that was not scrollable a moment ago ignores scrolling until laid out.
            self.scroll_pending = True
            self.call_after_refresh(self._settle_end_if_sticking)
        else:
            self.scroll_to(y=0, animate=False, immediate=True, force=True)
            self._prepare_view()
        self.refresh()

    def show_placeholder(self, text: str) -> None:
        self.blocks = []
        self.offsets = [0]
        self.current = -1
        self._placeholder = text
        self.virtual_size = Size(self._width(), 1)
        self.refresh()

    def _width(self) -> int:
        return max(10, self.scrollable_content_region.width)

    def _relayout(self, start: int = 0) -> None:
        """Block offsets from the first block whose height changed (`start`) on: a live
        context grows at its end, and only the end moves."""
        offsets = self.offsets
        if 0 < start < len(offsets) and len(offsets) <= len(self.blocks) + 1:
            del offsets[start + 1 :]
            blocks = self.blocks
            heights = (blocks[i].height for i in range(start, len(blocks)))
            offsets.extend(accumulate(heights, initial=offsets[start]))
            del offsets[start + 1]  # accumulate repeats its initial value
        else:
            self.offsets = [0, *accumulate(b.height for b in self.blocks)]
        self._dirty_from = None
        self.virtual_size = Size(self._width(), max(1, self.offsets[-1]))

    def set_system_prompt_projection(self, projection: Projection) -> None:
        """The prompt block replays from this projection from now on (the same prompt)."""
        if self.blocks and self.blocks[0].kind == "system-prompt":
            self.blocks[0].extra["projection"] = projection

    def append_blocks(self, blocks: list[Block]) -> None:
        """More blocks at the end (a live context growing); a view at the end stays there."""
        at_end = self.stick_to_end or self.scroll_offset.y >= self.max_scroll_y
        start = len(self.blocks)
        self.blocks.extend(blocks)
        self._relayout(start)
        if at_end:
            self.stick_to_end = True
            self._settle_end()
            self.scroll_pending = True
            self.call_after_refresh(self._settle_end_if_sticking)
        self.refresh()

    def _settle_end(self) -> None:
        """Scroll to the end, laying out the last blocks first so estimates do not leave a gap."""
        for _ in range(3):
            self._render_range(
                max(0, self.offsets[-1] - self.scrollable_content_region.height - 5), self.offsets[-1]
            )
            self.scroll_to(
                y=max(0, self.offsets[-1] - self.scrollable_content_region.height),
                animate=False,
                immediate=True,
                force=True,
            )

    def _settle_end_if_sticking(self) -> None:
        if self.stick_to_end:
            self._settle_end()
        self.scroll_pending = False

    def _block_at(self, y: int) -> int:
        return max(0, min(len(self.blocks) - 1, bisect_right(self.offsets, y) - 1))

    def _render_range(self, start: int, stop: int) -> None:
        if not self.blocks:
            return
        width = self._width()
        first, last = self._block_at(start), self._block_at(stop)
        changed: int | None = None
        for index in range(first, last + 1):
            block = self.blocks[index]
            if block.lines is None or block.width != width:
                before = block.height
                self._layout_block(index, block, width)
                if block.height != before and changed is None:
                    changed = index
        if changed is not None:
            self._relayout(changed)

    def _prepare_view(self) -> None:
        """Lay out the blocks in view; keep the top line's block where it was on screen."""
        if not self.blocks:
            return
        top = int(self.scroll_offset.y)
        anchor = self._block_at(top)
        within = top - self.offsets[anchor]
        self._render_range(top, top + self.scrollable_content_region.height + 2)
        new_top = self.offsets[anchor] + within
        if new_top != top:
            self.scroll_to(y=new_top, animate=False, immediate=True, force=True)
            self._render_range(new_top, new_top + self.scrollable_content_region.height + 2)

    def watch_scroll_y(self, old: float, new: float) -> None:
        # ScrollView skips a hidden scrollbar, which then shows up with a stale thumb.
        self.vertical_scrollbar.position = new
        super().watch_scroll_y(old, new)
        # Scrolling up (wheel, scrollbar, keys) leaves the end; scrolling back to it sticks.
        if new < old and new < self.max_scroll_y:
            self.stick_to_end = False
        elif new > old and new >= self.max_scroll_y:
            self.stick_to_end = True
        if round(old) != round(new):
            self._render_range(int(new), int(new) + self.scrollable_content_region.height + 2)

    def on_resize(self, event: events.Resize) -> None:
        for block in self.blocks:
            block.set_lines(None)
        self._relayout()
        if self.stick_to_end:
            self._settle_end()
        else:
            self._prepare_view()

    # ------------------------------------------------------------------ drawing
    def render_line(self, y: int) -> Strip:
        width = self._width()
        absolute = int(self.scroll_offset.y) + y
        if not self.blocks:
            if y == 0 and self._placeholder:
                return self._plain(self._placeholder, self.get_component_rich_style("context--hint"), width)
            return self._blank(width)
        if absolute >= self.offsets[-1]:
            return self._blank(width)
        index = self._block_at(absolute)
        block = self.blocks[index]
        if block.lines is None or block.width != width:
            before = block.height
            self._layout_block(index, block, width)
            if block.height != before:
                if self._dirty_from is None:
                    self.call_after_refresh(self._relayout_if_needed)
                    self._dirty_from = index
                self._dirty_from = min(self._dirty_from, index)
        line = absolute - self.offsets[index]
        if line >= len(block.lines or ()):
            return self._blank(width)
        # Our pieces carry colours only: the pane's background goes underneath.
        strip = (block.lines or [])[line].apply_style(self.rich_style)
        if index == self.current and line == 0:
            strip = strip.apply_style(self.get_component_rich_style("context--current", partial=True))
        return strip.crop_extend(0, width, self.rich_style)

    def _relayout_if_needed(self) -> None:
        if self._dirty_from is not None:
            self._relayout(self._dirty_from)
            if self.stick_to_end:
                self._settle_end()
            self.refresh()

    def style(self, name: str) -> Style:
        return self.get_component_rich_style(name, partial=True)

    def _layout_block(self, index: int, block: Block, width: int) -> None:
        console = self.app.console
        try:
            lines = self._block_lines(block, width, console)
        except (StaleFileError, OSError, ValueError) as e:
            lines = [
                self._plain(f"(cannot read this entry back: {e})", self.style("context--excluded"), width)
            ]
        block.set_lines(lines, width)

    def _blank(self, width: int) -> Strip:
        return Strip([Segment(" " * width, self.rich_style)], width)

    def _plain(self, text: str, style: Style, width: int) -> Strip:
        text = one_line(text, width * 2)
        return Strip([Segment(text, style)]).crop_extend(0, width, style)

    def _wrapped(
        self, text: str, style: Style, width: int, console: Console, limit: int | None
    ) -> tuple[list[Strip], int]:
        """Wrap plain text (never markup; controls shown as placeholders) into strips."""
        # Only what can be shown is laid out: a 1 MB tool output collapses cheaply.
        head = text[: (limit + 2) * max(width, 20) * 2] if limit is not None else text[:MAX_RENDER_CHARS]
        rich_text = Text(visible(head).expandtabs(4), style=style, no_wrap=False, end="")
        options = console.options.update(
            width=max(1, width - 2), no_wrap=False, highlight=False, markup=False
        )
        rendered = console.render_lines(rich_text, options, pad=False)
        total = (
            len(rendered)
            if (limit is None or len(head) == len(text))
            else max(len(rendered), text.count("\n") + 1)
        )
        if limit is not None:
            rendered = rendered[:limit]
        strips = [Strip([Segment("  ", style), *segments]) for segments in rendered]
        return strips, total

    def _block_lines(self, block: Block, width: int, console: Console) -> list[Strip]:
        g = self.glyphs
        if block.kind == "system-prompt":
            return self._system_prompt_lines(block, width, console)
        record = block.record
        assert record is not None
        if block.kind == "excluded":
            fate = block.fate
            reason = fate.describe() if fate else "not in context"
            head = f"{g.excluded} {kind_label(record):<9} {record.id}  {reason}: "
            assert self.session is not None
            strips = [
                self._plain(
                    head + excerpt(self.session, record, width), self.style("context--excluded"), width
                )
            ]
            if block.expanded and self.session is not None:
                body, _ = self._wrapped(
                    _entry_text(self.session.entry_dict(record)),
                    self.style("context--excluded"),
                    width,
                    console,
                    None,
                )
                strips.extend(body)
            strips.append(Strip.blank(width))
            return strips
        assert self.session is not None
        message = block.message(self.session)
        role = message.get("role") if isinstance(message, dict) else None
        role_style = self.style(_role_style(role))
        meta = self.style("context--meta")
        # Model names and ids come from the file: made safe like every other piece of text.
        header_bits = [one_line(_role_title(message), width), f" {one_line(js_string(record.id), width)}"]
        fate = block.fate
        if fate is not None and fate.reason is Reason.REPLACED:
            header_bits.append(f"  {g.edit} replaced by edit {one_line(js_string(fate.by), width)}")
        header = Strip([Segment(header_bits[0], role_style), *[Segment(b, meta) for b in header_bits[1:]]])
        strips = [header.crop_extend(0, width, self.rich_style)]
        limit = None if block.expanded else PREVIEW_LINES.get(str(role), DEFAULT_PREVIEW)
        paragraphs = _message_paragraphs(message, block.expanded)
        shown = 0
        hidden = 0
        for style_name, text in paragraphs:
            room = None if limit is None else max(0, limit - shown)
            if room == 0:
                hidden += text.count("\n") + 1
                continue
            body, total = self._wrapped(text, self.style(style_name), width, console, room)
            strips.extend(body)
            shown += len(body)
            hidden += max(0, total - len(body))
        replaced = block.original(self.session)
        if replaced is not None and block.expanded:
            strips.append(self._plain("  original, before the edit:", self.style("context--replaced"), width))
            for _, text in _message_paragraphs(replaced, True):
                body, _ = self._wrapped(text, self.style("context--replaced"), width, console, None)
                strips.extend(body)
        elif replaced is not None:
            original = content_text(replaced.get("content")) if isinstance(replaced, dict) else ""
            strips.append(self._plain(f"  was: {original}", self.style("context--replaced"), width))
        if hidden:
            strips.append(
                self._plain(f"  … {hidden} more line(s): enter to expand", self.style("context--hint"), width)
            )
        strips.append(Strip.blank(width))
        return strips

    def _system_prompt_lines(self, block: Block, width: int, console: Console) -> list[Strip]:
        prompt = block.extra.get("prompt")
        if prompt is None:
            assert self.session is not None
            prompt = block.extra["prompt"] = block.extra["projection"].system_prompt(self.session)
        if prompt.is_empty:
            return [
                self._plain("(no system prompt at this point)", self.style("context--hint"), width),
                Strip.blank(width),
            ]
        role = self.style("context--role-system")
        meta = self.style("context--meta")
        dot = f" {GLYPHS.dot} "
        head = f"system prompt{dot}{len(prompt.sections)} section(s){dot}{len(prompt.tools)} tool(s)"
        if prompt.sources:
            head += f" {GLYPHS.dot} from {', '.join(prompt.sources[-3:])}"
        strips = [Strip([Segment(one_line(head, width * 2), role)]).crop_extend(0, width, self.rich_style)]
        if not block.expanded:
            names = "  sections: " + (
                ", ".join(f"{n} ({human_count(len(t))} ch)" for n, t in prompt.sections.items()) or "none"
            )
            strips.append(self._plain(names, meta, width))
            tools = "  tools: " + (", ".join(str(t.get("name")) for t in prompt.tools) or "none")
            strips.append(self._plain(tools, meta, width))
            strips.append(self._plain("  enter to expand", self.style("context--hint"), width))
        else:
            if prompt.content:
                body, _ = self._wrapped(prompt.content, self.style("context--text"), width, console, None)
                strips.extend(body)
            for name, text in prompt.sections.items():
                source = prompt.section_sources.get(name, "")
                strips.append(self._plain(f"  § {name}  (set by {source})", role, width))
                body, _ = self._wrapped(text, self.style("context--text"), width, console, None)
                strips.extend(body)
            for tool in prompt.tools:
                strips.append(
                    self._plain(
                        f"  tool {js_string(tool.get('name'))}: {js_string(tool.get('description'))}",
                        meta,
                        width,
                    )
                )
        strips.append(Strip.blank(width))
        return strips

    # ------------------------------------------------------------------ keys
    def action_scroll_lines(self, delta: int) -> None:
        self.stick_to_end = False
        self.scroll_to(y=max(0, int(self.scroll_offset.y) + delta), animate=False, immediate=True, force=True)

    def action_to_start(self) -> None:
        self.scroll_to(y=0, animate=False, immediate=True, force=True)
        self._set_current(0)

    def action_to_end(self) -> None:
        self._settle_end()
        self._set_current(len(self.blocks) - 1)

    def action_block(self, step: int) -> None:
        if not self.blocks:
            return
        self._set_current(max(0, min(len(self.blocks) - 1, self.current + step)))
        self._reveal_current()

    def _set_current(self, index: int) -> None:
        if not self.blocks:
            return
        self.current = max(0, min(len(self.blocks) - 1, index))
        self.refresh()

    def _reveal_current(self) -> None:
        top = int(self.scroll_offset.y)
        start, stop = self.offsets[self.current], self.offsets[self.current + 1]
        if start < top or stop > top + self.scrollable_content_region.height:
            self.scroll_to(y=start, animate=False, immediate=True, force=True)

    def action_toggle_block(self) -> None:
        if not self.blocks:
            return
        top = int(self.scroll_offset.y)
        if not (
            self.offsets[self.current] < top + self.scrollable_content_region.height
            and self.offsets[self.current + 1] > top
        ):
            self._set_current(self._block_at(top))
        block = self.blocks[self.current]
        block.expanded = not block.expanded
        block.set_lines(None)
        self._layout_block(self.current, block, self._width())
        self._relayout(self.current)
        self._reveal_current()
        self.refresh()

    async def _on_click(self, event: events.Click) -> None:
        if self.blocks:
            self._set_current(self._block_at(int(self.scroll_offset.y) + event.y))
            if event.chain >= 2:
                self.action_toggle_block()


class ContextView(Vertical):
    """Header plus body; the screen hands it a session and a projection."""

    def __init__(self, glyphs: Glyphs, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.glyphs = glyphs
        self.session: Session | None = None
        self.projection: Projection | None = None
        self.show_excluded = False
        self._blocks: dict[BlockKey, Block] = {}
        self._blocks_for: tuple[int, int] | None = None  # (session, generation) the cache is for

    def compose(self) -> ComposeResult:
        yield PlainStatic("", id="context-title", classes="pane-title")
        with Vertical(id="context-header"):
            yield PlainStatic("", id="context-line1", classes="one-line")
            yield PlainStatic("", id="context-line2", classes="one-line dim")
        yield ContextBody(self.glyphs, id="context-body")

    @property
    def body(self) -> ContextBody:
        return self.query_one(ContextBody)

    def clear(self, text: str) -> None:
        self.session = None
        self.projection = None
        self.query_one("#context-title", Static).update("Context")
        self.query_one("#context-line1", Static).update("")
        self.query_one("#context-line2", Static).update("")
        self.body.show_placeholder(text)

    def show(
        self, session: Session, projection: Projection, *, keep_scroll: bool = False, live_note: str = ""
    ) -> None:
        previous = self.projection
        self.session = session
        self.projection = projection
        self._update_header(live_note)
        if self._blocks_for != (id(session), session.generation):
            self._blocks = {}
            self._blocks_for = (id(session), session.generation)
            previous = None
        if (
            keep_scroll
            and previous is not None
            and projection.grown_from is previous
            and not self.show_excluded
            and not any(r.role == "system" for r in projection.context[len(previous.context) :])
        ):
            # A live context that only grew: blocks for the new messages, the rest stays.
            self.body.set_system_prompt_projection(projection)
            self.body.append_blocks(
                build_blocks(session, projection, False, self._blocks, start=len(previous.context))
            )
            return
        blocks = build_blocks(session, projection, self.show_excluded, self._blocks)
        self.body.set_blocks(session, blocks, at_end=not keep_scroll, keep_scroll=keep_scroll)

    def _update_header(self, live_note: str = "") -> None:
        projection = self.projection
        if projection is None:
            return
        model = projection.model or {}
        model_text = (
            f"{js_string(model.get('provider')) or '?'}/{js_string(model.get('modelId')) or '?'}"
            if model
            else "no model yet"
        )
        totals = projection.path_totals(self.session) if self.session is not None else Totals()
        title = f"Context at {projection.leaf_id}" + (f"  {live_note}" if live_note else "")
        self.query_one("#context-title", Static).update(one_line(title, 200))
        dot = f" {GLYPHS.dot} "
        line1 = dot.join(
            [
                model_text,
                f"thinking {js_string(projection.thinking_level) or 'off'}",
                f"{projection.message_count} messages",
                f"~{human_count(projection.estimated_tokens())} tokens",
                f"${totals.cost:.2f} / {human_count(totals.tokens)} tokens spent on this path",
            ]
        )
        hidden = _why_hidden(projection.excluded)
        line2 = (
            "x: hide what is not in context" if self.show_excluded else "x: show what is not in context"
        ) + (f" ({hidden})" if hidden else "")
        self.query_one("#context-line1", Static).update(one_line(line1, 300))
        self.query_one("#context-line2", Static).update(one_line(line2, 300))

    def toggle_excluded(self) -> None:
        self.show_excluded = not self.show_excluded
        if self.session is not None and self.projection is not None:
            self.show(self.session, self.projection)


WHY_HIDDEN = {
    Reason.SUMMARIZED: "summarized",
    Reason.FOLDED: "folded into a checkpoint",
    Reason.OMITTED: "omitted by edits",
    Reason.SUPERSEDED: "superseded compaction",
    Reason.EMPTY_SUMMARY: "empty summary",
    Reason.UNREADABLE: "unreadable",
}


def _why_hidden(excluded: dict[Reason, int]) -> str:
    return ", ".join(f"{n} {WHY_HIDDEN.get(reason, str(reason))}" for reason, n in excluded.items())


BlockKey = int | tuple[int, int, bool, int]


def build_blocks(
    session: Session,
    projection: Projection,
    show_excluded: bool,
    cache: dict[BlockKey, Block] | None = None,
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
    cache = {} if cache is None else cache
    blocks: list[Block] = []
    if session.system_prompt_entries and not start:
        # Replayed only when drawn: the prompt sits at the top, usually out of view.
        blocks.append(Block("system-prompt", None, extra={"projection": projection}, estimate=5))
    fates: dict[int, Fate] = {}
    pending: list[Fate] = []
    path_index: dict[int, int] = {}
    if show_excluded:
        fates = {id(f.record): f for f in projection.fates}
        path_index = {id(r): i for i, r in enumerate(projection.path)}
        for fate in projection.fates:
            if fate.reason is Reason.SUMMARIZED:
                blocks.append(Block("excluded", fate.record, fate=fate, estimate=2))
            elif not fate.in_context:
                pending.append(fate)
    edits = projection.edits
    append = blocks.append
    get = cache.get
    context, counts = projection.context, projection.counts
    for position in range(start, len(context)):
        record, count = context[position], counts[position]
        if pending:
            where = path_index.get(id(record), -1)
            while pending and path_index[id(pending[0].record)] <= where and record.type != "compaction":
                fate = pending.pop(0)
                append(Block("excluded", fate.record, fate=fate, estimate=2))
        if not count:
            continue
        edit = edits.get(record.id) if edits else None
        if count == 1 and edit is None and position:
            block = get(record.index)  # the common case: one message, unedited
            if block is None:
                block = Block("message", record, fate=fates.get(id(record)), estimate=_estimate(record))
                cache[record.index] = block
            append(block)
            continue
        first = position == 0
        fate = fates.get(id(record)) if show_excluded else None
        if fate is None and edit is not None and edit.replacement_kind != CONTENT_NULL:
            fate = next((f for f in projection.fates if f.record is record), None)
        for k in range(count):
            key = (record.index, k, first, edit.index if edit is not None else -1)
            block = get(key)
            if block is None:
                block = Block(
                    "message",
                    record,
                    fate=fate,
                    first=first,
                    message_index=k,
                    edit=edit,
                    estimate=_estimate(record),
                )
                cache[key] = block
            append(block)
    for fate in pending:
        append(Block("excluded", fate.record, fate=fate, estimate=2))
    return blocks


def _estimate(record: EntryRecord) -> int:
    role = record.role if record.type == "message" else None
    preview = PREVIEW_LINES.get(str(role), DEFAULT_PREVIEW)
    return 2 + min(preview, max(1, record.content_size // 60 if record.content_size else 1))


def _role_style(role: Any) -> str:
    return {
        "user": "context--role-user",
        "assistant": "context--role-assistant",
        "toolResult": "context--role-tool",
        "bashExecution": "context--role-tool",
        "system": "context--role-system",
        "compactionSummary": "context--role-summary",
        "branchSummary": "context--role-summary",
    }.get(str(role), "context--role-other")


def _role_title(raw: Any) -> str:
    message = parse_message(raw)
    dot = f" {GLYPHS.dot} "
    if isinstance(message, ToolResultMessage):
        return f"tool result{dot}{message.toolName or ''}" + (" (error)" if message.isError else "")
    if isinstance(message, CompactionSummaryMessage):
        size = f" of {human_count(message.tokensBefore)} tokens" if message.tokensBefore is not None else ""
        return f"compaction summary{size}"
    if isinstance(message, BranchSummaryMessage):
        return f"branch summary (from {message.fromId})"
    if isinstance(message, CustomRoleMessage):
        hidden = ", hidden in pi" if message.display is False else ""
        return f"extension message{dot}{message.customType or ''}{hidden}"
    if isinstance(message, BashExecutionMessage):
        excluded = f"{dot}not sent (excludeFromContext)" if message.excludeFromContext else ""
        return f"bash{dot}exit {message.exitCode}{excluded}"
    if isinstance(message, AssistantMessage):
        stop = f"{dot}{message.stopReason}" if message.stopReason not in (None, "stop", "toolUse") else ""
        return f"assistant{dot}{message.model}{stop}" if message.model else f"assistant{stop}"
    if isinstance(message, SystemMessage):
        return "system prompt update"
    if isinstance(message, UserMessage):
        return "user"
    if isinstance(message, UnknownMessage) and not isinstance(raw, dict):
        return "(not a message object)"
    return js_string(getattr(message, "role", None)) or "message"


def _message_paragraphs(raw: Any, expanded: bool) -> list[tuple[str, str]]:
    """(style, text) paragraphs of a message, in order."""
    message = parse_message(raw)
    if isinstance(message, CompactionSummaryMessage | BranchSummaryMessage):
        return [("context--text", message.summary)]
    if isinstance(message, BashExecutionMessage):
        return [
            ("context--toolcall", f"$ {message.command}"),
            ("context--text", message.output or "(no output)"),
        ]
    if isinstance(message, SystemMessage):
        out = [("context--text", content_text(message.content))] if content_text(message.content) else []
        for name, value in (message.sections or {}).items():
            out.append(("context--meta", f"§ {name}: " + ("(removed)" if value is None else value)))
        for tools, title in ((message.toolsAdded, "+ tools"), (message.toolsRemoved, "- tools")):
            if tools:
                out.append(
                    ("context--meta", f"{title}: " + ", ".join(js_string(t.get("name")) for t in tools))
                )
        return out or [("context--meta", "(empty)")]
    if isinstance(message, UnknownMessage):
        if not isinstance(raw, dict):
            return [("context--text", js_string(raw))]
        if message.problem:
            return [
                ("context--meta", f"(cannot show: {message.problem})"),
                ("context--text", json.dumps(raw, ensure_ascii=False)),
            ]
    content = getattr(message, "content", None)
    if content is None and isinstance(message, UnknownMessage):
        content = as_content(message.extras().get("content"))
    if isinstance(content, str):
        return [("context--text", content)]
    out = []
    for block in content_blocks(content):
        if isinstance(block, TextBlock):
            out.append(("context--text", block.text))
        elif isinstance(block, ThinkingBlock):
            if block.redacted:
                out.append(("context--thinking", "thinking (redacted)"))
            elif expanded:
                out.append(("context--thinking", "thinking: " + block.thinking))
            else:
                out.append(
                    ("context--thinking", "thinking: " + one_line(block.thinking, 70) + "  (enter to read)")
                )
        elif isinstance(block, ToolCallBlock):
            args = block.arguments
            if expanded:
                shown = json.dumps(args, indent=2, ensure_ascii=False) if not isinstance(args, str) else args
            else:
                shown = one_line(
                    json.dumps(args, ensure_ascii=False) if not isinstance(args, str) else args, 160
                )
            out.append(("context--toolcall", f"{GLYPHS.arrow} {block.name} {shown}"))
        elif isinstance(block, ImageBlock):
            out.append(("context--meta", f"[image {block.mimeType or ''}]"))
        else:
            out.append(("context--meta", f"[{js_string(block.type)} block]"))
    if isinstance(message, ToolResultMessage) and not out:
        out.append(("context--meta", "(empty result)"))
    return out or [("context--meta", "(no content)" if content is None else "(empty)")]


def _entry_text(entry: dict[str, Any]) -> str:
    message = entry.get("message")
    if isinstance(message, dict):
        return "\n".join(text for _, text in _message_paragraphs(message, True))
    for key in ("summary", "content", "name", "label"):
        if key in entry:
            value = entry[key]
            return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=2)
    return json.dumps(entry, ensure_ascii=False, indent=2)
