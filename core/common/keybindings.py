"""Key bindings as data: pi's key syntax translated to Textual's key names, the user's
overrides (our `[keys]` table, pi's `keybindings.json`) merged over the defaults, and every
problem with them (an unknown id, a bad key, two actions on one key in one place) found here,
once, as one readable line each. Nothing here knows Textual; the app hands the result to it.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from .smallfiles import read_small_text

# Textual names a key "+"-joined, modifiers sorted by name (its parser sorts them so).
MODIFIERS = frozenset({"alt", "ctrl", "hyper", "meta", "shift", "super"})
PI_MODIFIERS = ("ctrl", "shift", "alt", "super")

# pi's symbols (docs/keybindings.md) and a few more, by Textual's names for them.
SYMBOL_NAMES = {
    "`": "grave_accent",
    "-": "minus",
    "=": "equals_sign",
    "[": "left_square_bracket",
    "]": "right_square_bracket",
    "\\": "backslash",
    ";": "semicolon",
    "'": "apostrophe",
    ",": "comma",
    ".": "full_stop",
    "/": "slash",
    "!": "exclamation_mark",
    "@": "at",
    "#": "number_sign",
    "$": "dollar_sign",
    "%": "percent_sign",
    "^": "circumflex_accent",
    "&": "ampersand",
    "*": "asterisk",
    "(": "left_parenthesis",
    ")": "right_parenthesis",
    "_": "underscore",
    "+": "plus",
    "|": "vertical_line",
    "~": "tilde",
    "{": "left_curly_bracket",
    "}": "right_curly_bracket",
    ":": "colon",
    "<": "less_than_sign",
    ">": "greater_than_sign",
    "?": "question_mark",
    '"': "quotation_mark",
}
SYMBOL_OF_NAME = {name: symbol for symbol, name in SYMBOL_NAMES.items()}

# Named keys: what pi (and people) write -> Textual's name.
SPECIAL_KEYS = {
    "escape": "escape",
    "esc": "escape",
    "enter": "enter",
    "return": "enter",
    "tab": "tab",
    "space": "space",
    "backspace": "backspace",
    "delete": "delete",
    "del": "delete",
    "insert": "insert",
    "clear": "clear",
    "home": "home",
    "end": "end",
    "pageup": "pageup",
    "pagedown": "pagedown",
    "pgup": "pageup",
    "pgdn": "pagedown",
    "up": "up",
    "down": "down",
    "left": "left",
    "right": "right",
    **{f"f{n}": f"f{n}" for n in range(1, 25)},
}

# How a Textual key name is shown to people (help, footer, palette): short, ASCII.
SHOWN = {
    "escape": "esc",
    "pageup": "pgup",
    "pagedown": "pgdn",
    "delete": "del",
}

UNBOUND = "unbound:"  # a key no terminal sends: an action the user left without a key


class BadKey(ValueError):
    """A key that cannot be written in Textual's terms (the message says why)."""


def _key_name(key: str, *, textual_names: bool) -> str:
    """The key part (no modifiers) as Textual names it."""
    if len(key) == 1:
        if key.isascii() and key.isalnum():
            return key
        if key in SYMBOL_NAMES:
            return SYMBOL_NAMES[key]
        raise BadKey(f"no key is called {key!r}")
    lowered = key.lower()
    if lowered in SPECIAL_KEYS:
        return SPECIAL_KEYS[lowered]
    if textual_names and lowered in SYMBOL_OF_NAME:
        return lowered
    raise BadKey(f"no key is called {key!r}")


def _named(whole: str, key: str, *, textual_names: bool) -> str:
    try:
        return _key_name(key, textual_names=textual_names)
    except BadKey as e:
        raise BadKey(f"{whole!r}: {e}") from None


def _split(key: str) -> tuple[list[str], str]:
    """Modifiers (as written) and the key; `ctrl++` is ctrl and the `+` key."""
    text = key.strip()
    if not text:
        raise BadKey("an empty key")
    if text == "+":
        return [], "+"
    if text.endswith("++"):
        parts = text[:-2].split("+")
        return parts, "+"
    *mods, last = text.split("+")
    if not last:
        raise BadKey(f"{key!r} ends with '+'")
    return mods, last


