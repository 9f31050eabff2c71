"""`pi-sessions config`: the effective settings and where each came from."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...core.common.keybindings import Resolved

HELP = "show the effective settings and where each came from"

EXAMPLES = (
    "pi-sessions config",
    "pi-sessions config --theme light --json",
)


def configure(parser: argparse.ArgumentParser) -> None:
    from ..arguments import add_setting_arguments

    parser.add_argument("--json", action="store_true", help="one JSON object")
    parser.epilog = "The browser's flags may be given too, to see what they change."
    add_setting_arguments(parser)


def run(ns: argparse.Namespace) -> int:
    from ...core.common.jsonout import encode_json
    from ...core.common.locations import resolve_sessions_root
    from ..arguments import flag_overrides
    from ..config import SETTING_NAMES, read_settings, resolve_theme
    from ..keymap import load_keys
    from .output import text, warn, write_line

    loaded = read_settings().with_flags(flag_overrides(ns))
    settings = loaded.settings
    keys = load_keys(settings.keys, config_file=str(loaded.path))
    theme = resolve_theme(settings.theme)
    root = resolve_sessions_root(settings.session_dir)
    names = [name for name in SETTING_NAMES if name not in ("served", "redact")]
    if ns.json:
        report: dict[str, Any] = {
            "config_file": str(loaded.path),
            "config_file_found": loaded.file_found,
            "problems": loaded.problems,
            "settings": {
                name: {
                    "value": _plain(getattr(settings, name)),
                    "source": loaded.source(name).kind,
                    "where": loaded.source(name).where or None,
                }
                for name in names
            },
            "theme": {"appearance": theme.appearance, "why": theme.why},
            "sessions_folder": {"path": root.path, "source": root.source},
            "keys": {
                binding_id: {
                    "keys": list(keys.keys_of(binding_id)),
                    "source": keys.sources.get(binding_id, "default"),
                    "lost": keys.lost.get(binding_id),
                }
                for binding_id in keys.specs
            },
            "key_problems": keys.problems,
        }
        write_line(encode_json(report))
        return 0

    from ...core.common.text import visible

    for problem in loaded.problems:
        warn(f"pi-sessions: {problem}")
    text(f"config file: {visible(str(loaded.path))} ({'read' if loaded.file_found else 'not found'})")
    text("")
    rows = [(name, _shown(getattr(settings, name)), loaded.source(name).describe()) for name in names]
    rows.append(("(theme)", theme.appearance, theme.why))
    rows.append(("(sessions folder)", root.path, root.source))
    width = max(len(name) for name, _, _ in rows)
    value_width = min(40, max(len(value) for _, value, _ in rows))
    for name, value, source in rows:
        text(f"{name:<{width}}  {visible(value):<{value_width}}  {visible(source)}")
    _print_keys(keys)
    return 0


def _print_keys(keys: Resolved) -> None:
    """Every key binding by id (what `[keys]` rebinds), its keys and where they came from."""
    from ...core.common.keybindings import keys_label
    from .output import text, warn

    for problem in keys.problems:
        warn(f"pi-sessions: {problem}")
    text("")
    text("keys (rebind by id in [keys]; pi's ids also in pi's keybindings.json):")
    width = max(len(binding_id) for binding_id in keys.specs)
    for binding_id, spec in keys.specs.items():
        shown = keys_label(keys.keys_of(binding_id)) or "(no key)"
        where = keys.sources.get(binding_id, "default")
        if binding_id in keys.lost:
            where += f"; lost {keys.lost[binding_id]}"
        text(f"{binding_id:<{width}}  {shown:<20}  {spec.title} ({where})")


def _plain(value: object) -> object:
    """A setting's value as JSON has it (an extra root: `{path, label}`)."""
    import dataclasses

    if isinstance(value, list):
        return [_plain(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return value


def _shown(value: object) -> str:
    """A value as it would be written in config.toml."""
    import json

    value = _plain(value)
    if isinstance(value, list):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    if value is None:
        return "(unset)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {json.dumps(v, ensure_ascii=False)}" for k, v in value.items()) + "}"
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else str(value)
