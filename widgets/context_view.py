"""The context pane: exactly what the model saw at the chosen entry, and why the rest did not.

A title, the header (widgets/context_header.py: model, thinking level, messages, pi's context
size against the model's window, tokens and cost on the path, the context over time) and the
body: one block per projected message, the replayed system prompt first
(widgets/context_blocks.py), laid out by a virtual scroller (widgets/blockscroll.py) from the
paragraphs widgets/message_text.py makes. With the excluded entries shown (`x`),
entries that are not in context appear in place, dimmed, with the reason: summarized by a
compaction, omitted or replaced by a context edit, or a system prompt folded into a
compaction's checkpoint. The screen hands the pane a session and a projection (core/live/context_change.py
decides which after a change, and which of the blocks shown stay); the pane applies them.
"""

from __future__ import annotations

from rich.console import Console
from rich.style import Style
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.strip import Strip

from ..core.common.glyphs import Glyphs
from ..core.common.problems import SessionError, StaleFileError
from ..core.common.text import one_line, redacted
from ..core.live.context_change import ContextAction, ContextChange, kept_blocks
from ..core.projection.context import Projection
from ..core.projection.gauge import context_gauge
from ..core.projection.window import ContextGauge
from ..core.session.session import Session
from . import plain
from .blockscroll import BlockScroll
from .context_blocks import Block, BlockCache, BlockKind, BlockText, block_text, build_blocks
from .context_header import ContextHeader
from .glyphs import glyphs_of
from .keys import bindings
from .message_text import Paragraph, Tone
from .plain import FitStatic, PlainStatic

MAX_RENDER_CHARS = 200_000  # an expanded block shows at most this much text (the rest: raw JSON)


class ContextBody(BlockScroll[Block]):
    """The blocks of one projection, each laid out from its `BlockText`."""

    COMPONENT_CLASSES = {tone.value for tone in Tone} | {"context--current"}
    CURRENT_CLASS = "context--current"
    PLACEHOLDER_CLASS = Tone.HINT.value

    BINDINGS = bindings("context")

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session: Session | None = None

    def show_blocks(
        self, session: Session, blocks: list[Block], *, at_end: bool, keep_scroll: bool = False, keep: int = 0
    ) -> None:
        self.session = session
        self.set_blocks(blocks, at_end=at_end, keep_scroll=keep_scroll, keep=keep)

    def set_system_prompt_projection(self, projection: Projection) -> None:
        """The prompt block replays from this projection from now on (the same prompt)."""
        if self.blocks and self.blocks[0].kind is BlockKind.SYSTEM_PROMPT:
            self.blocks[0].projection = projection

    def current_entry(self) -> str | None:
        """The entry of the block the user is on (None: the prompt, or nothing shown)."""
        if 0 <= self.current < len(self.blocks):
            return self.blocks[self.current].entry_id
        return None

    # ------------------------------------------------------------------ laying a block out
    def style(self, tone: Tone) -> Style:
        return self.get_component_rich_style(tone.value, partial=True)

    def layout_block(self, block: Block, width: int) -> list[Strip]:
        glyphs = glyphs_of(self)
        session = self.session
        try:
            if session is None:
                return [Strip.blank(width)]
            return self._lines(block_text(block, session, width, glyphs), width, self.app.console, glyphs)
        except (StaleFileError, OSError, ValueError) as e:
            error = f"(cannot read this entry back: {e})"
            return [plain.row(error, self.style(Tone.EXCLUDED), width, glyphs=glyphs)]

    def _lines(self, text: BlockText, width: int, console: Console, glyphs: Glyphs) -> list[Strip]:
        strips: list[Strip] = []
        if text.head:
            pieces = [(piece, self.style(tone)) for piece, tone in text.head]
            strips.append(plain.fitted_line(pieces, width, self.rich_style, glyphs=glyphs))
        limit = text.limit
        shown = hidden = 0
        for paragraph in text.paragraphs:
            room = None if limit is None else max(0, limit - shown)
            if room == 0:
                hidden += paragraph.text.count("\n") + 1
                continue
            body, total = self._paragraph(paragraph, width, console, room, glyphs)
            strips.extend(body)
            shown += len(body)
            hidden += max(0, total - len(body))
        for paragraph in text.after:
            strips.extend(self._paragraph(paragraph, width, console, None, glyphs)[0])
        if hidden:
            hint = f"  {glyphs.ellipsis} {hidden} more line(s): enter to expand"
            strips.append(plain.row(hint, self.style(Tone.HINT), width, glyphs=glyphs))
        strips.append(Strip.blank(width))
        return strips

    def _paragraph(
        self, paragraph: Paragraph, width: int, console: Console, limit: int | None, glyphs: Glyphs
    ) -> tuple[list[Strip], int]:
        """The lines of one paragraph (at most `limit`) and how many it has in all."""
        style = self.style(paragraph.tone)
        if not paragraph.wrap:
            return [plain.row(paragraph.text, style, width, glyphs=glyphs)], 1
        text = redacted(paragraph.text)  # (before it is cut: a key cut in two is still one)
        # Only what can be shown is laid out: a 1 MB tool output collapses cheaply.
        head = text[: (limit + 2) * max(width, 20) * 2] if limit is not None else text[:MAX_RENDER_CHARS]
        rendered = plain.wrapped(head, style, width, console, glyphs=glyphs)
        total = (
            len(rendered)
            if (limit is None or len(head) == len(text))
            else max(len(rendered), text.count("\n") + 1)
        )
        if limit is not None:
            rendered = rendered[:limit]
        return rendered, total