def _join(modifiers: Iterable[str], name: str) -> str:
    return "+".join([*sorted(set(modifiers)), name])


def pi_key(key: str) -> str:
    """A key in pi's syntax (`ctrl+shift+x`, `pageUp`, `esc`, `[`, `shift+l`...) as Textual
    names it (`ctrl+shift+x`, `pageup`, `escape`, `left_square_bracket`, `L`). pi ignores
    case and takes the modifiers ctrl, shift, alt and super in any order, each once."""
    if not isinstance(key, str):
        raise BadKey(f"{key!r} is not a key")
    mods, last = _split(key.lower())
    seen: list[str] = []
    for mod in mods:
        if mod not in PI_MODIFIERS:
            raise BadKey(f"{key!r}: {mod!r} is not a modifier (ctrl, shift, alt, super)")
        if mod in seen:
            raise BadKey(f"{key!r} names {mod} twice")
        seen.append(mod)
    return _textual(seen, _named(key, last, textual_names=False))


def user_key(key: str) -> str:
    """A key in our `[keys]` table: pi's syntax or Textual's names (`question_mark`,
    `left_square_bracket`, `pagedown`); a capital letter is that letter with shift, as the
    terminal reports it (`L` is `shift+l`)."""
    if not isinstance(key, str):
        raise BadKey(f"{key!r} is not a key")
    mods, last = _split(key)
    seen: list[str] = []
    for mod in (m.lower() for m in mods):
        if mod not in MODIFIERS:
            raise BadKey(f"{key!r}: {mod!r} is not a modifier (ctrl, shift, alt, super)")
        if mod in seen:
            raise BadKey(f"{key!r} names {mod} twice")
        seen.append(mod)
    if len(last) == 1 and last.isascii() and last.isupper():
        seen.append("shift")
        last = last.lower()
    return _textual(seen, _named(key, last, textual_names=True))


def _textual(modifiers: list[str], name: str) -> str:
    # The terminal reports shift with a letter as the capital letter, nothing else.
    if len(name) == 1 and name.isalpha() and set(modifiers) == {"shift"}:
        return name.upper()
    return _join(modifiers, name)


def key_label(key: str) -> str:
    """How a Textual key name is shown: `ctrl+s`, `?`, `[`, `pgdn`, `shift+tab`, `L`."""
    if key.startswith(UNBOUND):
        return ""
    *mods, name = key.split("+")
    shown = SYMBOL_OF_NAME.get(name) or SHOWN.get(name, name)
    return "+".join([*mods, shown])


def keys_label(keys: Sequence[str], sep: str = ", ") -> str:
    return sep.join(label for label in map(key_label, keys) if label)


# ---------------------------------------------------------------------- the bindings
@dataclass(frozen=True, slots=True)
class KeySpec:
    """One binding: what it does, where it works, its default keys."""

    id: str
    place: str  # where it works (a pane, the main screen, a dialog): see `Places`
    keys: tuple[str, ...]  # default keys, Textual's names (none: bound only if the user binds it)
    action: str  # the Textual action it runs
    title: str  # what it does, for the help and the command palette
    footer: str = ""  # its short label in the footer (empty: never there)
    rank: int = 50  # footer priority: the lowest ranks are shown first and dropped last
    priority: bool = False  # checked before the focused widget's keys (tab)
    pi: bool = False  # pi has this id: pi's keybindings.json may rebind it
    palette: str = ""  # its title in the command palette (empty: not there)


@dataclass(frozen=True, slots=True)
class Places:
    """Where keys are looked up: each chain is one focus situation (the sessions list, the
    tree...), a sequence of namespaces from the focused widget out; a namespace holds one
    or more places (a widget's own keys and those it inherits)."""

    names: Mapping[str, str]  # place -> how it is called in a message ("the tree")
    chains: Mapping[str, tuple[tuple[str, ...], ...]]


