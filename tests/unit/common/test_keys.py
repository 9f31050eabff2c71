"""Key bindings as data (core/common/keybindings.py): pi's key syntax in Textual's names, the user's
overrides merged over the defaults, and every problem with them reported once, clearly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pi_sessions.core.common.keybindings import (
    SYMBOL_NAMES,
    UNBOUND,
    BadKey,
    KeyLayer,
    KeySpec,
    Places,
    Resolved,
    flatten_table,
    keep_a_way_out,
    key_label,
    pi_key,
    read_pi_keybindings,
    resolve,
    user_key,
)
from pi_sessions.widgets.keys import PLACES, SPECS
from textual._xterm_parser import XTermParser
from textual.events import Key
from textual.keys import _character_to_key


# ---------------------------------------------------------------------- pi's syntax -> Textual's names
@pytest.mark.parametrize(
    "pi, textual",
    [
        ("ctrl+s", "ctrl+s"),
        ("shift+ctrl+o", "ctrl+shift+o"),  # pi takes modifiers in any order; Textual sorts them
        ("ctrl+shift+x", "ctrl+shift+x"),
        ("alt+ctrl+]", "alt+ctrl+right_square_bracket"),
        ("ctrl+left", "ctrl+left"),
        ("alt+left", "alt+left"),
        ("pageUp", "pageup"),
        ("pageDown", "pagedown"),
        ("esc", "escape"),
        ("escape", "escape"),
        ("return", "enter"),
        ("[", "left_square_bracket"),
        ("?", "question_mark"),
        ("/", "slash"),
        ("`", "grave_accent"),
        ("shift+l", "L"),  # the terminal reports shift and a letter as the capital letter
        ("SHIFT+L", "L"),  # pi ignores case
        ("L", "l"),
        ("ctrl+1", "ctrl+1"),
        ("f12", "f12"),
        ("ctrl++", "ctrl+plus"),
        ("super+k", "super+k"),
        ("shift+tab", "shift+tab"),
        ("space", "space"),
    ],
)
def test_pi_keys_become_the_names_textual_reports(pi: str, textual: str) -> None:
    assert pi_key(pi) == textual


@pytest.mark.parametrize("bad", ["ctrl+ctrl+x", "hyper+x", "meta+x", "ctrl+", "", "pageup2", "é", "ctrl+foo"])
def test_what_pi_would_not_match_is_a_bad_key(bad: str) -> None:
    with pytest.raises(BadKey):
        pi_key(bad)


def test_every_symbol_is_named_as_textual_names_it() -> None:
    for symbol, name in SYMBOL_NAMES.items():
        assert _character_to_key(symbol) == name, symbol


@pytest.mark.parametrize(
    "sequence, pi",
    [
        ("\x1b[1;5D", "ctrl+left"),
        ("\x1b[1;5C", "ctrl+right"),
        ("\x13", "ctrl+s"),
        ("\x0f", "ctrl+o"),
        ("L", "shift+l"),
        ("\x1b[111;6u", "shift+ctrl+o"),  # kitty keyboard protocol
        ("\x1b[5~", "pageUp"),
        ("[", "["),
        ("?", "?"),
        ("\x1b[3~", "delete"),
    ],
)
def test_the_translation_matches_what_textual_reads_from_the_terminal(sequence: str, pi: str) -> None:
    parser = XTermParser()
    events = [e for e in parser.feed(sequence) if isinstance(e, Key)]
    events += [e for e in parser.feed("") if isinstance(e, Key)]
    assert [e.key for e in events] == [pi_key(pi)]


@pytest.mark.parametrize(
    "ours, textual",
    [
        ("L", "L"),
        ("shift+l", "L"),
        ("shift+L", "L"),
        ("ctrl+L", "ctrl+shift+l"),
        ("question_mark", "question_mark"),
        ("left_square_bracket", "left_square_bracket"),
        ("Pagedown", "pagedown"),
        ("?", "question_mark"),
        ("ctrl+pageUp", "ctrl+pageup"),
    ],
)
def test_our_table_takes_pis_syntax_and_textuals_names(ours: str, textual: str) -> None:
    assert user_key(ours) == textual


@pytest.mark.parametrize(
    "key, shown",
    [
        ("ctrl+s", "ctrl+s"),
        ("question_mark", "?"),
        ("left_square_bracket", "["),
        ("pagedown", "pgdn"),
        ("escape", "esc"),
        ("ctrl+shift+o", "ctrl+shift+o"),
        ("L", "L"),
        ("ctrl+plus", "ctrl++"),
        (UNBOUND + "x.y", ""),
    ],
)
def test_keys_are_shown_short_and_in_ascii(key: str, shown: str) -> None:
    assert key_label(key) == shown
    assert key_label(key).isascii()


# ---------------------------------------------------------------------- merging and conflicts
SMALL = [
    KeySpec("a.sort", "list", ("s",), "sort", "sort"),
    KeySpec("app.session.toggleSort", "list", ("ctrl+s",), "sort", "sort", pi=True),
    KeySpec("app.session.rename", "list", ("ctrl+r",), "rename", "rename", pi=True),
    KeySpec("a.resume", "main", ("r",), "resume", "resume"),
    KeySpec("a.quit", "main", ("q",), "quit", "quit"),
]
SMALL_PLACES = Places({"list": "the list", "main": "everywhere"}, {"list": (("list",), ("main",))})


def run(ours: dict[str, object] | None = None, pis: dict[str, object] | None = None):
    layers = [KeyLayer("keybindings.json", pis or {}, pi_syntax=True), KeyLayer("[keys]", ours or {})]
    return resolve(SMALL, SMALL_PLACES, layers)


def test_the_defaults_of_the_real_table_have_no_problem_and_no_keymap() -> None:
    result = resolve(SPECS, PLACES, [])
    assert result.problems == [] and result.keymap() == {}
    assert len({spec.id for spec in SPECS}) == len(SPECS)  # every binding has its own id


def test_ours_beats_pis_file_which_beats_the_default() -> None:
    result = run(ours={"a.sort": "o"}, pis={"a.sort": "x", "app.session.toggleSort": "alt+s"})
    assert result.keys_of("a.sort") == ("o",)  # pi's file cannot set our own ids
    assert result.keys_of("app.session.toggleSort") == ("alt+s",)
    assert result.sources == {"a.sort": "[keys]", "app.session.toggleSort": "keybindings.json"}
    assert result.keymap() == {"a.sort": "o", "app.session.toggleSort": "alt+s"}
    assert result.problems == []  # pi's many other ids are none of our business
    both = run(ours={"app.session.toggleSort": ["ctrl+o", "O"]}, pis={"app.session.toggleSort": "alt+s"})
    assert both.keys_of("app.session.toggleSort") == ("ctrl+o", "O")


def test_an_empty_list_leaves_an_action_without_a_key() -> None:
    result = run(ours={"a.quit": []})
    assert result.keys_of("a.quit") == ()
    assert result.keymap() == {"a.quit": UNBOUND + "a.quit"}  # a key no terminal sends


def test_an_unknown_id_is_reported_with_the_closest_one() -> None:
    result = run(ours={"a.sortt": "o", "zzz": "z"})
    assert result.problems[0] == "keys: unknown id 'a.sortt' in [keys] (did you mean a.sort?)"
    assert "'zzz'" in result.problems[1] and "help" in result.problems[1]
    assert result.keymap() == {}


def test_a_bad_key_is_reported_and_the_default_kept() -> None:
    result = run(ours={"a.sort": "ctrl+foo", "a.quit": ["Q", "ctrl+ctrl+q"], "a.resume": 3})
    assert result.keys_of("a.sort") == ("s",)
    assert result.keys_of("a.quit") == ("Q",)  # the good key of the two is used
    assert result.keys_of("a.resume") == ("r",)
    assert len(result.problems) == 3
    assert "a.sort in [keys]: 'ctrl+foo'" in result.problems[0]
    assert "a.resume in [keys] must be a key or a list of keys" in result.problems[2]


def test_an_override_takes_the_key_from_a_default_in_the_same_place_and_says_so() -> None:
    result = run(ours={"a.sort": "ctrl+r"})
    assert result.keys_of("a.sort") == ("ctrl+r",)
    assert result.keys_of("app.session.rename") == ()
    assert result.problems == [
        "keys: ctrl+r is bound to both a.sort and app.session.rename in the list; a.sort keeps it "
        "(app.session.rename now has no key)"
    ]
    assert result.keymap()["app.session.rename"] == UNBOUND + "app.session.rename"
    assert result.lost == {"app.session.rename": "ctrl+r to a.sort"}


def test_two_overrides_on_one_key_ours_wins_and_it_is_reported_once() -> None:
    result = run(ours={"a.sort": "x"}, pis={"app.session.rename": "x"})
    assert result.keys_of("a.sort") == ("x",) and result.keys_of("app.session.rename") == ()
    assert len(result.problems) == 1 and "a.sort keeps it" in result.problems[0]


def test_a_key_that_hides_one_further_out_is_reported_with_who_wins_where() -> None:
    result = run(ours={"a.sort": "r"})
    assert result.keys_of("a.resume") == ("r",)  # still works where the list is not focused
    assert result.problems == ["keys: r is bound to both a.sort and a.resume; in the list, a.sort wins"]


# ---------------------------------------------------------------------- where overrides come from
def test_pis_file_is_read_as_pi_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "keybindings.json"
    data = {
        "$schema": "https://pi.dev/schemas/keybindings.schema.json",
        "renameSession": "ctrl+e",  # an old name, migrated
        "treeFoldOrUp": "alt+h",
        "app.tree.foldOrUp": "ctrl+h",  # ... unless the new name is there too
    }
    path.write_text("\ufeff" + json.dumps(data))  # a BOM is skipped
    values, problems = read_pi_keybindings(str(path))
    assert values == {"app.session.rename": "ctrl+e", "app.tree.foldOrUp": "ctrl+h"} and problems == []
    assert read_pi_keybindings(str(tmp_path / "none.json")) == ({}, [])
    path.write_text("{not json")
    values, problems = read_pi_keybindings(str(path))
    assert values == {} and "is not valid JSON" in problems[0] and "ignored" in problems[0]
    path.write_text("[1, 2]")
    assert "does not hold a JSON object" in read_pi_keybindings(str(path))[1][0]


def test_dotted_ids_may_be_written_bare_in_toml() -> None:
    import tomllib

    table = tomllib.loads('app.session.rename = "ctrl+e"\n"tree.fold" = ["h"]\n')
    assert flatten_table(table) == {"app.session.rename": "ctrl+e", "tree.fold": ["h"]}


# ---------------------------------------------------------------------- quit stays reachable
def quit_kept(ours: dict[str, object]) -> Resolved:
    """The real table with `ours` over it, quit kept reachable as the app does."""
    result = resolve(SPECS, PLACES, [KeyLayer("[keys]", ours)])
    keep_a_way_out(result, PLACES, "ui.quit", ("sessions", "tree", "context"), always=("ctrl+q",))
    return result


def test_when_no_key_would_quit_its_default_comes_back_and_it_is_said_once() -> None:
    # j is the lists' and the context's "down" there first; ctrl+q (Textual's quit) is help now.
    result = quit_kept({"ui.quit": "j", "ui.help": "ctrl+q"})
    assert result.keys_of("ui.quit") == ("q", "j")
    assert result.keymap()["ui.quit"] == "q,j"
    assert (
        result.problems[-1] == "keys: with these bindings no key would quit (ui.quit); q does, as by default"
    )
    assert sum("no key would quit" in p for p in result.problems) == 1
    # The default key is taken back from whatever would have had it first.
    taken = quit_kept({"ui.quit": [], "ui.help": "ctrl+q", "list.down": ["down", "q"]})
    assert taken.keys_of("ui.quit") == ("q",) and taken.keys_of("list.down") == ("down",)
    assert taken.problems[-1].endswith("q does, as by default (taken back from list.down)")
    assert taken.lost["list.down"] == "q to ui.quit"


def test_a_key_that_still_quits_everywhere_leaves_the_users_choice_alone() -> None:
    cases: list[tuple[tuple[str, ...], dict[str, object]]] = [
        ((), {"ui.quit": []}),  # (unbound, or shadowed in a pane: ctrl+q is still Textual's quit)
        (("tab",), {"ui.quit": "tab"}),
        (("ctrl+x",), {"ui.quit": "ctrl+x"}),
        (("Q",), {"ui.help": "q", "ui.quit": "Q"}),
    ]
    for quit, ours in cases:
        result = quit_kept(ours)
        assert not any("no key would quit" in p for p in result.problems), ours
        assert result.keys_of("ui.quit") == quit, ours
    assert quit_kept({}).problems == [] and quit_kept({}).keymap() == {}
