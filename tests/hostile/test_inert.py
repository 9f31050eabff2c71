"""Session text is inert at one boundary: no byte of a session (or of a file name) reaches the
terminal raw, in the browser or in the readable command line, and no odd file hides others.

The hostile session (tests/evil.py) holds ESC/OSC/CSI/BEL, C1, bidi and zero-width
characters, lone surrogates and markup in every string field. Every screen and pane is drawn
over it and what the compositor would send is scanned; every readable CLI form is run on it.
A source check keeps the boundary the only way text reaches a Strip, a widget or stdout.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
from pathlib import Path

import pytest
from pi_sessions.app.help_screen import HelpScreen
from pi_sessions.app.main_screen import MainScreen
from pi_sessions.app.screens import (
    ConfirmScreen,
    ForkScreen,
    MenuScreen,
    PromptScreen,
    RawJsonScreen,
)
from pi_sessions.core.common.glyphs import ASCII
from pi_sessions.core.common.text import inline, is_inert, one_line, visible, without_controls
from pi_sessions.core.listing.store import SessionStore, list_sessions
from pi_sessions.core.session.outline import ViewFilter
from pi_sessions.widgets.plain import PlainInput

from tests.helpers.app import Scanner, loaded, make_app, until
from tests.helpers.cli import RAW_CONTROL, cli, raw_controls
from tests.helpers.evil import ESC_SHOWN, MARKUP_SHOWN, evil, hostile_lines, hostile_session
from tests.helpers.sessions import header, user, write

REPO = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------- the sanitiser
@pytest.mark.parametrize(
    "raw, shown",
    [
        ("\x1b]0;t\x07", "\u241b]0;t\u2407"),  # C0 as control pictures
        ("\x00\x08\x7f", "\u2400\u2408\u2421"),  # NUL, backspace, DEL
        ("\x9b2J\x9d", "<9b>2J<9d>"),  # C1: 8-bit CSI and OSC
        ("a\u202eb\u2066c\u200fd", "a<U+202E>b<U+2066>c<U+200F>d"),  # bidi override, isolate, mark
        ("\u200b\u200d\ufeff\U000e0041", "<U+200B><U+200D><U+FEFF><U+E0041>"),  # zero width, tags
        ("\ud800x\udfff", "<U+D800>x<U+DFFF>"),  # lone surrogates
        ("[bold]x[/] [link=y]z[/link]", "[bold]x[/] [link=y]z[/link]"),  # markup is only text
        ("ünïcødé 日本 🙂", "ünïcødé 日本 🙂"),
    ],
)
def test_every_control_becomes_a_visible_placeholder(raw: str, shown: str) -> None:
    for sanitise in (visible, inline, one_line):
        assert sanitise(raw) == shown
        assert not RAW_CONTROL.search(sanitise(raw))


def test_newlines_are_kept_in_text_and_become_spaces_in_one_line_fields() -> None:
    text = "first\r\nsecond\n\tindented\rover\x0bvt\u2028sep"
    assert visible(text) == "first\nsecond\n\tindented\u240dover\u240bvt<U+2028>sep"
    assert inline(text) == "first  second  indented over vt sep"  # one space each: layout kept
    assert one_line(text) == "first second indented over vt sep"  # runs folded
    assert without_controls("na\x1b[2Jme\n2\u202e") == "na[2Jme 2"
    assert is_inert("plain [text]") and not is_inert("a\nb") and not is_inert("\x9b")


def test_ascii_mode_placeholders_are_ascii() -> None:
    assert visible("\x1b[2J\x7f\x9b", glyphs=ASCII) == "<1b>[2J<7f><9b>"
    assert one_line("\x1b" + "x" * 20, 10, glyphs=ASCII) == "<1b>xxx..."
    assert visible("\x1b") == "\u241b"


# ---------------------------------------------------------------------- the boundary, in the source
BROWSER_BOUNDARY = (REPO / "widgets" / "plain.py", REPO / "widgets" / "plain_views.py")
CLI_BOUNDARY = REPO / "app" / "subcommands" / "output.py"
ALLOWED_RICH = {
    "rich.style": {"Style"},
    "rich.console": {"Console"},
    "rich.cells": {"cell_len", "set_cell_size"},
}
ALLOWED_WIDGETS = {"Footer", "OptionList"}  # OptionList only as a type: building one is plain.menu's job
BANNED_TEXTUAL = {
    "Content",
    "Notification",
    "Notify",
    "Static",
    "Label",
    "Input",
    "Log",
    "RichLog",
    "Option",
    "Toast",
}
BANNED_MODULES = ("textual.content", "textual.markup", "textual.visual", "textual.renderables", "rich.markup")
BANNED_CALLS = {"Strip", "OptionList", "print"}
BANNED_METHODS = {"render_lines", "render_str", "from_markup", "from_ansi", "print"}
BANNED_ATTRIBUTES = {"border_title", "border_subtitle", "tooltip", "sub_title"}


def boundary_violations(source: str, *, browser: bool = True, printer: bool = True) -> list[str]:
    """Where `source` could put text on the screen or stdout without the boundary."""
    found: list[str] = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        where = f"line {getattr(node, 'lineno', '?')}"
        if browser and isinstance(node, ast.ImportFrom) and node.module:
            module, names = node.module, {a.name for a in node.names}
            if module.startswith("rich"):
                extra = names - ALLOWED_RICH.get(module, set())
                if extra:
                    found.append(f"{where}: from {module} import {sorted(extra)}")
            elif module.startswith(BANNED_MODULES):
                found.append(f"{where}: from {module} import ...")
            elif module.startswith("textual.widgets") and names - ALLOWED_WIDGETS:
                found.append(f"{where}: from {module} import {sorted(names - ALLOWED_WIDGETS)}")
            elif module.startswith("textual") and names & BANNED_TEXTUAL:
                found.append(f"{where}: from {module} import {sorted(names & BANNED_TEXTUAL)}")
        elif browser and isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(("rich", *BANNED_MODULES, "textual.widgets")):
                    found.append(f"{where}: import {alias.name}")
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in BANNED_CALLS and (browser or func.id == "print"):
                found.append(f"{where}: {func.id}(...)")
            elif browser and isinstance(func, ast.Attribute) and func.attr in BANNED_METHODS:
                found.append(f"{where}: .{func.attr}(...)")
            for keyword in node.keywords:
                if keyword.arg == "markup" and not (
                    isinstance(keyword.value, ast.Constant) and keyword.value.value is False
                ):
                    found.append(f"{where}: markup=... (only markup=False)")
        elif isinstance(node, ast.Attribute):
            base = node.value
            if (
                printer
                and isinstance(base, ast.Name)
                and base.id == "sys"
                and node.attr
                in (
                    "stdout",
                    "stderr",
                    "__stdout__",
                    "__stderr__",
                )
            ):
                found.append(f"{where}: sys.{node.attr}")
            elif printer and isinstance(base, ast.Name) and base.id == "os" and node.attr == "write":
                found.append(f"{where}: os.write")
            elif browser and node.attr in BANNED_ATTRIBUTES and isinstance(node.ctx, ast.Store):
                found.append(f"{where}: .{node.attr} = ...")
        elif browser and isinstance(node, ast.FunctionDef) and node.name == "render":
            found.append(f"{where}: def render (a str it returns is read as markup)")
    return found


def test_the_boundary_check_catches_each_way_around_it() -> None:
    bypasses = [
        "from rich.segment import Segment",
        "from rich.text import Text",
        "import rich.markup",
        "from textual.widgets import Static",
        "from textual.widgets import Label, Footer",
        "from textual.content import Content",
        "Strip([seg])",
        "OptionList('x')",
        "print(name)",
        "sys.stdout.write(name)",
        "sys.stderr.buffer.write(b'')",
        "os.write(1, data)",
        "self.notify(name, markup=True)",
        "console.render_lines(text)",
        "Text.from_markup(name)",
        "self.border_title = name",
        "class W:\n    def render(self):\n        return name",
    ]
    for code in bypasses:
        assert boundary_violations(code), code
    for code in (
        "from rich.style import Style",
        "Strip.blank(3)",
        "plain.line(x)",
        "self.notify(x, markup=False)",
    ):
        assert not boundary_violations(code), code


def test_widgets_and_screens_draw_text_only_through_the_boundary() -> None:
    files = sorted((REPO / "widgets").rglob("*.py")) + sorted((REPO / "app").rglob("*.py"))
    problems = []
    for path in files:
        if path in (*BROWSER_BOUNDARY, CLI_BOUNDARY):
            continue
        for problem in boundary_violations(path.read_text()):
            problems.append(f"{path.relative_to(REPO)} {problem}")
    assert not problems, "text must reach the screen through widgets/plain.py:\n" + "\n".join(problems)


def test_the_command_line_prints_only_through_output_py() -> None:
    files = [REPO / "app" / "cli.py", *sorted((REPO / "app" / "subcommands").glob("*.py"))]
    problems = []
    for path in files:
        if path == CLI_BOUNDARY:
            continue
        for problem in boundary_violations(path.read_text(), browser=False):
            problems.append(f"{path.relative_to(REPO)} {problem}")
    assert not problems, "readable lines go through app/subcommands/output.py:\n" + "\n".join(problems)


# ---------------------------------------------------------------------- the browser
def digest(folder: Path) -> dict[str, str]:
    return {
        os.fsdecode(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.rglob("*") if p.is_file()
    }


async def test_every_screen_and_pane_shows_a_hostile_session_inert(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path = hostile_session(root)
    (path.parent / "\x1b]0;JUNK\x07\x9b.jsonl").write_bytes(b"\x1b[2J not json\n")  # a skipped file
    before = digest(root)
    ids = [line["id"] for line in hostile_lines()[1:]]
    app = make_app(root, tmp_path / "cache", resume_command="definitely-not-a-real-pi --session {path}")
    async with app.run_test(size=(200, 60), notifications=True, tooltips=True) as pilot:
        screen = await loaded(pilot)
        scan = Scanner(app, pilot)
        first = await scan("the first screen")
        assert ESC_SHOWN in first and MARKUP_SHOWN in first  # drawn, visibly, and not as markup

        # Every row of the tree, in every view filter, with its context.
        screen.focus_pane("tree")
        await pilot.pause()
        tree = screen.branch_tree
        for _ in ViewFilter:
            await pilot.press("v")
            await scan(f"the tree in the {tree.view} view")
            if tree.view is ViewFilter.ALL:
                break
        assert tree.view is ViewFilter.ALL and tree.row_count == len(ids)
        for index in range(tree.row_count):
            tree.move_cursor(index)
            await scan(f"tree row {index} and its context")

        # What is not in context (x), and every block expanded, at the deepest leaf.
        assert tree.select(ids[-2])  # the last context edit: summarized, omitted, replaced entries
        await pilot.press("x")
        await scan("excluded entries shown")
        screen.focus_pane("context")
        await pilot.pause()
        body = screen.context_view.body
        for index in range(len(body.blocks)):
            body.current = index
            body.action_toggle_block()
            await scan(f"context block {index} expanded")
        await pilot.press("x")

        # The raw JSON of every entry.
        screen.focus_pane("tree")
        await pilot.pause()
        for index in range(tree.row_count):
            tree.move_cursor(index)
            await pilot.press("i")
            await until(pilot, lambda: isinstance(app.screen, RawJsonScreen), "the raw JSON view")
            raw = await scan(f"raw JSON of row {index}")
            assert "\\u001b]0;PWNED\\u0007" in raw  # as JSON escapes it, exactly
            await pilot.press("escape")

        # Help, menus, the fork preview, confirmations and prompts pre-filled from the file.
        assert tree.select(ids[1])  # the labelled entry: its label pre-fills the label prompt
        dialogs = [
            ("question_mark", HelpScreen),
            ("y", MenuScreen),
            ("E", MenuScreen),
            ("D", ConfirmScreen),
            ("f", ForkScreen),
            ("M", PromptScreen),
            ("L", PromptScreen),
        ]
        for key, kind in dialogs:
            await pilot.press(key)
            await until(
                pilot,
                lambda kind=kind: isinstance(app.screen, kind),  # type: ignore[misc]  # (mypy cannot infer a lambda with a default argument)
                f"the {kind.__name__} of {key}",
            )
            await scan(f"the {kind.__name__} of {key}")
            if kind is ForkScreen:
                await pilot.press("c")  # fork into another directory: a prompt holding the cwd
                await until(pilot, lambda: isinstance(app.screen, PromptScreen), "the directory prompt")
                await scan("the fork directory prompt")
            for field in app.screen.query(PlainInput):  # name, label, cwd: without their controls
                assert field.value and not RAW_CONTROL.search(field.value), (key, field.value)
            await pilot.press("escape")
            await until(pilot, lambda: app.screen is screen, "back to the main screen")

        # Resume: the session's directory is gone (a menu naming it); then pi is not on PATH.
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the missing directory menu")
        assert "cwd" in await scan("the missing directory menu")
        await pilot.press("1")  # continue here: the command is not found, said in a notification
        await until(pilot, lambda: "not on PATH" in str(screen.query_one("#status").render()), "the status")
        await scan("resume: not found, status and notification")

        # Notifications, from the app and from any widget, whatever they carry.
        app.notify(evil("toast"), title=evil("toast-title"), markup=True)
        tree.notify(evil("widget-toast"))
        await until(pilot, lambda: len(app.screen.query("Toast")) >= 3, "the toasts")
        shown = await scan("notifications")
        assert "[bold]toast[/]" in shown and "[bold]widget-toast[/]" in shown, shown

        # Typed or pasted into the search fields; a session that cannot be opened.
        screen.sidebar.action_search()
        screen.sidebar.search_input.value = evil("typed")
        assert not RAW_CONTROL.search(screen.sidebar.search_input.value)
        await scan("a hostile search typed in the sidebar")
        screen.sidebar.action_clear_search()
        screen.open_session(str(tmp_path / "\x1b]0;GONE\x07.jsonl"))
        await until(pilot, lambda: screen.session is None, "the failed open")
        await scan("a session that cannot be opened")
        assert isinstance(app.screen, MainScreen)
    assert digest(root) == before  # nothing was written


# ---------------------------------------------------------------------- the command line
def test_every_readable_command_line_form_is_inert(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("NO_COLOR", "TEXTUAL_COLOR_SYSTEM", "TEXTUAL_ANIMATIONS"):
        monkeypatch.delenv(name, raising=False)  # the browser's start sets them; restored after
    root = tmp_path / "sessions"
    path = hostile_session(root)
    junk = path.parent / "\x1b]0;JUNK\x07\x9b.jsonl"
    junk.write_bytes(b"\x1b[2J not json\n")
    before = digest(root)
    ids = [line["id"] for line in hostile_lines()[1:]]
    session, template = str(path), "pi --session {path} --cwd {cwd} --id {id}"
    runs = {
        "list": cli("list", "--session-dir", str(root), "--no-cache"),
        "tree": cli("tree", session),
        "context": cli("context", session),
        "context --leaf": cli("context", session, f"--leaf={ids[-2]}"),
        "context --all": cli("context", session, "--all"),
        "fork --dry-run": cli("fork", session, f"--leaf={ids[3]}", "--dry-run"),
        "fork --dry-run --cwd": cli(
            "fork",
            session,
            f"--leaf={ids[3]}",
            f"--cwd={tmp_path / evil('cwd')}",
            "--dry-run",
            f"--session-dir={tmp_path / 'elsewhere'}",
        ),
        "resume --print": cli("resume", session, "--print", f"--command={template}"),
        "error: resume into a missing directory": cli("resume", session, f"--command={template}"),
        "error: no such file": cli("tree", str(root / "\x1b]0;NOPE\x07\x9b.jsonl")),
        "error: not a session": cli("context", str(junk)),
        "error: no such entry": cli("context", session, f"--leaf={evil('nope')}"),
        "error: fork at no such entry": cli("fork", session, f"--leaf={evil('nope')}", "--dry-run"),
        "error: the browser on no such file": cli(str(root / "\x1b]0;NOPE\x07.jsonl")),
    }
    for what, run in runs.items():
        assert run.code == (2 if what.startswith("error") else 0), (what, run.stderr)
        assert run.out or run.err, what
        assert not raw_controls(run.stdout), (what, raw_controls(run.stdout)[:5])
        assert not raw_controls(run.stderr), (what, raw_controls(run.stderr)[:5])
        if what.startswith("error"):
            assert len(run.stderr.splitlines()) == 1 and not run.out, (what, run.stderr)
    for what in ("list", "tree", "context", "context --all"):
        assert ESC_SHOWN in runs[what].stdout, what
    # the printed command is one the shell reads back exactly: controls as $'...' escapes
    assert "\\x1b]0;PWNED\\x07" in runs["resume --print"].stdout
    assert MARKUP_SHOWN in runs["tree"].stdout and "skipped" in runs["list"].stderr
    # JSON stays exact: the same strings, escaped by JSON itself.
    tree = json.loads(cli("tree", session, "--json").out)
    assert tree["header"]["id"] == evil("header-id") and tree["entry_ids"] == ids
    assert digest(root) == before


# ---------------------------------------------------------------------- odd files hide nothing
def test_a_symlink_loop_is_skipped_with_its_reason_and_hides_no_other_session(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    folder = root / "--p--"
    folder.mkdir(parents=True)
    names = [f"2025-03-0{i}T10-00-00-000Z_s{i}.jsonl" for i in range(1, 7)]
    for i, name in enumerate(names):
        write(folder / name, header(id=f"s{i}"), user("u", None, f"session {i}"))
    (folder / "0-loop.jsonl").symlink_to("0-loop.jsonl")  # ELOOP on every look at it
    (root / "top-loop.jsonl").symlink_to("top-loop.jsonl")
    (folder / "dangling.jsonl").symlink_to("nowhere.jsonl")  # not a file: not listed at all
    for use_cache in (False, True, True):  # cold, then from the index cache
        listing = list_sessions(str(root), use_cache=use_cache, cache_dir=str(tmp_path / "cache"))
        assert sorted(Path(s.path).name for s in listing.summaries) == sorted(names)
        skipped = {Path(p).name: why for p, why in listing.skipped}
        assert set(skipped) == {"0-loop.jsonl", "top-loop.jsonl"}
        assert all("symbolic links" in why for why in skipped.values()), skipped
    store = SessionStore(root, cache_dir=tmp_path / "cache")
    store.scan()
    store.update(str(folder / "0-loop.jsonl"))  # the watcher reports a change to it: still skipped
    assert len(store.listing().summaries) == 6 and len(store.listing().skipped) == 2
    out = cli("list", "--session-dir", str(root), "--no-cache")
    skipped_lines = [line for line in out.stderr.splitlines() if line.startswith("skipped ")]
    assert out.code == 0 and out.stdout.count("session ") == 6 and len(skipped_lines) == 2


def test_a_key_holding_a_lone_surrogate_is_shown_not_raised(tmp_path: Path) -> None:
    # Found by the fuzz test: JSON allows "\ud800" in a key; kept like any other extra field.
    from pi_sessions.core.reading.entries import MessageEntry, UnknownMessage, parse_entry, parse_message

    entry = parse_entry({"type": "message", "id": "a", "t\ud800": 1, "message": 3})
    assert isinstance(entry, MessageEntry) and entry.extras() == {"t\ud800": 1}
    assert (
        isinstance(entry.message, UnknownMessage)
        and entry.message.problem == "expected an object, got a number"
    )
    assert parse_message({"role": "user", "x\udfff": 2, "content": []}) is not None
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        json.dumps(header()).encode()
        + b'\n{"type":"message","id":"a","parentId":null,"timestamp":"x","k\\ud800":1,'
        + b'"message":{"role":"user","content":[{"type":"text","text":"hi","b\\udfff":0}],"m\\ud800":1}}\n'
    )
    for args in (("tree", str(path)), ("context", str(path), "--all")):
        result = cli(*args)
        assert result.code == 0 and not raw_controls(result.stdout), (args, result.stderr)