@dataclass(slots=True)
class Resolved:
    """The effective keys of every binding, where each came from, and what was wrong."""

    specs: dict[str, KeySpec]
    keys: dict[str, tuple[str, ...]]
    sources: dict[str, str] = field(default_factory=dict)  # id -> where the user set its keys
    lost: dict[str, str] = field(default_factory=dict)  # id -> which of its keys went to whom
    problems: list[str] = field(default_factory=list)

    def keys_of(self, binding_id: str) -> tuple[str, ...]:
        return self.keys.get(binding_id, ())

    def keymap(self) -> dict[str, str]:
        """For Textual's `App.set_keymap`: each changed binding's keys, comma-joined; an
        action left without a key gets a key that no terminal sends."""
        changed: dict[str, str] = {}
        for binding_id, keys in self.keys.items():
            if keys != self.specs[binding_id].keys:
                changed[binding_id] = ",".join(keys) if keys else UNBOUND + binding_id
        return changed

    def changed(self) -> list[tuple[str, tuple[str, ...], str]]:
        """(id, keys, source) of every binding the user changed, in table order."""
        return [(i, self.keys[i], self.sources[i]) for i in self.specs if i in self.sources]


@dataclass(frozen=True, slots=True)
class KeyLayer:
    """One set of overrides: id -> a key or a list of keys, as written."""

    where: str  # for messages: "[keys] in /home/u/.config/pi-sessions/config.toml"
    values: Mapping[str, object]
    pi_syntax: bool = False  # pi's keybindings.json: pi's syntax, only pi's ids, others ignored


def resolve(
    specs: Sequence[KeySpec], places: Places, layers: Sequence[KeyLayer], problems: Sequence[str] = ()
) -> Resolved:
    """The defaults with each layer over them (later layers win: pass pi's file first, then
    ours), the conflicts each override makes, and the problems of each layer."""
    by_id = {spec.id: spec for spec in specs}
    result = Resolved(by_id, {spec.id: spec.keys for spec in specs}, problems=list(problems))
    owner: dict[str, int] = {}  # id -> index of the layer that set it
    for index, layer in enumerate(layers):
        unknown = 0
        for binding_id, value in layer.values.items():
            spec = by_id.get(binding_id)
            if spec is None or (layer.pi_syntax and not spec.pi):
                if not layer.pi_syntax:
                    unknown += 1
                    if unknown <= MAX_UNKNOWN_REPORTED:  # (each hint is a fuzzy match: a cost per id)
                        result.problems.append(_unknown(binding_id, layer.where, by_id))
                continue  # pi has many actions we do not: its file may name them all
            keys = _parse_value(value, binding_id, layer, result.problems)
            if keys is None:
                continue
            result.keys[binding_id] = keys
            result.sources[binding_id] = layer.where
            owner[binding_id] = index
        if unknown > MAX_UNKNOWN_REPORTED:
            result.problems.append(
                f"keys: {unknown - MAX_UNKNOWN_REPORTED} more unknown ids in {layer.where}"
            )
    _settle_conflicts(result, places, owner)
    return result


MAX_UNKNOWN_REPORTED = 20  # unknown ids told one by one, with a hint; the rest are counted


def _unknown(binding_id: str, where: str, by_id: Mapping[str, KeySpec]) -> str:
    close = difflib.get_close_matches(binding_id, list(by_id), n=1) if len(binding_id) <= 200 else []
    hint = f" (did you mean {close[0]}?)" if close else " (the help, ?, lists every id)"
    return f"keys: unknown id {binding_id!r} in {where}{hint}"


