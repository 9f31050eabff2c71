"""The context over time: one line of bars, the context size each reply reported along the path,
with a mark where a compaction was (core/projection/timeline.py), a mark before each reply that
lost the prompt cache (core/projection/cache_breaks.py), and the peak.

The timeline of a path, then its cache breaks, are read a piece at a time (`timeline_steps`,
`break_steps`): a long path that was not
read yet goes on in a worker on the event loop, one piece per turn, and the line fills in when
it is done; a move along the same branch costs only the difference.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator, Sequence

from rich.style import Style
from textual.strip import Strip
from textual.widget import Widget
from textual.worker import Worker

from ..core.common.glyphs import ASCII, Glyphs
from ..core.common.problems import SessionError
from ..core.projection.cache_breaks import break_steps, break_turns
from ..core.projection.timeline import (
    ASCII_BREAK_MARK,
    ASCII_MARK,
    BREAK_MARK,
    MARK,
    ContextTimeline,
    sparkline,
    timeline_steps,
)
from ..core.projection.window import format_tokens
from ..core.reading.records import EntryRecord
from ..core.session.session import Session
from . import plain
from .glyphs import glyphs_of
from .worker_failures import tell_failure

CAPTION = "over time "
STEP = 4000  # path entries read per turn of the event loop (about 10 ms of replies, read in runs)
MIN_BARS = 4  # fewer cells than this for the bars: the caption goes first, then the peak


Steps = Iterator[tuple[ContextTimeline, tuple[int, ...]] | None]
# Splits the bars into runs of bars and each mark alone.
_ASCII_MARKS = re.compile(f"([{re.escape(ASCII_MARK + ASCII_BREAK_MARK)}])")
_MARKS = re.compile(f"([{re.escape(MARK + BREAK_MARK)}])")


def sparkline_pieces(
    timeline: ContextTimeline | None, width: int, glyphs: Glyphs, note: str, breaks: Sequence[int] = ()
) -> list[str]:
    """(caption, bars, tail) for `width` cells; `note` when there is no timeline (yet);
    `breaks`: the timeline's replies that lost the prompt cache."""
    if timeline is None and not note:
        return ["", "", ""]  # nothing open: no line at all (not an empty "over time ()")
    if timeline is None or not timeline.tokens:
        text = note if timeline is None else "no reply on this path reported its context size"
        return [CAPTION, "", f"({text})"]
    values = timeline.tokens
    tail = f" peak {format_tokens(max(values))}"
    wanted = len(values) + len(timeline.compactions) + len(breaks)
    caption = CAPTION
    if width - len(caption) - len(tail) < min(MIN_BARS, wanted):
        caption = ""
    if width - len(caption) - len(tail) < min(MIN_BARS, wanted):
        tail = ""
    room = max(width - len(caption) - len(tail), 0)
    marks = [mark.turn for mark in timeline.compactions]
    bars = sparkline(values, room, ascii=glyphs == ASCII, marks=marks, breaks=breaks)
    return [caption, bars, tail]


