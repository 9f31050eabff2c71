"""What the terminal would show: a text copy of every frame Textual paints, with its time.

`ScreenMirror.install()` wraps `App._display`, the one place a composited update goes to the
terminal (the headless driver drops it there). Each call is stamped with `time.monotonic()` (one
clock for every process on Linux, so a parent can compare it with its own) and kept as is; the
text grid is brought up to date only when a measurement asks, so the app pays one append per
frame. Styles are ignored: a blinking cursor or a moved highlight is not a change of text.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.cells import get_character_cell_size
from rich.segment import ControlType


@dataclass(frozen=True)
class Box:
    """A rectangle of the screen (a widget's region)."""

    x: int
    y: int
    width: int
    height: int


Area = Box | tuple[Box, ...] | None


@dataclass(frozen=True)
class Frame:
    when: float  # time.monotonic() when Textual handed the frame to the driver
    lines: tuple[str, ...]  # the whole screen's text after it

    def text(self, box: Area = None) -> str:
        """The text of the whole screen, of one box or of several (one after the other)."""
        if box is None:
            return "\n".join(self.lines)
        if isinstance(box, tuple):
            return "\n".join(self.text(one) for one in box)
        rows = self.lines[box.y : box.y + box.height]
        return "\n".join(row[box.x : box.x + box.width] for row in rows)


class ScreenMirror:
    """Every frame painted so far, decoded on demand into `frames`."""

    current: ScreenMirror | None = None

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self._grid = [[" "] * width for _ in range(height)]
        self._pending: list[tuple[float, Any]] = []
        self.frames: list[Frame] = []

    @classmethod
    def install(cls, width: int, height: int) -> ScreenMirror:
        """Mirror every app started from now on in this process (one screen size)."""
        from textual.app import App

        mirror = cls(width, height)
        cls.current = mirror
        original = App._display

        def display(app: Any, screen: Any, renderable: Any) -> None:
            if renderable is not None and not app._batch_count:
                mirror._pending.append((time.monotonic(), renderable))
            original(app, screen, renderable)

        App._display = display  # type: ignore[method-assign,assignment]  # (a private Textual hook, wrapped to mirror frames)
        return mirror

    def catch_up(self) -> list[Frame]:
        """Decode the frames painted since the last call; returns them."""
        from textual._compositor import CompositorUpdate

        pending, self._pending = self._pending, []
        fresh = []
        for when, update in pending:
            if isinstance(update, CompositorUpdate):
                self._apply(update)
                frame = Frame(when, tuple("".join(row) for row in self._grid))
                self.frames.append(frame)
                fresh.append(frame)
        return fresh

    def _apply(self, update: Any) -> None:
        x = y = 0
        grid, width, height = self._grid, self.width, self.height
        for segment in update.__rich_console__(None, None):
            if segment.control:
                for code in segment.control:
                    if code[0] == ControlType.CURSOR_MOVE_TO:
                        x, y = code[1], code[2]
                continue
            text = segment.text
            if not text or text == "\n" or not 0 <= y < height:
                continue
            row = grid[y]
            if text.isascii():
                end = min(x + len(text), width)
                if x < end:
                    row[x:end] = text[: end - x]
                x += len(text)
                continue
            for char in text:
                size = get_character_cell_size(char)
                if 0 <= x < width and size:
                    row[x] = char
                    if size == 2 and x + 1 < width:
                        row[x + 1] = ""
                x += size

    def matches_app(self, app: Any) -> bool:
        """Whether the mirrored screen is what the app would paint from scratch now (a check
        of the mirror itself, made when the screen is idle)."""
        fresh = ScreenMirror(self.width, self.height)
        fresh._apply(app.screen._compositor.render_full_update())
        last = self.last()
        return last is not None and list(last.lines) == ["".join(row) for row in fresh._grid]

    def last(self) -> Frame | None:
        self.catch_up()
        return self.frames[-1] if self.frames else None

    async def wait_for(
        self, condition: Callable[[Frame], bool], *, since: float = 0.0, limit: float = 120.0
    ) -> Frame:
        """The first frame painted at or after `since` for which `condition` holds."""
        import asyncio

        deadline = time.monotonic() + limit
        checked = 0
        while True:
            self.catch_up()
            for frame in self.frames[checked:]:
                if frame.when >= since and condition(frame):
                    return frame
            checked = len(self.frames)
            if time.monotonic() > deadline:
                raise TimeoutError("the screen never showed what was waited for")
            await asyncio.sleep(0.002)

    async def settle(self, box: Area, *, since: float, quiet: float, limit: float = 120.0) -> Frame:
        """Wait until the text in `box` has not changed for `quiet` seconds; then the first
        frame painted since `since` that already showed that final text (what the user waited
        for, even when intermediate frames showed something else in between)."""
        import asyncio

        deadline = time.monotonic() + limit
        last_change = time.monotonic()
        final = self.last()
        final_text = final.text(box) if final else ""
        while time.monotonic() - last_change < quiet:
            if time.monotonic() > deadline:
                raise TimeoutError("the screen never settled")
            await asyncio.sleep(0.01)
            for frame in self.catch_up():
                text = frame.text(box)
                if text != final_text:
                    final_text = text
                    last_change = time.monotonic()
        after = [f for f in self.frames if f.when >= since]
        if not after:
            raise TimeoutError("nothing was painted after the key")
        # The frame after the last one that still showed something else.
        first = 0
        for index, frame in enumerate(after):
            if frame.text(box) != final_text:
                first = index + 1
        return after[first]
