"""The help (`?`): every key binding as it is bound right now, and a legend of every glyph and
mark the panes draw. Both are generated: the keys from the key table and the live keymap, the
legend from the glyph set in use, so neither can fall behind the app (tests check both)."""

from __future__ import annotations

from collections.abc import Iterator

from msgspec.structs import fields
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen

from ..core.common.glyphs import ASCII, Glyphs
from ..core.common.keybindings import KeySpec, Resolved, keys_label
from ..core.projection.timeline import ASCII_BARS, ASCII_MARK, BARS, MARK
from ..widgets.glyphs import glyphs_of
from ..widgets.keys import SECTIONS, SPECS, bindings
from ..widgets.plain import PlainStatic, key_table

# What each glyph means, by its field in `Glyphs` (a glyph without a meaning fails a test).
GLYPH_MEANINGS = {
    "active": "on the active path (what pi would resume); in the sessions list: the open session",
    "live": "being written right now (it grew in the last 20 seconds)",
    "fork": "a session forked from another one",
    "child": "a fork, under the session it was forked from",
    "branches": "has branches; at the end of a tree row, with a count: a fork point and its branches",
    "folded": "a folded branch (its hidden entries are counted at the row's end, +N); in the sessions list, "
    "a session whose subagent sessions are folded under it (space unfolds them)",
    "unfolded": "a session whose subagent sessions are listed under it (space folds them)",
    "branch": "a branch below a fork point",
    "last_branch": "the last branch of a fork point",
    "pipe": "a later branch of the fork above continues below",
    "blank": "indentation: no branch continues here",
    "problem": "a problem in the file: the status line says which",
    "edit": "changed by a context edit (with a count: that many edits)",
    "label": "a label on the entry (set with {label_key}, as in pi)",
    "excluded": "not in context (shown with {excluded_key}), and why",
    "mark": "the entry marked with {mark_key}: move to another and press {compare_key} to compare the two",
    "pin": "in the sessions list: a pinned session, first in its folder's group (p pins or unpins)",
    "cache_break": "a reply that lost the prompt cache (its cause in the context header); in the "
    "sparkline: before that reply's bar",
    "ellipsis": "cut to fit here (at a word boundary, unless the last one is far back)",
    "arrow": "a tool call, or a change of model or thinking level",
    "dot": "between the parts of a title or a status line",
    "open_quote": "around a label or a session name",
    "close_quote": "around a label or a session name",
}
# Fields of `Glyphs` that are settings, not marks (shown in the legend in another way).
NOT_MARKS = {"control_pictures"}


def legend_rows(glyphs: Glyphs, keys: Resolved) -> list[tuple[str, str]]:
    """(mark, what it means) for every glyph of the set in use, then the bare counts."""
    label_key = keys_label(keys.keys_of("app.tree.editLabel")[:1]) or "a label"
    excluded_key = keys_label(keys.keys_of("context.excluded")[:1]) or "the palette"
    mark_key = keys_label(keys.keys_of("tree.mark")[:1]) or "the palette"
    compare_key = keys_label(keys.keys_of("tree.compare")[:1]) or "the palette's compare"
    rows = []
    for item in fields(Glyphs):
        if item.name in NOT_MARKS:
            continue
        glyph = getattr(glyphs, item.name).strip() or "(blank)"
        meaning = GLYPH_MEANINGS[item.name].format(
            label_key=label_key, excluded_key=excluded_key, mark_key=mark_key, compare_key=compare_key
        )
        rows.append((glyph, meaning))
    control = "<1b> <07>" if not glyphs.control_pictures else "\u241b \u2407"
    rows += [
        ("4", "after a folder in the sessions list: the sessions in it"),
        ("32", "at the end of a session: its messages"),
        ("now 5m 3h 2d 1w 4mo 1y", "at the end of a session: how long ago it last changed, as in pi"),
        (f"{glyphs.branches}2", "at the end of a tree row: a fork point with 2 branches"),
        ("+12", "at the end of a folded tree row: 12 entries hidden"),
        (f"{glyphs.edit}2", "after an entry's kind: 2 context edits change it"),
        ("250k $0.55", "at the end of a session, or of a branch's first row: the tokens and cost it spent"),
        (
            ASCII_BARS if glyphs == ASCII else BARS,
            "the context header: the context size each reply reported along the path",
        ),
        (ASCII_MARK if glyphs == ASCII else MARK, "in that line: a compaction"),
        (control, "control characters in session text, shown as marks, never sent to the terminal"),
    ]
    return rows


def _normal(action: str) -> str:
    return action.removeprefix("screen.")


def key_rows(keys: Resolved) -> Iterator[tuple[str, str]]:
    """(keys, what they do) for every binding, by section; bindings of one action in one
    place share a row. A binding without a key says so (the palette still has it)."""
    for heading, places in SECTIONS:
        yield (heading, "")
        groups: dict[tuple[str, str], list[KeySpec]] = {}
        for spec in SPECS:
            if spec.place in places:
                groups.setdefault((spec.place, _normal(spec.action)), []).append(spec)
        for specs in groups.values():
            live = [key for spec in specs for key in keys.keys_of(spec.id)]
            shown = keys_label(list(dict.fromkeys(live))) or "(no key)"
            yield (shown, specs[0].title)


class HelpScreen(ModalScreen[None]):
    BINDINGS = bindings("help")

    def compose(self) -> ComposeResult:
        keys: Resolved = self.app.key_bindings  # type: ignore[attr-defined]
        glyphs = glyphs_of(self)
        rows: list[tuple[str, str]] = list(key_rows(keys))
        rows.append(("What the marks mean", ""))
        rows += legend_rows(glyphs, keys)
        self.rows = rows  # what is shown, row by row (headings have no description)
        with VerticalScroll(id="help-box", classes="dialog"):
            yield PlainStatic(f"pi-sessions {glyphs.dot} keys", classes="dialog-title")
            yield PlainStatic(
                "Rebind any key by its id in the [keys] table of config.toml (pi's ids also in "
                "pi's keybindings.json); `pi-sessions config` lists every id and its keys.",
                classes="dim",
            )
            yield PlainStatic(key_table(rows, key_style="bold", heading_style="underline", glyphs=glyphs))

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)