def _parse_value(
    value: object, binding_id: str, layer: KeyLayer, problems: list[str]
) -> tuple[str, ...] | None:
    """The keys of one override, or None (reported) when none of them is usable."""
    raw = [value] if isinstance(value, str) else value
    if not isinstance(raw, list) or not all(isinstance(k, str) for k in raw):
        problems.append(f"keys: {binding_id} in {layer.where} must be a key or a list of keys; ignored")
        return None
    parse = pi_key if layer.pi_syntax else user_key
    keys: list[str] = []
    for written in raw:
        try:
            key = parse(written)
        except BadKey as e:
            problems.append(f"keys: {binding_id} in {layer.where}: {e}; ignored")
            continue
        if key not in keys:
            keys.append(key)
    if raw and not keys:
        return None  # every key was bad: the default stays (already reported)
    return tuple(keys)


def _settle_conflicts(result: Resolved, places: Places, owner: Mapping[str, int]) -> None:
    """Two bindings on one key where both are looked up: reported when an override made it.
    In one namespace the override keeps the key (two overrides: the later layer, then the
    table's order) and the other loses it; across namespaces the inner one wins while it
    has focus (a priority binding wins from outside), as Textual does."""
    specs = result.specs
    reported: set[tuple[str, frozenset[str]]] = set()
    order = {binding_id: i for i, binding_id in enumerate(specs)}

    def overridden(binding_id: str, key: str) -> bool:
        return binding_id in owner and key in result.keys[binding_id]

    namespaces = {ns for chain in places.chains.values() for ns in chain}
    for namespace in sorted(namespaces):
        claims: dict[str, list[str]] = {}
        for binding_id, spec in specs.items():
            if spec.place in namespace:
                for key in result.keys[binding_id]:
                    claims.setdefault(key, []).append(binding_id)
        for key, ids in claims.items():
            if len(ids) < 2 or not any(overridden(i, key) for i in ids):
                continue
            winner = max(ids, key=lambda i: (overridden(i, key), owner.get(i, -1), -order[i]))
            for loser in ids:
                if loser == winner:
                    continue
                result.keys[loser] = tuple(k for k in result.keys[loser] if k != key)
                lost = result.lost.get(loser)
                result.lost[loser] = (f"{lost}, " if lost else "") + f"{key_label(key)} to {winner}"
                pair = (key, frozenset((winner, loser)))
                if pair in reported:
                    continue
                reported.add(pair)
                left = "" if result.keys[loser] else f" ({loser} now has no key)"
                result.problems.append(
                    f"keys: {key_label(key)} is bound to both {winner} and {loser} in "
                    f"{places.names.get(specs[winner].place, specs[winner].place)}; {winner} keeps it{left}"
                )
    for chain_name, chain in places.chains.items():
        seen: dict[str, tuple[int, str]] = {}  # key -> (namespace index, id) of its first claim
        for depth, namespace in enumerate(chain):
            for binding_id, spec in specs.items():
                if spec.place not in namespace:
                    continue
                for key in result.keys[binding_id]:
                    first = seen.get(key)
                    if first is None:
                        seen[key] = (depth, binding_id)
                        continue
                    inner = first[1]
                    if first[0] == depth or not (overridden(inner, key) or overridden(binding_id, key)):
                        continue
                    pair = (key, frozenset((inner, binding_id)))
                    if pair in reported:
                        continue
                    reported.add(pair)
                    wins = binding_id if spec.priority else inner
                    where = places.names.get(chain_name, chain_name)
                    result.problems.append(
                        f"keys: {key_label(key)} is bound to both {inner} and {binding_id}; "
                        f"in {where}, {wins} wins"
                    )


