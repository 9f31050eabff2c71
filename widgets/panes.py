"""Panes side by side, as many as fit: all of them when wide, the active one and the next when
narrower (the last with the one before it), only the active one when narrow; focus moves
between them in order.

The screen yields its panes inside `Panes(names)`, one child per name, in order. A pane that
wants focus somewhere inside it (a list under a title) says where with `focus_target()`.
`active` is the pane that has (or last had) the focus.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from textual import events
from textual.containers import Horizontal
from textual.widget import Widget

WIDE = 110  # from this many columns, every pane
NARROW = 70  # below this, one pane at a time


@runtime_checkable
class FocusTarget(Protocol):
    def focus_target(self) -> Widget: ...


class Panes(Horizontal):
    def __init__(self, names: Sequence[str], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.names = tuple(names)
        self.active = self.names[0]

    def pane(self, name: str) -> Widget:
        return self.children[self.names.index(name)]

    def on_mount(self) -> None:
        self.layout_for(self.screen.size.width)

    def on_resize(self, event: events.Resize) -> None:
        self.layout_for(event.size.width)

    def layout_for(self, width: int) -> None:
        """Every pane when wide; else the active pane and a neighbour (or only it)."""
        if width >= WIDE:
            shown = set(self.names)
        elif width >= NARROW:
            # The active pane and the next one; the last pane with the one before it.
            index = min(self.names.index(self.active), len(self.names) - 2)
            shown = set(self.names[max(0, index) : index + 2])
        else:
            shown = {self.active}
        for name in self.names:
            self.pane(name).display = name in shown
        self.set_class(width < WIDE, "-narrow")

    def focus_pane(self, name: str) -> None:
        self._activate(name)
        pane = self.pane(name)
        (pane.focus_target() if isinstance(pane, FocusTarget) else pane).focus()

    def next_pane(self, step: int = 1) -> None:
        self.focus_pane(self.names[(self.names.index(self.active) + step) % len(self.names)])

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        widget = event.widget
        for name in self.names:
            pane = self.pane(name)
            if widget is pane or pane in widget.ancestors:
                self._activate(name)
                return

    def _activate(self, name: str) -> None:
        if name != self.active:
            self.active = name
            self.layout_for(self.size.width or self.screen.size.width)
