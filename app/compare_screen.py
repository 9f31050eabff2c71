"""The comparison view: the marked entry (A) and the selected one (B) side by side, as
core/projection/compare.py compares them, with jumps to the split point, to either leaf and to every
entry it lists. Dismissed with the entry to go to (None: stay where the tree is).

The comparison (two projections and their rows: over a second at 100,000 entries) is made in
a worker thread, which reads the session and never changes it; the view shows "comparing…"
meanwhile. A comparison overtaken by a new reading of the session is made again (a few times
at most); the answer of an older run, or one that comes after the view closed, is dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.worker import Worker, WorkerState, get_current_worker

from ..core.common.problems import SessionError
from ..core.common.text import one_line
from ..core.projection.compare import Comparison, compare
from ..core.session.session import Session
from ..widgets.compare_view import CompareList, CompareRow, comparison_rows
from ..widgets.glyphs import glyphs_of
from ..widgets.keys import bindings
from ..widgets.plain import FitStatic, PlainStatic
from ..widgets.rowlist import RowList
from .keymap import hint
from .screens import live_keys

COMPARE_TRIES = 3  # a comparison overtaken by a change of the session: this many in all


@dataclass(frozen=True, slots=True)
class Compared:
    """What a comparison run gave: the comparison and its rows, or why there is none."""

    run: int
    version: tuple[int, int, int]  # the session's reading the run started on
    comparison: Comparison | None
    rows: list[CompareRow]
    error: str | None = None


def session_version(session: Session) -> tuple[int, int, int]:
    """Changes whenever the session is read again, its tree rebuilt or an entry appended."""
    return session.generation, session.tree_version, len(session.records)


class CompareScreen(ModalScreen[str | None]):
    BINDINGS = bindings("compare")

    def __init__(self, session: Session, leaf_a: str, leaf_b: str) -> None:
        super().__init__()
        self.session = session
        self.leaf_a = leaf_a
        self.leaf_b = leaf_b
        self.comparison: Comparison | None = None  # set when the worker's comparison is shown
        self.runs = 0  # comparison runs started; only the latest one's answer is shown

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
        self._start()

    # ------------------------------------------------------------------ comparing
    def _start(self) -> None:
        self.runs += 1
        self._compare(self.runs)

    @work(thread=True, exclusive=True, group="compare", exit_on_error=False)
    def _compare(self, run: int) -> None:
        session = self.session
        version = session_version(session)
        try:
            comparison = compare(session, self.leaf_a, self.leaf_b)
            outcome = Compared(run, version, comparison, comparison_rows(comparison))
        except (SessionError, OSError, ValueError) as e:
            outcome = Compared(run, version, None, [], f"cannot compare these two entries: {e}")
        except (KeyError, IndexError, RuntimeError) as e:  # the loop changed the session meanwhile
            outcome = Compared(run, (-1, -1, -1), None, [], f"cannot compare these two entries: {e}")
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._compared, outcome)

    def _compared(self, outcome: Compared) -> None:
        if not self.is_attached or outcome.run != self.runs:
            return  # closed meanwhile, or an older run's answer
        if outcome.version != session_version(self.session) and self.runs < COMPARE_TRIES:
            self._start()  # the session was read again meanwhile: what was compared may be stale
            return
        if outcome.comparison is None:
            self.rows.show_note(outcome.error or "cannot compare these two entries")
            return
        self.comparison = outcome.comparison
        self.rows.show(self.session, outcome.comparison, outcome.rows)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR and self.is_attached:
            self.rows.show_note(f"cannot compare these two entries: {event.worker.error}")

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
