"""A dialog that shows text to select by hand: when no clipboard could be reached, and for
the resume command in the browser, where there is no terminal to hand to pi."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen

from ..widgets.keys import bindings
from ..widgets.plain import PlainStatic
from ..widgets.plain_views import PlainTextArea
from .keymap import hint
from .screens import dialog_head, live_keys


class TextScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    #text-box { height: auto; max-height: 90%; }
    #text-value { height: auto; max-height: 20; border: none; padding: 0; }
    """
    BINDINGS = bindings("text")

    def __init__(self, title: str, text: str, detail: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.text = text
        self.detail = detail

    def compose(self) -> ComposeResult:
        with Vertical(id="text-box", classes="dialog"):
            yield from dialog_head(self.title_text, self.detail)
            # Control characters as placeholders: what is selected here is what is seen.
            yield PlainTextArea(self.text, id="text-value")
            yield PlainStatic(
                "select with the keyboard (shift+arrows) or the mouse (shift+drag in most terminals)"
                f"    {hint(live_keys(self), [('text.close', 'close')])}",
                classes="dialog-hint",
            )

    def on_mount(self) -> None:
        area = self.query_one(PlainTextArea)
        area.focus()
        area.select_all()

    def action_close(self) -> None:
        self.dismiss(None)