def keep_a_way_out(
    result: Resolved,
    places: Places,
    binding_id: str,
    chains: Sequence[str],
    always: Sequence[str] = (),
) -> None:
    """Make sure `binding_id` (quit) keeps a key that reaches it in each of `chains`: when the
    user's keys left it none (unbound, or each key taken first by another binding there),
    its default keys come back, taken from whatever held them in those chains, and one
    problem line says so. `always`: keys that do it anyway unless some binding there has
    them (Textual's own ctrl+q)."""
    specs = result.specs
    spec = specs[binding_id]
    chain_places = [[set(namespace) for namespace in places.chains[name]] for name in chains]

    def works(key: str, chain: list[set[str]], own: str | None) -> bool:
        """Does `key` reach `own` in `chain` (None: does no binding there have it)?"""
        place = specs[own].place if own is not None else None
        depth = next((d for d, namespace in enumerate(chain) if place in namespace), len(chain))
        for d, namespace in enumerate(chain):
            for other, other_spec in specs.items():
                if other == own or other_spec.place not in namespace or key not in result.keys[other]:
                    continue
                if own is None or d < depth or other_spec.priority:
                    return False  # (an inner binding, or a priority one, takes the key first)
        return True

    def reached(chain: list[set[str]]) -> bool:
        return any(works(k, chain, binding_id) for k in result.keys[binding_id]) or any(
            works(k, chain, None) for k in always
        )

    if not spec.keys or all(reached(chain) for chain in chain_places):
        return
    taken_from: list[str] = []
    held = {place for chain in chain_places for namespace in chain for place in namespace}
    for other, other_spec in specs.items():
        if other == binding_id or other_spec.place not in held:
            continue
        kept = tuple(k for k in result.keys[other] if k not in spec.keys)
        if kept != result.keys[other]:
            gone = keys_label([k for k in result.keys[other] if k not in kept])
            lost = result.lost.get(other)
            result.lost[other] = (f"{lost}, " if lost else "") + f"{gone} to {binding_id}"
            result.keys[other] = kept
            taken_from.append(other)
    result.keys[binding_id] = tuple(dict.fromkeys((*spec.keys, *result.keys[binding_id])))
    shown = keys_label(spec.keys, " / ")
    source = f" (taken back from {', '.join(taken_from)})" if taken_from else ""
    result.problems.append(
        f"keys: with these bindings no key would {spec.title} ({binding_id}); "
        f"{shown} does, as by default{source}"
    )


# ---------------------------------------------------------------------- where overrides come from
PI_LEGACY_NAMES = {
    # pi migrates these old names of the ids we share (core/keybindings.js).
    "toggleSessionNamedFilter": "app.session.toggleNamedFilter",
    "toggleSessionSort": "app.session.toggleSort",
    "renameSession": "app.session.rename",
    "deleteSession": "app.session.delete",
    "treeFoldOrUp": "app.tree.foldOrUp",
    "treeUnfoldOrDown": "app.tree.unfoldOrDown",
    "treeEditLabel": "app.tree.editLabel",
}


def read_pi_keybindings(path: str) -> tuple[dict[str, object], list[str]]:
    """pi's `keybindings.json` as pi reads it: a UTF-8 BOM is skipped, old names are
    migrated (the new name wins when both are there), `$schema` is ignored. A missing file
    is no overrides; a broken one is reported and ignored (pi ignores it silently)."""
    try:
        text = read_small_text(path)
    except FileNotFoundError:
        return {}, []
    except (OSError, UnicodeDecodeError) as e:
        return {}, [f"keys: cannot read {path}: {getattr(e, 'strerror', None) or e}; ignored"]
    try:
        data = json.loads(text.removeprefix("\ufeff"))
    except ValueError as e:
        return {}, [f"keys: {path} is not valid JSON ({e}); ignored"]
    except RecursionError:
        return {}, [f"keys: {path} is nested too deeply to read; ignored"]
    if not isinstance(data, dict):
        return {}, [f"keys: {path} does not hold a JSON object; ignored"]
    values: dict[str, object] = {}
    for key, value in data.items():
        name = str(key)  # JSON object keys are strings
        if name == "$schema":
            continue
        new = PI_LEGACY_NAMES.get(name) or name
        if new != name and new in data:
            continue
        values[new] = value
    return values, []


def flatten_table(table: Mapping[str, object], prefix: str = "") -> dict[str, object]:
    """Our `[keys]` table with dotted ids written bare (`app.session.rename = "x"` is a
    nested table in TOML) or quoted: id -> value either way."""
    flat: dict[str, object] = {}
    for name, value in table.items():
        full = f"{prefix}{name}"
        if isinstance(value, Mapping):
            flat.update(flatten_table(value, full + "."))
        else:
            flat[full] = value
    return flat
