"""A worker of a widget or a view that fails says so: one line in a notification, never silence.

Textual hands `Worker.StateChanged` to the node that runs the worker only (it does not bubble):
a node without a handler of its own lets a failing worker end unseen. Such a node's handler
calls `tell_failure`.
"""

from __future__ import annotations

from textual.widget import Widget
from textual.worker import Worker, WorkerState

from ..core.common.text import one_line
from .glyphs import glyphs_of


def tell_failure(node: Widget, event: Worker.StateChanged, what: str) -> bool:
    """Notify "`what` failed: the error" when `event` says a worker of `node` failed; True then."""
    if event.state is not WorkerState.ERROR:
        return False
    error = event.worker.error
    why = str(error) or type(error).__name__
    text = one_line(f"{what} failed: {why}", 300, glyphs=glyphs_of(node))
    node.notify(text, severity="error", timeout=10, markup=False)  # (the error may quote session text)
    return True
