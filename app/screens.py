"""Small screens: help, raw JSON, confirmations, prompts and menus."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList

from ..core.text import inline
from ..widgets.glyphs import glyphs_of
from ..widgets.plain import PlainInput, PlainLog, PlainStatic, key_table, menu

HELP = [
    ("Everywhere", ""),
    ("tab / shift+tab", "next / previous pane"),
    ("q", "quit"),
    ("? or F1", "this help"),
    ("ctrl+p", "command palette: every action by name"),
    ("/", "search (sessions in the sidebar, entries in the tree)"),
    ("x", "show / hide what is not in context, and why"),
    ("F", "follow: keep the selection on the newest entry"),
    ("r", "resume the session in pi"),
    ("f", "fork at the selected entry (then resume with a key)"),
    ("y", "copy: message text, path, id or resume command"),
    ("i", "raw JSON of the selected entry"),
    ("R", "rescan the sessions folder"),
    ("Sessions", ""),
    ("up/down, j/k", "move (the session opens as you move)"),
    ("enter", "go to its tree"),
    ("c", "this folder only / all folders"),
    ("n", "named sessions only"),
    ("s", "sort: recent, name, size"),
    ("escape", "clear the search"),
    ("Branch tree", ""),
    ("up/down, j/k", "move; the context pane follows"),
    ("enter", "go to the context at this entry"),
    ("left/right, h/l, space", "fold / unfold a branch"),
    ("[ and ]", "previous / next fork point"),
    ("a", "jump to the active leaf (where pi would resume)"),
    ("v", "view filter: conversation, no tool results, user only, labelled, everything"),
    ("n / N", "next / previous search match"),
    ("Context", ""),
    ("up/down, pgup/pgdn", "scroll"),
    ("[ and ]", "previous / next message"),
    ("enter or space", "expand / collapse the message (thinking, long output)"),
    ("home / end", "first / last message"),
]


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark,f1", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box", classes="dialog"):
            glyphs = glyphs_of(self)
            yield PlainStatic(f"pi-sessions {glyphs.dot} keys", classes="dialog-title")
            yield PlainStatic(key_table(HELP, key_style="bold", heading_style="underline", glyphs=glyphs))

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)


class RawJsonScreen(ModalScreen[None]):
    """The entry as it is in the file (after legacy migration), pretty-printed."""

    BINDINGS = [Binding("escape,q,i", "dismiss", "Close")]

    def __init__(self, title: str, value: Any) -> None:
        super().__init__()
        self.title_text = title
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical(id="raw-box", classes="dialog"):
            yield PlainStatic(self.title_text, classes="dialog-title")
            yield PlainLog(id="raw-log", highlight=False, auto_scroll=False)

    def on_mount(self) -> None:
        text = json.dumps(self.value, indent=2, ensure_ascii=False)
        logs = self.query(PlainLog)
        if not logs:
            return  # the app is closing around us
        log = logs.first()
        log.write_lines(text.splitlines())
        log.scroll_home(animate=False)
        log.focus()

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)


def dialog_head(title: str, detail: str = "") -> Iterator[PlainStatic]:
    """A dialog's title and, if any, its detail lines: text from files, shown as it is."""
    yield PlainStatic(title, classes="dialog-title")
    if detail:
        yield PlainStatic(detail)


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("y,enter", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str, detail: str = "") -> None:
        super().__init__()
        self.question = question
        self.detail = detail

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box", classes="dialog"):
            yield from dialog_head(self.question, self.detail)
            yield PlainStatic("y / enter: yes    n / escape: no", classes="dialog-hint")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)


class PromptScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, question: str, value: str = "", placeholder: str = "", detail: str = "") -> None:
        super().__init__()
        self.question = question
        self.value = value
        self.placeholder = placeholder
        self.detail = detail

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt-box", classes="dialog"):
            yield from dialog_head(self.question, self.detail)
            yield PlainInput(value=self.value, placeholder=self.placeholder, id="prompt-input")
            yield PlainStatic("enter: ok    escape: cancel", classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one(PlainInput).focus()

    def on_input_submitted(self, event: PlainInput.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class MenuScreen(ModalScreen[str | None]):
    """Pick one of a few choices: (key, label) pairs; digits and first letters work too."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, choices: Sequence[tuple[str, str]], detail: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.choices = list(choices)
        self.detail = detail

    def compose(self) -> ComposeResult:
        with Vertical(id="menu-box", classes="dialog"):
            yield from dialog_head(self.title_text, self.detail)
            yield menu(self.choices, id="menu-options", glyphs=glyphs_of(self))
            yield PlainStatic("enter or a digit: choose    escape: cancel", classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def on_key(self, event: Any) -> None:
        if event.character and event.character.isdigit():
            index = int(event.character) - 1
            if 0 <= index < len(self.choices):
                event.stop()
                self.dismiss(self.choices[index][0])

    def action_cancel(self) -> None:
        self.dismiss(None)


class ForkScreen(ModalScreen[str | None]):
    """The preview before writing a fork: what the new session will hold and where it goes.

    Dismisses with "fork", "fork-resume", "cwd" (choose another directory) or None."""

    BINDINGS = [
        Binding("enter", "choose('fork')", "Fork"),
        Binding("r", "choose('fork-resume')", "Fork and resume"),
        Binding("c", "choose('cwd')", "Another directory"),
        Binding("escape,n", "choose(None)", "Cancel"),
    ]

    def __init__(self, title: str, lines: Sequence[str]) -> None:
        super().__init__()
        self.title_text = title
        self.lines = list(lines)

    def compose(self) -> ComposeResult:
        with Vertical(id="fork-box", classes="dialog"):
            yield PlainStatic(self.title_text, classes="dialog-title")
            # One line per item: a newline in a cwd or a message must not fake another line.
            glyphs = glyphs_of(self)
            yield PlainStatic(
                "\n".join(inline(line, glyphs=glyphs) for line in self.lines), id="fork-preview"
            )
            yield PlainStatic(
                "enter: fork    r: fork and resume in pi    c: into another directory    escape: cancel",
                classes="dialog-hint",
            )

    def action_choose(self, choice: str | None) -> None:
        self.dismiss(choice)
