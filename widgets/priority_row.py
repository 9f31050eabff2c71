"""One line of fields that stays readable at any width: the most detailed layout that fits.

A layout gives each field its text ("" hides the field); layouts come most detailed first, and
the row shows the first one that fits its width, so the figures that matter shorten or drop the
words around them instead of being cut off the end. When even the last layout is too wide its
last field is cut at a word boundary (each field is a FitStatic, widgets/plain.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal

from ..core.common.text import one_line
from .glyphs import glyphs_of
from .plain import FitStatic

Layout = tuple[str, ...]


class PriorityRow(Horizontal):
    DEFAULT_CSS = """
    PriorityRow { height: 1; width: 1fr; }
    PriorityRow > FitStatic { height: 1; }
    """

    def __init__(self, *fields: FitStatic, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.fields = fields
        self.layouts: list[Layout] = [tuple("" for _ in fields)]
        self.shown: Layout = self.layouts[0]  # the layout on screen now

    def compose(self) -> ComposeResult:
        yield from self.fields

    def set_layouts(self, layouts: Sequence[Sequence[str]]) -> None:
        """The layouts, most detailed first, one text per field each."""
        self.layouts = [tuple(layout) for layout in layouts] or [tuple("" for _ in self.fields)]
        self.fit()

    def on_resize(self, event: events.Resize) -> None:
        self.fit()

    def width_of(self, layout: Layout) -> int:
        """Cells the layout takes: each shown field's text and margins."""
        glyphs = glyphs_of(self)
        total = 0
        for field, text in zip(self.fields, layout, strict=True):
            if text:
                margin = field.styles.margin
                total += cell_len(one_line(text, 2000, glyphs=glyphs)) + margin.left + margin.right
        return total

    def fit(self) -> None:
        room = self.content_region.width or self.size.width
        chosen = self.layouts[-1]
        if room > 0:
            chosen = next((layout for layout in self.layouts if self.width_of(layout) <= room), chosen)
        self.shown = chosen
        glyphs = glyphs_of(self)
        last = max((i for i, text in enumerate(chosen) if text), default=-1)
        for index, (field, text) in enumerate(zip(self.fields, chosen, strict=True)):
            if field.display != bool(text):
                field.display = bool(text)
            # Each field's width is set here, so new text alone never needs a new layout.
            field.update(text, layout=False)
            # The last field takes what is left and, when that is too little, is cut there.
            field.styles.width = "1fr" if index == last else cell_len(one_line(text, 2000, glyphs=glyphs))
