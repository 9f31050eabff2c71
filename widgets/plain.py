"""A Static for text that comes from session files or from the keyboard."""

from __future__ import annotations

from typing import Any

from textual.visual import VisualType
from textual.widgets import Static


class PlainStatic(Static):
    """Shows its text as it is: `[/x]` in a session name is text, not markup (which would
    also raise on an unmatched tag)."""

    def __init__(self, content: VisualType = "", **kwargs: Any) -> None:
        super().__init__(content, markup=False, **kwargs)