class ContextSparkline(Widget):
    COMPONENT_CLASSES = {"sparkline--bars", "sparkline--mark", "sparkline--break", "sparkline--caption"}
    DEFAULT_CSS = """
    ContextSparkline { height: 1; }
    ContextSparkline > .sparkline--caption { color: $text-muted; }
    ContextSparkline > .sparkline--bars { color: $secondary; }
    ContextSparkline > .sparkline--mark { color: $accent; text-style: bold; }
    ContextSparkline > .sparkline--break { color: $warning; text-style: bold; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.timeline: ContextTimeline | None = None
        self.breaks: tuple[int, ...] = ()  # the timeline's replies that lost the prompt cache
        self.pending = False  # a long path is still being read
        self.note = ""
        self._worker: Worker[None] | None = None
        self._drawn: tuple[object, ...] = ()  # (timeline, note, width, glyphs, breaks, pieces) last drawn
        self._styles: dict[str, Style] = {}  # by component class ("": the widget's own)

    def clear(self) -> None:
        self._stop()
        self.timeline, self.note, self.breaks = None, "", ()
        self.refresh()

    def show(self, session: Session, path: Sequence[EntryRecord]) -> None:
        """The timeline of `path`: at once when it is short or mostly read already, else soon."""
        self._stop()
        steps = self._steps(session, path)
        if not self._advance(steps):
            self.pending = True
            self.note = "reading the replies..."
            self._worker = self.run_worker(
                self._read_rest(steps), group="sparkline", exclusive=True, exit_on_error=False
            )
        self.refresh()

    @staticmethod
    def _steps(session: Session, path: Sequence[EntryRecord]) -> Steps:
        """The timeline, then where the cache broke: None while a piece is read."""
        timeline = None
        for timeline in timeline_steps(session, path, STEP):
            if timeline is None:
                yield None
        breaks = None
        for breaks in break_steps(session, path, STEP):
            if breaks is None:
                yield None
        if timeline is not None:
            yield timeline, break_turns(timeline, breaks or ())

    def _advance(self, steps: Steps) -> bool:
        """One step; True when the timeline is done (or could not be read)."""
        try:
            done = next(steps)
        except StopIteration:
            return True
        except (SessionError, OSError, ValueError) as e:
            self.timeline, self.note, self.pending = None, f"cannot read the replies: {e}", False
            self.breaks = ()
            return True
        if done is None:
            return False
        (self.timeline, self.breaks), self.note, self.pending = done, "", False
        return True

    async def _read_rest(self, steps: Steps) -> None:
        # A piece of the path per turn of the event loop: keys and frames go in between.
        await asyncio.sleep(0)
        while not self._advance(steps):
            await asyncio.sleep(0)
        self.refresh()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if tell_failure(self, event, "Reading the replies for the sparkline"):
            self.timeline, self.pending = None, False
            self.note = f"cannot read the replies: {event.worker.error}"
            self.refresh()

    def _stop(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            self._worker = None
        self.pending = False

    def pieces(self, width: int, glyphs: Glyphs) -> list[str]:
        """(caption, bars, tail) at `width`, remembered until the timeline or the width changes
        (a long path has tens of thousands of replies to bucket)."""
        drawn = self._drawn
        key = (self.note, width, glyphs, self.breaks)
        if not (drawn and drawn[0] is self.timeline and drawn[1:5] == key):
            self._drawn = (self.timeline, self.note, width, glyphs, self.breaks)
            self._drawn += (sparkline_pieces(self.timeline, width, glyphs, self.note, self.breaks),)
        pieces: list[str] = self._drawn[5]  # type: ignore[assignment]
        return pieces

    def text(self) -> str:
        return "".join(self.pieces(self.size.width, glyphs_of(self)))

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if y != 0 or width <= 0:
            return plain.blank(width, self.rich_style)
        base = self._styles.get("")
        if base is None:
            base = self._styles[""] = self.rich_style
        glyphs = glyphs_of(self)
        caption, bars, tail = self.pieces(width, glyphs)
        dim, bar_style = self._style("sparkline--caption"), self._style("sparkline--bars")
        mark, styles = ASCII_MARK if glyphs == ASCII else MARK, {}
        styles[mark] = self._style("sparkline--mark")
        styles[ASCII_BREAK_MARK if glyphs == ASCII else BREAK_MARK] = self._style("sparkline--break")
        pieces: list[tuple[str, Style | None]] = [(caption, dim)]
        for part in (_ASCII_MARKS if glyphs == ASCII else _MARKS).split(bars):
            if part:
                pieces.append((part, styles.get(part, bar_style)))
        pieces.append((tail, dim))
        return plain.line(pieces, glyphs=glyphs).crop_extend(0, width, base)

    def _style(self, name: str) -> Style:
        """The style of a part (worked out once until the styles change: `rich_style` walks
        every ancestor)."""
        style = self._styles.get(name)
        if style is None:
            style = self._styles[name] = self.rich_style + self.get_component_rich_style(name, partial=True)
        return style

    def notify_style_update(self) -> None:
        self._styles = {}
        super().notify_style_update()
