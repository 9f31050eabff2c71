"""Small screens: raw JSON, confirmations, prompts, menus and the fork preview (their hint
lines show the keys as they are bound now)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList

from ..core.common.keybindings import Resolved
from ..core.common.text import inline
from ..widgets.glyphs import glyphs_of
from ..widgets.keys import bindings
from ..widgets.plain import PlainInput, PlainStatic, menu
from ..widgets.plain_views import PlainLog
from .keymap import defaults, hint


class RawJsonScreen(ModalScreen[None]):
    """The entry as it is in the file (after legacy migration), pretty-printed; `note` a line
    about it under the title (a reply that lost the prompt cache says so)."""

    BINDINGS = bindings("rawJson")

    def __init__(self, title: str, value: Any, note: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.value = value
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(id="raw-box", classes="dialog"):
            yield PlainStatic(self.title_text, classes="dialog-title")
            if self.note:
                yield PlainStatic(self.note, id="raw-note")
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


def live_keys(screen: ModalScreen[Any]) -> Resolved:
    """The keys in use (the app's), or the defaults for a screen shown outside our app."""
    keys = getattr(screen.app, "key_bindings", None)
    return keys if isinstance(keys, Resolved) else defaults()


def dialog_head(title: str, detail: str = "") -> Iterator[PlainStatic]:
    """A dialog's title and, if any, its detail lines: text from files, shown as it is."""
    yield PlainStatic(title, classes="dialog-title")
    if detail:
        yield PlainStatic(detail)


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = bindings("confirm")

    def __init__(self, question: str, detail: str = "") -> None:
        super().__init__()
        self.question = question
        self.detail = detail

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box", classes="dialog"):
            yield from dialog_head(self.question, self.detail)
            yield PlainStatic(
                hint(live_keys(self), [("confirm.yes", "yes"), ("confirm.no", "no")]), classes="dialog-hint"
            )

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)


class PromptScreen(ModalScreen[str | None]):
    BINDINGS = bindings("prompt")

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
            yield PlainStatic(
                f"enter: ok    {hint(live_keys(self), [('prompt.cancel', 'cancel')])}", classes="dialog-hint"
            )

    def on_mount(self) -> None:
        self.query_one(PlainInput).focus()

    def on_input_submitted(self, event: PlainInput.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class MenuScreen(ModalScreen[str | None]):
    """Pick one of a few choices: (key, label) pairs; digits and first letters work too."""

    BINDINGS = bindings("menu")

    def __init__(self, title: str, choices: Sequence[tuple[str, str]], detail: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.choices = list(choices)
        self.detail = detail

    def compose(self) -> ComposeResult:
        with Vertical(id="menu-box", classes="dialog"):
            yield from dialog_head(self.title_text, self.detail)
            yield menu(self.choices, id="menu-options", glyphs=glyphs_of(self))
            yield PlainStatic(
                f"enter or a digit: choose    {hint(live_keys(self), [('menu.cancel', 'cancel')])}",
                classes="dialog-hint",
            )

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

    BINDINGS = bindings("forkPreview")

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
                hint(
                    live_keys(self),
                    [
                        ("forkPreview.fork", "fork"),
                        ("forkPreview.resume", "fork and resume in pi"),
                        ("forkPreview.otherDir", "into another directory"),
                        ("forkPreview.cancel", "cancel"),
                    ],
                ),
                classes="dialog-hint",
            )

    def action_choose(self, choice: str | None) -> None:
        self.dismiss(choice)
