"""The keys in use: the table's defaults (widgets/keys.py), then pi's `keybindings.json` for the
ids we share with pi, then our `[keys]` table; what went wrong with them, once; and how a
binding's keys read in a hint."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from ..core.common.keybindings import (
    KeyLayer,
    Resolved,
    flatten_table,
    keys_label,
    read_pi_keybindings,
    resolve,
)
from ..core.common.locations import agent_dir
from ..widgets.keys import PALETTE, PLACES, SPEC_BY_ID, SPECS


def pi_keybindings_path(env: Mapping[str, str] | None = None, folder: str | None = None) -> str:
    return os.path.join(folder or agent_dir(env), "keybindings.json")


def load_keys(
    table: Mapping[str, Any],
    *,
    config_file: str = "config.toml",
    pi_agent_dir: str | None = None,
    env: Mapping[str, str] | None = None,
) -> Resolved:
    """Every binding's keys: ours (`table`, the `[keys]` of `config_file`) over pi's file
    over the defaults, with every problem as one line."""
    pi_path = pi_keybindings_path(env, pi_agent_dir)
    pi_values, problems = read_pi_keybindings(pi_path)
    layers = [
        KeyLayer(pi_path, pi_values, pi_syntax=True),
        KeyLayer(f"[keys] of {config_file}", flatten_table(table)),
    ]
    return resolve(SPECS, PLACES, layers, problems)


def defaults() -> Resolved:
    return resolve(SPECS, PLACES, [])


def first_key(keys: Resolved, binding_id: str) -> str:
    """The first key of a binding as people read it ("" when it has none)."""
    return keys_label(keys.keys_of(binding_id)[:1])


def hint(keys: Resolved, items: Sequence[tuple[str, str]]) -> str:
    """A dialog's hint line from the live keys: `y / enter: yes    n / esc: no`."""
    parts = []
    for binding_id, what in items:
        shown = keys_label(keys.keys_of(binding_id), " / ")
        if shown:
            parts.append(f"{shown}: {what}")
    return "    ".join(parts)


def described(binding_id: str) -> str:
    return SPEC_BY_ID[binding_id].title


def palette_commands(screen: Any, keys: Resolved) -> list[tuple[str, str, str, Any]]:
    """(title, help, action, the node it runs on) of every command in the palette; the help
    ends with the command's keys as bound now (every key of the same action)."""
    from ..widgets.keys import DIALOG_PLACES
    from ..widgets.plain import palette_text

    targets = {
        "app": screen.app,
        "main": screen,
        "sessions": screen.sidebar,
        "tree": screen.branch_tree,
        "context": screen.context_view.body,
    }
    commands = []
    for spec in SPECS:
        # Every action of the panes and the screen, named by its palette title or its help line.
        if spec.place not in targets or spec.id == PALETTE:
            continue
        action = spec.action.removeprefix("screen.")
        same = [
            key
            for other in SPECS
            if other.place not in DIALOG_PLACES and other.action.removeprefix("screen.") == action
            for key in keys.keys_of(other.id)
        ]
        shown = keys_label(list(dict.fromkeys(same)))
        where = f"key: {shown}" if shown else f"no key: give {spec.id} one in config.toml [keys]"
        commands.append(
            (
                palette_text(spec.palette or spec.title[:1].upper() + spec.title[1:]),
                palette_text(f"{spec.title} ({where})"),
                spec.action,
                targets[spec.place],
            )
        )
    return commands
