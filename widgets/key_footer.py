"""The footer: the keys that work right now, with the user's keys, chosen by priority so that
the most useful ones (quit and help first) are the ones left when the terminal is narrow.

It reads the screen's live bindings (the app's keymap applied), keeps those with a footer
label in the key table (widgets/keys.py), and shows them lowest rank first, as many as fit.
A click on a key presses it.
"""

from __future__ import annotations

from rich.style import Style
from textual import events
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget

from ..core.common.keybindings import UNBOUND, Resolved, key_label
from . import plain
from .keys import PALETTE, SPEC_BY_ID

GAP = 2  # cells between two items


class KeyFooter(Widget):
    DEFAULT_CSS = """
    KeyFooter {
        dock: bottom;
        height: 1;
        background: $footer-background;
        color: $footer-description-foreground;
    }
    KeyFooter > .keyfooter--key {
        color: $footer-key-foreground;
        text-style: bold;
    }
    KeyFooter > .keyfooter--description {
        color: $footer-description-foreground;
    }
    """
    COMPONENT_CLASSES = {"keyfooter--key", "keyfooter--description"}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._spans: list[tuple[int, int, str]] = []  # (start, end, key) of each drawn item

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        self.refresh()

    def items(self) -> list[tuple[str, str]]:
        """(key, label) of every binding that could be shown now, most important first. Two
        bindings with one label (our `s` and pi's ctrl+s both sort) show once: the one the
        user rebound if any, else the first."""
        keys = getattr(self.app, "key_bindings", None)
        rebound = set(keys.sources) if isinstance(keys, Resolved) else set()
        found: dict[str, tuple[int, int, str, str, bool]] = {}  # label -> (rank, order, key, label, user's)
        for order, (key, active) in enumerate(self.screen.active_bindings.items()):
            binding = active.binding
            spec_id = PALETTE if binding.action == "command_palette" else binding.id
            spec = SPEC_BY_ID.get(spec_id or "")
            if spec is None or not spec.footer or key.startswith(UNBOUND):
                continue
            users = spec.id in rebound
            known = found.get(spec.footer)
            if known is None or (users and not known[4]):
                found[spec.footer] = (
                    spec.rank,
                    order if known is None else known[1],
                    key,
                    spec.footer,
                    users,
                )
        return [(key, label) for _, _, key, label, _ in sorted(found.values())]

    def chosen(self, width: int) -> list[tuple[str, str]]:
        """The items that fit in `width` cells: in priority order, until one does not fit."""
        picked: list[tuple[str, str]] = []
        used = 1
        for key, label in self.items():
            size = len(key_label(key)) + 1 + len(label)
            if used + size > width:
                break
            picked.append((key, label))
            used += size + GAP
        return picked

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        if y != 0:
            return plain.blank(width, base)
        key_style = base + self.get_component_rich_style("keyfooter--key", partial=True)
        text_style = base + self.get_component_rich_style("keyfooter--description", partial=True)
        pieces: list[tuple[str, Style | None]] = [(" ", base)]
        spans: list[tuple[int, int, str]] = []
        x = 1
        for key, label in self.chosen(width):
            shown = key_label(key)
            pieces += [(shown, key_style), (" ", base), (label, text_style), (" " * GAP, base)]
            end = x + len(shown) + 1 + len(label)
            spans.append((x, end, key))
            x = end + GAP
        self._spans = spans
        return plain.line(pieces).crop_extend(0, width, base)

    def on_click(self, event: events.Click) -> None:
        for start, end, key in self._spans:
            if start <= event.x < end:
                event.stop()
                self.app.simulate_key(key)
                return
