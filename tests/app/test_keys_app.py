"""Keys in the running app: pi's default keys do what they do in pi, the user's `[keys]` and
pi's keybindings.json rebind them and the help and the footer show it, a bad override is
reported once and breaks nothing, and the help lists every binding and every glyph."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import fields
from pi_sessions.app import cli, tui
from pi_sessions.app.compare_screen import CompareScreen
from pi_sessions.app.files_screen import FilesScreen
from pi_sessions.app.help_screen import GLYPH_MEANINGS, NOT_MARKS, HelpScreen
from pi_sessions.app.keymap import palette_commands
from pi_sessions.app.screens import ConfirmScreen, ForkScreen, MenuScreen, PromptScreen, RawJsonScreen
from pi_sessions.app.text_screen import TextScreen
from pi_sessions.core.common.glyphs import ASCII, UNICODE, Glyphs
from pi_sessions.core.common.keybindings import UNBOUND, key_label
from pi_sessions.core.listing.sidebar_rows import SessionRow, SortOrder
from pi_sessions.core.session.outline import ViewFilter
from pi_sessions.widgets.branch_tree import BranchTree
from pi_sessions.widgets.context_view import ContextBody
from pi_sessions.widgets.key_footer import KeyFooter
from pi_sessions.widgets.keys import PALETTE, SPEC_BY_ID, SPECS
from pi_sessions.widgets.plain import FitStatic
from pi_sessions.widgets.sidebar import SessionList, SessionSidebar
from textual.binding import BindingsMap

from tests.helpers.app import lines_of, loaded, main, make_app, screen_text, static_text, until
from tests.helpers.sessions import assistant, chain, entry, header, two_fork_session, user, write


def sessions(root: Path) -> Path:
    """Two sessions in one folder, one of them named."""
    folder = root / "--home-u-proj--"
    write(
        folder / "2025-03-01T10-00-00-000Z_s1.jsonl",
        header(id="s1", cwd="/home/u/proj"),
        user("u1", None, "hello", 1),
        assistant("a1", "u1", "hi there", 2),
        entry("session_info", "n1", "a1", 3, name="named one"),
    )
    write(
        folder / "2025-03-02T10-00-00-000Z_s2.jsonl",
        header(id="s2", cwd="/home/u/proj", timestamp="2025-03-02T10:00:00.000Z"),
        user("u1", None, "another", 1),
    )
    return root


def tree_app(tmp_path: Path, **kwargs: Any):
    root = tmp_path / "sessions"
    two_fork_session(root / "--home-u-proj--" / "2025-03-01T10-00-00-000Z_t.jsonl")
    return make_app(root, tmp_path / "cache", **kwargs)


def footer_text(app: Any) -> str:
    return lines_of(app.screen.query_one(KeyFooter))[0]


def status(app: Any) -> str:
    return app.screen.query_one("#status", FitStatic).full_text


def help_row(app: Any, title_start: str) -> str:
    """The keys the open help shows for the row whose description starts so."""
    assert isinstance(app.screen, HelpScreen)
    return next(keys for keys, what in app.screen.rows if what.startswith(title_start))


# ---------------------------------------------------------------------- pi's keys, as in pi
async def test_pis_session_list_keys_sort_filter_rename_and_delete(tmp_path: Path) -> None:
    app = make_app(sessions(tmp_path / "sessions"), tmp_path / "cache")
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await loaded(pilot)
        sidebar = screen.query_one(SessionSidebar)
        assert sidebar.order is SortOrder.RECENT
        await pilot.press("ctrl+s")  # app.session.toggleSort
        assert sidebar.order is not SortOrder.RECENT
        await pilot.press("ctrl+n")  # app.session.toggleNamedFilter
        shown = [row.summary.title for row in sidebar.session_list.rows if isinstance(row, SessionRow)]
        assert sidebar.named_only and shown == ["named one"]
        await pilot.press("ctrl+n")
        assert not sidebar.named_only
        await pilot.press("ctrl+r")  # app.session.rename
        await until(pilot, lambda: isinstance(app.screen, PromptScreen), "the rename prompt")
        assert "Session name" in app.screen.question
        await pilot.press("escape")
        await pilot.press("ctrl+d")  # app.session.delete: asks first, as pi does
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the delete question")
        assert "trash" in app.screen.question
        await pilot.press("n")
        assert len(list((tmp_path / "sessions").rglob("*.jsonl"))) == 2


async def test_pis_tree_keys_fold_and_move_by_segment_as_in_pi(tmp_path: Path) -> None:
    app = tree_app(tmp_path)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("tab")
        tree = screen.query_one(BranchTree)
        assert tree.has_focus and tree.current_id() == "a7"
        seen = []
        for key in ("ctrl+left",) * 5 + ("ctrl+right",) * 2:
            await pilot.press(key)
            seen.append((tree.current_id(), sorted(tree.folded)))
        # pi 1.6.0's tree selector, driven with the same keys over the same file:
        assert seen == [
            ("u7", []),
            ("u7", ["u7"]),
            ("u4", ["u7"]),
            ("u4", ["u4", "u7"]),
            ("u1", ["u4", "u7"]),
            ("u4", ["u4", "u7"]),
            ("u4", ["u7"]),
        ]
        await pilot.press("alt+right")  # pi's second key for it: down the branch to the next fork
        assert tree.current_id() == "u7"
        await pilot.press("alt+left")  # a segment start with rows below: folded
        assert "u7" in tree.folded


async def test_pis_tree_moves_on_an_empty_tree_do_nothing(tmp_path: Path) -> None:
    """No session to show: the keys that fold or move by segment find no row in the tree to
    act on (no crash), and the screen stays as it was."""
    root = tmp_path / "sessions"
    root.mkdir()
    async with make_app(root, tmp_path / "cache").run_test(size=(160, 40)) as pilot:
        await until(pilot, lambda: main(pilot).scanned, "the scan")
        tree = main(pilot).query_one(BranchTree)
        await pilot.press("tab")
        assert tree.has_focus and not tree.rows
        shown = screen_text(pilot.app)
        await pilot.press("ctrl+right", "ctrl+left", "alt+right", "alt+left")
        await pilot.pause()
        assert screen_text(pilot.app) == shown


async def test_pis_filter_keys_set_toggle_and_cycle_and_clear_the_folds(tmp_path: Path) -> None:
    app = tree_app(tmp_path)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("tab")
        tree = screen.query_one(BranchTree)
        await pilot.press("ctrl+left", "ctrl+left")
        assert tree.folded == {"u7"}
        views = []
        for key in ("ctrl+t", "ctrl+t", "ctrl+u", "ctrl+d", "ctrl+o", "ctrl+o", "ctrl+shift+o", "ctrl+l"):
            await pilot.press(key)
            views.append(str(tree.view))
        await pilot.press("ctrl+a")
        views.append(str(tree.view))
        assert tree.view is ViewFilter.ALL and "l1" in [row.record.id for row in tree.rows]
        await pilot.press("ctrl+a")
        views.append(str(tree.view))
        # pi's filter modes after each key (the same run of pi as above):
        assert views == [
            "no-tools",
            "default",
            "user-only",
            "default",
            "no-tools",
            "user-only",
            "no-tools",
            "labeled-only",
            "all",
            "default",
        ]
        assert tree.folded == set()  # every filter key clears the folds, as in pi
        assert "conversation view" in screen.query_one("#tree-title", FitStatic).full_text


async def test_shift_l_labels_and_ctrl_x_copies_the_entry_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The copy goes out by OSC 52 (over SSH): nothing else on PATH, no desktop.
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    for name in ("TMUX", "DISPLAY", "WAYLAND_DISPLAY", "SSH_CONNECTION", "SSH_CLIENT", "PI_CLIPBOARD_OSC52"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SSH_TTY", "/dev/pts/3")
    app = tree_app(tmp_path)
    async with app.run_test(size=(160, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("tab", "L")  # shift+l: what the terminal sends is the capital letter
        await until(pilot, lambda: isinstance(app.screen, PromptScreen), "the label prompt")
        assert "a7" in app.screen.question
        await pilot.press("escape")
        await pilot.press("ctrl+x")  # app.message.copy: the entry's text, no menu
        await until(pilot, lambda: app.clipboard == "branch two b answer", "the copy")


# ---------------------------------------------------------------------- rebinding
async def test_a_keys_override_takes_effect_and_shows_in_help_and_footer(tmp_path: Path) -> None:
    app = make_app(
        sessions(tmp_path / "sessions"),
        tmp_path / "cache",
        keys={"ui.help": "f2", "sessions.resume": ["o"], "sessions": {"sort": "ctrl+o"}},
    )
    async with app.run_test(size=(120, 30)) as pilot:
        await loaded(pilot)
        footer = footer_text(app)
        assert "f2 Help" in footer and "o Resume" in footer and "? Help" not in footer
        await pilot.press("question_mark")
        assert not isinstance(app.screen, HelpScreen)  # the default key is gone
        sidebar = app.screen.query_one(SessionSidebar)
        await pilot.press("ctrl+o")  # `sessions.sort`, written as a TOML table
        assert sidebar.order is not SortOrder.RECENT
        await pilot.press("f2")
        assert isinstance(app.screen, HelpScreen)
        assert help_row(app, "this help") == "f2"
        assert help_row(app, "resume the session") == "o"
        assert help_row(app, "sort:") == "ctrl+o, ctrl+s"  # ours rebound; pi's ctrl+s kept
        assert not [p for p in app.key_bindings.problems]


async def test_pis_keybindings_file_rebinds_the_ids_we_share(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "keybindings.json").write_text(
        json.dumps(
            {
                "app.tree.filter.cycleForward": "ctrl+g",
                "treeEditLabel": "ctrl+e",  # pi's old name for app.tree.editLabel
                "app.session.toggleSort": ["alt+s"],
                "tui.editor.undo": "ctrl+z",  # one of pi's many ids we do not have: ignored
            }
        )
    )
    app = tree_app(tmp_path, pi_agent_dir=agent, keys={"app.session.toggleSort": "alt+o"})
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)
        assert app.key_bindings.problems == []
        await pilot.press("tab")
        tree = screen.query_one(BranchTree)
        assert "ctrl+g View filter" in footer_text(app)  # the user's key, not our v
        await pilot.press("ctrl+o")
        assert tree.view is ViewFilter.DEFAULT  # pi's default key is replaced
        await pilot.press("ctrl+g")
        assert tree.view is ViewFilter.NO_TOOLS
        await pilot.press("L")
        assert not isinstance(app.screen, PromptScreen)
        await pilot.press("ctrl+e")
        await until(pilot, lambda: isinstance(app.screen, PromptScreen), "the label prompt")
        await pilot.press("escape")
        assert app.key_bindings.keys_of("app.session.toggleSort") == ("alt+o",)  # ours wins over pi's
        await pilot.press("question_mark")
        assert help_row(app, "view filter: conversation") == "v, ctrl+g"
        assert help_row(app, "label the selected entry") == "ctrl+e"


async def test_bad_overrides_are_reported_once_and_break_nothing(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "keybindings.json").write_text("{ not json")
    app = make_app(
        sessions(tmp_path / "sessions"),
        tmp_path / "cache",
        pi_agent_dir=agent,
        keys={"tree.flod": "x", "tree.fold": "ctrl+foo", "sessions.sort": "ctrl+r"},
    )
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)
        problems = app.key_bindings.problems
        assert len(problems) == 4
        assert any("keybindings.json is not valid JSON" in p for p in problems)
        assert any("unknown id 'tree.flod'" in p and "did you mean tree.fold?" in p for p in problems)
        assert any("'ctrl+foo': no key is called 'foo'" in p for p in problems)
        assert any("ctrl+r is bound to both sessions.sort and app.session.rename" in p for p in problems)
        # Once, clearly: each in full in a notice, and the status line starts with them.
        notices = [n.message for n in app._notifications]
        assert notices == ["\n".join(problems)]
        assert status(app).startswith(f"\u26a0 {problems[0]}")
        sidebar = screen.query_one(SessionSidebar)
        await pilot.press("ctrl+r")  # the user's choice won: it sorts, it does not rename
        assert sidebar.order is not SortOrder.RECENT and app.screen is screen
        await pilot.press("tab", "h")  # tree.fold keeps its default keys
        await pilot.press("q")
    assert app.return_code == 0


def test_the_command_line_prints_key_problems_once_before_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "config" / "pi-sessions"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text('[keys]\n"ui.hepl" = "h"\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    for name in ("NO_COLOR", "TEXTUAL_COLOR_SYSTEM", "TEXTUAL_ANIMATIONS"):
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    started: list[dict[str, Any]] = []
    monkeypatch.setattr(tui, "run_app", lambda *args, **kwargs: started.append(kwargs) or 0)
    assert cli.main(["--session-dir", str(tmp_path / "none")]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "unknown id 'ui.hepl'" in err[0] and "did you mean ui.help?" in err[0]
    assert started[0]["keys"].problems == [err[0].removeprefix("pi-sessions: ")]
    assert started[0]["notices"] == started[0]["keys"].problems  # and in the status line


# ---------------------------------------------------------------------- discoverable
@pytest.mark.parametrize("pane", ["sidebar", "tree", "context"])
async def test_at_80_columns_the_footer_keeps_quit_and_help(tmp_path: Path, pane: str) -> None:
    app = tree_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(pilot)
        screen.focus_pane(pane)
        await pilot.pause()
        footer = footer_text(app)
        assert footer.startswith(" q Quit  ? Help  tab Next pane") and len(footer) == 80


def _live_bindings(node_bindings: BindingsMap, keymap: dict[str, str]) -> list[tuple[str, str | None, str]]:
    bindings = node_bindings.copy()
    bindings.apply_keymap(keymap)
    return [(key, binding.id, binding.action) for key, binding in bindings]


# Textual's own bindings (focus, copy, ctrl+q, scrolling sideways): not ours to list.
TEXTUALS_OWN = {
    "app.focus_next",
    "app.focus_previous",
    "screen.copy_text",
    "quit",
    "help_quit",
    "scroll_left",
    "scroll_right",
    "page_left",
    "page_right",
}


async def test_the_help_lists_every_live_binding_and_every_glyph(tmp_path: Path) -> None:
    app = tree_app(tmp_path, keys={"tree.fold": ["h", "ctrl+h"], "ui.demo": []})
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        keymap = dict(app._keymap)
        nodes: list[Any] = [app, screen]
        nodes += [screen.query_one(t) for t in (SessionSidebar, SessionList, BranchTree, ContextBody)]
        live = [b for node in nodes for b in _live_bindings(node._bindings, keymap)]
        for dialog in (
            HelpScreen,
            RawJsonScreen,
            ConfirmScreen,
            PromptScreen,
            MenuScreen,
            ForkScreen,
            TextScreen,
            CompareScreen,
            FilesScreen,
        ):
            live += _live_bindings(dialog._merged_bindings or BindingsMap(), keymap)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        rows = app.screen.rows
        shown = {what: keys.split(", ") for keys, what in rows if what}
        ours = [
            (key, PALETTE if action == "command_palette" else binding_id)
            for key, binding_id, action in live
            if action not in TEXTUALS_OWN or binding_id is not None
        ]
        assert all(binding_id in SPEC_BY_ID for _, binding_id in ours)  # every binding has an id
        for key, binding_id in ours:
            spec = SPEC_BY_ID[binding_id]  # type: ignore[index]
            if key.startswith(UNBOUND):
                continue  # left without a key (ui.demo here): its row says "(no key)" if it has none
            assert key_label(key) in shown[spec.title], (binding_id, key)
        assert {spec.title for spec in SPECS} <= set(shown)  # clone, rename, label, delete, export...
        assert help_row(app, "fold the branch (or") == "h, ctrl+h"  # the user's keys replace ours
        assert help_row(app, "open the bundled demo") == "(no key)"
        for title in ("clone the session", "rename the session", "label the selected", "delete the session"):
            assert help_row(app, title) != "(no key)", title
        assert help_row(app, "export: the context") == "E"
        # The legend: every glyph of the set in use, each with its meaning, and the bare counts.
        assert set(GLYPH_MEANINGS) == {f.name for f in fields(Glyphs)} - NOT_MARKS
        marks = {keys for keys, what in rows if what}
        for item in fields(Glyphs):
            if item.name in NOT_MARKS:
                continue
            assert (getattr(UNICODE, item.name).strip() or "(blank)") in marks, item.name
        for mark in ("4", "32", "+12", f"{UNICODE.branches}2", f"{UNICODE.edit}2", "…"):
            assert mark in marks


async def test_the_ascii_help_shows_the_ascii_glyphs(tmp_path: Path) -> None:
    app = tree_app(tmp_path, ascii=True)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        await pilot.press("question_mark")
        marks = {keys for keys, _ in app.screen.rows}
        for glyph in ("*", "@", "%", "Y", "~", "#", "!", "x", "+", "> ".strip(), "|-", "`-", "..."):
            assert glyph in marks, glyph
        assert all(keys.isascii() and what.isascii() for keys, what in app.screen.rows)
        assert {
            getattr(ASCII, f.name).strip() or "(blank)" for f in fields(Glyphs) if f.name not in NOT_MARKS
        } <= marks


async def test_the_palette_shows_each_commands_key(tmp_path: Path) -> None:
    app = tree_app(tmp_path, keys={"sessions.exportTree": "ctrl+e"})
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        commands = {title: help_text for title, help_text, *_ in app.get_system_commands(screen)}
        assert commands["Resume in pi"].endswith("(key: r)")
        assert commands["Sessions: sort order"].endswith("(key: s, ctrl+s)")
        assert commands["Rename the session"].endswith("(key: M, ctrl+r)")
        assert commands["Export the session tree"].endswith("(key: ctrl+e)")
        assert "no key" in commands["Export the context"]
        assert commands["Jump to the active leaf"].endswith("(key: a)")
        assert commands["Cycle the tree view filter"].endswith("(key: v, ctrl+o)")
        # every action with a key is found by name, tree and context ones included
        assert commands["Unfold"].endswith("(key: right, l)")
        assert commands["Next fork point"].endswith("(key: ])")
        assert commands["Next search hit in this session"].endswith("(key: n)")
        actions = {action for _, _, action, _ in palette_commands(screen, app.key_bindings)}
        for spec in SPECS:
            if spec.place in ("app", "main", "sessions", "tree", "context") and spec.id != PALETTE:
                assert spec.action in actions, spec.id


async def test_the_palettes_own_key_is_rebound_too(tmp_path: Path) -> None:
    app = tree_app(tmp_path, keys={"ui.palette": ["f9", "ctrl+g"]})
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await loaded(pilot)
        assert "f9 Palette" in footer_text(app)
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert app.screen is screen  # Textual's default key is gone
        await pilot.press("ctrl+g")  # the second key works as well as the first
        await until(pilot, lambda: type(app.screen).__name__ == "CommandPalette", "the palette")


def test_pi_sessions_config_lists_every_id_its_keys_and_where_they_came_from(tmp_path: Path) -> None:
    from tests.helpers.config import config_home, run_process

    env = config_home(tmp_path, '[keys]\napp.session.rename = "ctrl+e"\n"tree.fodl" = "x"\n')
    agent = Path(env["PI_CODING_AGENT_DIR"])
    agent.mkdir()
    (agent / "keybindings.json").write_text('{"app.tree.filter.cycleForward": "ctrl+g"}')
    out = run_process("config", env=env)
    assert out.returncode == 0, out.stderr
    rows = {line.split()[0]: line for line in out.stdout.splitlines() if line.strip()}
    assert "ctrl+e" in rows["app.session.rename"] and "[keys] of" in rows["app.session.rename"]
    assert (
        "ctrl+g" in rows["app.tree.filter.cycleForward"]
        and "keybindings.json" in rows["app.tree.filter.cycleForward"]
    )
    assert rows["ui.help"].split()[1:3] == ["?,", "f1"] and rows["ui.help"].endswith("(default)")
    assert set(rows) >= set(SPEC_BY_ID)
    assert out.stderr.count("\n") == 1 and "unknown id 'tree.fodl'" in out.stderr
    report = json.loads(run_process("config", "--json", env=env).stdout)
    assert report["keys"]["app.session.rename"]["keys"] == ["ctrl+e"]
    assert report["keys"]["ui.quit"] == {"keys": ["q"], "source": "default", "lost": None}
    assert len(report["key_problems"]) == 1


async def test_the_first_run_text_wraps_at_80_columns_and_names_the_live_demo_key(tmp_path: Path) -> None:
    root = tmp_path / "a-rather-long-folder-name-for-the-sessions" / "that-goes-on"
    root.mkdir(parents=True)
    app = make_app(root, tmp_path / "cache", keys={"ui.demo": "ctrl+g"})
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: main(pilot).scanned, "the scan")
        session_list = main(pilot).sidebar.session_list
        shown = [line.rstrip() for line in lines_of(session_list)]
        text = " ".join(line.strip() for line in shown if line.strip())
        assert "…" not in text and "..." not in text  # wrapped, not cut
        assert "".join(line.strip() for line in shown).count(str(root)) == 1  # the path, broken at /
        assert "Press ctrl+g to open the bundled demo" in text
        assert text.endswith("new sessions appear as they are written.")
        assert max(len(line) for line in shown) <= session_list.size.width
        assert "press ctrl+g for a demo" in status(app)


async def test_fold_and_unfold_say_why_when_there_is_nothing_to_do(tmp_path: Path) -> None:
    """`h` on the leaf of a linear session used to do nothing and say nothing."""
    root = tmp_path / "sessions" / "--p--"
    write(root / "2025-01-01T00-00-00-000Z_s1.jsonl", header(), *chain(4))
    async with make_app(tmp_path / "sessions", tmp_path / "cache").run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)
        screen.focus_pane("tree")
        await pilot.press("end", "h")
        await until(pilot, lambda: "nothing to fold" in static_text(screen, "#status"), "the reason")
        await pilot.press("l")
        await until(pilot, lambda: "nothing to unfold" in static_text(screen, "#status"), "the reason")


@pytest.mark.parametrize("pane", ["sidebar", "tree", "context"])
async def test_a_rebinding_that_leaves_no_key_to_quit_keeps_q_and_says_so(tmp_path: Path, pane: str) -> None:
    # j is "down" in the lists and the context first; ctrl+q (Textual's quit) is the help now.
    app = make_app(
        sessions(tmp_path / "sessions"), tmp_path / "cache", keys={"ui.quit": "j", "ui.help": "ctrl+q"}
    )
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)
        warning = "keys: with these bindings no key would quit (ui.quit); q does, as by default"
        assert warning in status(app)
        assert [n.message for n in app._notifications] == ["\n".join(app.key_bindings.problems)]
        screen.focus_pane(pane)
        await pilot.pause()
        await pilot.press("q")
        await until(pilot, lambda: app.return_code == 0, "quit")
