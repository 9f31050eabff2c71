"""The comparison view: the marked entry (A) and the selected one (B) side by side, as
core/compare.py compares them, with jumps to the split point, to either leaf and to every
entry it lists. Dismissed with the entry to go to (None: stay where the tree is).
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen

from ..core.compare import Comparison, compare
from ..core.problems import SessionError
from ..core.session import Session
from ..core.text import one_line
from ..widgets.compare_view import CompareList
from ..widgets.glyphs import glyphs_of
from ..widgets.keys import bindings
from ..widgets.plain import FitStatic, PlainStatic
from ..widgets.rowlist import RowList
from .keymap import hint
from .screens import live_keys


class CompareScreen(ModalScreen[str | None]):
    BINDINGS = bindings("compare")

    def __init__(self, session: Session, leaf_a: str, leaf_b: str) -> None:
        super().__init__()
        self.session = session
        self.leaf_a = leaf_a
        self.leaf_b = leaf_b
        self.comparison: Comparison | None = None

    def compose(self) -> ComposeResult:
        glyphs = glyphs_of(self)
        a, b = (one_line(leaf, 40, glyphs=glyphs) for leaf in (self.leaf_a, self.leaf_b))
        with Vertical(id="compare-box", classes="dialog"):
            yield FitStatic(
                f"Compare A {a} (marked) with B {b} (selected)", id="compare-title", classes="dialog-title"
            )
            yield CompareList(id="compare-list")
            yield PlainStatic(
                "enter: go to the entry    "
                + hint(
                    live_keys(self),
                    [
                        ("compare.split", "the split point"),
                        ("compare.leafA", "leaf A"),
                        ("compare.leafB", "leaf B"),
                        ("compare.close", "close"),
                    ],
                ),
                classes="dialog-hint",
            )

    @property
    def rows(self) -> CompareList:
        return self.query_one(CompareList)

    def on_mount(self) -> None:
        self.rows.show_note(f"comparing{glyphs_of(self).ellipsis}")
        self.rows.focus()
        # Comparing walks the open session, which only the event loop changes: it runs on the
        # loop, once the note is drawn (two projections; a fraction of a second at 100k entries).
        self.call_after_refresh(self._compare)

    def _compare(self) -> None:
        if not self.is_attached:
            return  # closed before the note was drawn
        try:
            comparison = compare(self.session, self.leaf_a, self.leaf_b)
        except (SessionError, OSError, ValueError) as e:
            self.rows.show_note(f"cannot compare these two entries: {e}")
            return
        self.comparison = comparison
        self.rows.show(self.session, comparison)

    # ------------------------------------------------------------------ jumps
    def action_jump(self, target: str) -> None:
        comparison = self.comparison
        if comparison is None:
            return
        if target == "split":
            if comparison.split is None:
                self.notify("no split point: the two leaves have different roots", timeout=3)
                return
            self.dismiss(comparison.split.id)
        else:
            self.dismiss((comparison.a if target == "a" else comparison.b).leaf.id)

    @on(RowList.Activated, "#compare-list")
    def _activated(self, event: RowList.Activated) -> None:
        event.stop()
        entry = self.rows.entry_at(event.index)
        if entry is not None:
            self.dismiss(entry)

    def action_close(self) -> None:
        self.dismiss(None)