class ContextView(Vertical):
    """Title, header and body; the screen hands it a session and a projection."""

    def __init__(self, *, id: str | None = None, agent_dir: str | None = None) -> None:
        super().__init__(id=id)
        self.session: Session | None = None
        self.projection: Projection | None = None
        self.show_excluded = False
        self.agent_dir = agent_dir  # pi's agent folder (models.json, settings); None: pi's default
        self._blocks = BlockCache()
        self._blocks_for: tuple[int, int] | None = None  # (session, generation) the cache is for
        self._blocks_of: Projection | None = None  # the projection the body's blocks were made for
        self._blocks_excluded = False  # ... with the entries out of context among them

    def compose(self) -> ComposeResult:
        yield FitStatic("", id="context-title", classes="pane-title")
        yield ContextHeader(id="context-header")
        yield ContextBody(id="context-body")

    @property
    def body(self) -> ContextBody:
        return self.query_one(ContextBody)

    @property
    def header(self) -> ContextHeader:
        return self.query_one(ContextHeader)

    def focus_target(self) -> ContextBody:
        return self.body

    def clear(self, text: str) -> None:
        self.session = None
        self.projection = None
        self._blocks_of = None
        self.query_one("#context-title", PlainStatic).update("Context")
        self.header.clear()
        self.body.show_placeholder(text)

    def show(
        self, session: Session, projection: Projection, *, keep_scroll: bool = False, live_note: str = ""
    ) -> None:
        shown = self.projection if self.session is session and self._blocks_of is self.projection else None
        self.session = session
        self.projection = projection
        self._update_header(live_note)
        current = self._blocks_current(session)
        kept = None
        if current and shown is not None:
            blocks = self.body.blocks
            kept = kept_blocks(
                session,
                shown,
                projection,
                blocks=len(blocks),
                prompt_on_top=bool(blocks) and blocks[0].kind is BlockKind.SYSTEM_PROMPT,
                excluded=self.show_excluded or self._blocks_excluded,
            )
        if kept is not None:
            # A move along the conversation: the blocks of the context both share stay.
            keep, start = kept.keep, kept.start
            self.body.set_system_prompt_projection(projection)
            blocks = build_blocks(session, projection, False, self._blocks, start=start)
            self.body.show_blocks(session, blocks, at_end=not keep_scroll, keep_scroll=keep_scroll, keep=keep)
        else:
            blocks = build_blocks(session, projection, self.show_excluded, self._blocks)
            self.body.show_blocks(session, blocks, at_end=not keep_scroll, keep_scroll=keep_scroll)
        self._blocks_of = projection
        self._blocks_excluded = self.show_excluded

    def extend(self, session: Session, projection: Projection, start: int, *, live_note: str = "") -> None:
        """`projection` is the shown one grown by its context entries from `start` on (core
        decided so: core/live/context_change.py): blocks for those go below, the rest stays as it is."""
        if not self._blocks_current(session):
            self.show(session, projection, keep_scroll=True, live_note=live_note)
            return
        self.session = session
        self.projection = projection
        self._update_header(live_note)
        self.body.set_system_prompt_projection(projection)
        self.body.append_blocks(build_blocks(session, projection, False, self._blocks, start=start))
        self._blocks_of = projection

    def apply(self, session: Session, change: ContextChange) -> None:
        """A live change of the open session, as core/live/context_change.py decided it."""
        if change.action is ContextAction.KEEP:
            return
        if change.action is ContextAction.CLEAR or change.projection is None:
            self.clear(change.text)
            return
        note = "(live)" if change.live else ""
        if change.action is ContextAction.EXTEND:
            self.extend(session, change.projection, change.start, live_note=note)
        else:
            self.show(session, change.projection, keep_scroll=change.keep_scroll, live_note=note)

    @property
    def leaf(self) -> str | None:
        """The entry whose context is shown (None: nothing is)."""
        return self.projection.leaf_id if self.projection is not None else None

    def _blocks_current(self, session: Session) -> bool:
        """Blocks are kept per reading of a session: False (and none kept) for another one."""
        if self._blocks_for == (id(session), session.generation):
            return True
        self._blocks = BlockCache()
        self._blocks_for = (id(session), session.generation)
        return False

    def _update_header(self, live_note: str = "") -> None:
        projection, session = self.projection, self.session
        if projection is None or session is None:
            return
        title = f"Context at {projection.leaf_id}" + (f"  {live_note}" if live_note else "")
        self.query_one("#context-title", PlainStatic).update(one_line(title, 200, glyphs=glyphs_of(self)))
        totals = projection.path_totals(session)
        gauge: ContextGauge | None = None
        problem = ""
        try:
            gauge = context_gauge(session, projection, agent=self.agent_dir)
        except (SessionError, OSError, ValueError) as e:
            problem = str(e)
        self.header.show(
            session, projection, totals, gauge, show_excluded=self.show_excluded, problem=problem
        )

    def toggle_excluded(self) -> None:
        self.show_excluded = not self.show_excluded
        if self.session is not None and self.projection is not None:
            self.show(self.session, self.projection)
