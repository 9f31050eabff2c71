"""The text boundary's log and text area (widgets/plain.py's rules): widgets that only
screens opened on demand show, kept apart so the first screen does not import them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual.widgets import Log, TextArea

from ..core.common.text import inline, visible
from .glyphs import glyphs_of


class PlainLog(Log):
    """A log of lines shown as they are (controls as placeholders, one line each)."""

    def write(self, data: str, scroll_end: bool | None = None) -> PlainLog:
        super().write(visible(data, glyphs=glyphs_of(self)), scroll_end)
        return self

    def write_lines(self, lines: Iterable[str], scroll_end: bool | None = None) -> PlainLog:
        glyphs = glyphs_of(self)
        super().write_lines([inline(item, glyphs=glyphs) for item in lines], scroll_end)
        return self


class PlainTextArea(TextArea):
    """Read-only text to select by hand, with controls shown as placeholders: what is
    selected is what is seen."""

    def __init__(self, text: str, **kwargs: Any) -> None:
        super().__init__("", read_only=True, soft_wrap=True, **kwargs)
        self.load_text(visible(text, glyphs=glyphs_of(self)))
