"""In the app: export asks where (and never overwrites), pi's HTML export when pi is on PATH,
copy says the way it really went (or shows the text), and resume in the browser hands over
the command instead of the terminal."""

from __future__ import annotations

from pathlib import Path

import pytest
from pi_sessions.app.screens import MenuScreen
from pi_sessions.app.text_screen import TextScreen

from tests.helpers.app import loaded, make_app, static_text, until
from tests.helpers.sessions import assistant, header, user, write
from tests.helpers.stand_ins import tool


def a_session(tmp_path: Path, cwd: Path) -> Path:
    cwd.mkdir(parents=True, exist_ok=True)
    return write(
        tmp_path / "sessions" / "--p--" / "2025-03-01T10-00-00-000Z_sid.jsonl",
        header(id="sid", cwd=str(cwd)),
        user("u1", None, "hello", 1),
        assistant("a1", "u1", "hi there", 2),
    )


def status(app: object) -> str:
    return static_text(app.screen, "#status")  # type: ignore[attr-defined]


# ---------------------------------------------------------------------- export
async def test_export_asks_where_and_never_overwrites(tmp_path: Path, bin_dir: Path) -> None:
    project, here = tmp_path / "project", tmp_path / "here"
    here.mkdir()
    a_session(tmp_path, project)
    app = make_app(tmp_path / "sessions", tmp_path / "cache", cwd=str(here))
    async with app.run_test(size=(160, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("E")
        assert isinstance(app.screen, MenuScreen)
        assert [key for key, _ in app.screen.choices] == ["context", "tree"]  # no pi on PATH: no HTML
        await pilot.press("2")  # the tree
        assert isinstance(app.screen, MenuScreen)
        labels = [label for _, label in app.screen.choices]
        assert labels == [f"the session's folder: {project}", f"the current folder: {here}"]
        await pilot.press("1")
        await until(pilot, lambda: (project / "sid-tree.md").exists(), "the export in the session's folder")
        first = (project / "sid-tree.md").read_bytes()
        assert (project / "sid-tree.json").exists() and not list(here.iterdir())

        await pilot.press("E", "2", "1")  # the same again: new names, the first files untouched
        await until(pilot, lambda: (project / "sid-tree-1.md").exists(), "the second export")
        assert (project / "sid-tree.md").read_bytes() == first
        assert "sid-tree-1.md" in status(app)

        await pilot.press("E", "1", "2")  # the context, into the current folder
        await until(pilot, lambda: any(here.iterdir()), "the export in the current folder")
        assert sorted(p.name for p in here.iterdir()) == ["sid-context-a1.json", "sid-context-a1.md"]


async def test_the_context_export_is_of_the_entry_shown_not_of_the_active_leaf(
    tmp_path: Path, bin_dir: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    write(
        tmp_path / "sessions" / "--p--" / "2025-03-01T10-00-00-000Z_sid.jsonl",
        header(id="sid", cwd=str(project)),
        user("u1", None, "hello", 1),
        assistant("a1", "u1", "the side answer", 2),
        assistant("a2", "u1", "the active answer", 3),  # the last line: the active leaf
    )
    app = make_app(tmp_path / "sessions", tmp_path / "cache", cwd=str(tmp_path))
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("tab", "j")  # the active branch is drawn first: the side one below it
        await until(
            pilot, lambda: static_text(screen, "#context-title") == "Context at a1", "the side branch"
        )
        await pilot.press("E", "1", "1")  # the context, into the session's folder
        await until(pilot, lambda: (project / "sid-context-a1.md").exists(), "the export")
        text = (project / "sid-context-a1.md").read_text()
        assert "the side answer" in text and "the active answer" not in text
        assert not (project / "sid-context-a2.md").exists()


async def test_pis_html_export_runs_on_a_copy_and_lands_where_asked(tmp_path: Path, bin_dir: Path) -> None:
    calls = tmp_path / "pi-calls.txt"
    tool(
        bin_dir,
        "pi",
        f'echo "$@" > "{calls}"\n[ "$1" = --export ] || exit 9\nprintf "<html>%s</html>" "$(head -c 20 "$2")" > "$3"\n',
    )
    here = tmp_path / "here"
    here.mkdir()
    path = a_session(tmp_path, tmp_path / "project")
    before = path.read_bytes()
    app = make_app(tmp_path / "sessions", tmp_path / "cache", cwd=str(here))
    async with app.run_test(size=(160, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("E")
        assert isinstance(app.screen, MenuScreen) and [k for k, _ in app.screen.choices][-1] == "html"
        await pilot.press("3", "2")
        target = here / f"pi-session-{path.stem}.html"
        await until(pilot, lambda: "exported" in status(app), "pi's export")
        assert target.read_text() == f"<html>{before[:20].decode()}</html>"
        args = calls.read_text().split()
        assert args[0] == "--export" and args[1] != str(path) and args[2] == str(target)
        assert path.read_bytes() == before  # pi only ever saw a copy

        await pilot.press("E", "3", "2")  # again: a new file, not over the first
        await until(pilot, lambda: (here / f"pi-session-{path.stem}-1.html").exists(), "the second export")


async def test_a_failing_pi_export_leaves_nothing_behind(tmp_path: Path, bin_dir: Path) -> None:
    tool(bin_dir, "pi", 'echo "Error: cannot read it" >&2\nexit 1\n')
    here = tmp_path / "here"
    here.mkdir()
    a_session(tmp_path, tmp_path / "project")
    app = make_app(tmp_path / "sessions", tmp_path / "cache", cwd=str(here))
    async with app.run_test(size=(160, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("E", "3", "2")
        await until(pilot, lambda: "export failed" in status(app), "the failure")
        assert "Error: cannot read it" in status(app)
        assert not list(here.iterdir())


# ---------------------------------------------------------------------- copy
async def test_copy_with_the_desktop_tool_says_so(
    tmp_path: Path, bin_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sink = tmp_path / "clipboard.txt"
    tool(bin_dir, "xclip", f'cat > "{sink}"\n')
    monkeypatch.setenv("DISPLAY", ":0")
    path = a_session(tmp_path, tmp_path / "project")
    app = make_app(tmp_path / "sessions", tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("y", "2")  # the session file's path
        await until(pilot, lambda: "Copied" in status(app), "the copy")
        assert sink.read_text() == str(path)
        assert status(app) == f"Copied the session file's path ({len(str(path))} characters) with xclip."


async def test_copy_inside_tmux_goes_through_tmux(
    tmp_path: Path, bin_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sink, calls = tmp_path / "buffer.txt", tmp_path / "tmux-calls.txt"
    tool(bin_dir, "tmux", f'echo "$@" > "{calls}"\ncat > "{sink}"\n')
    monkeypatch.setenv("TMUX", "/tmp/tmux-1/default,1,0")
    monkeypatch.setenv("SSH_CONNECTION", "10.0.0.1 5000 10.0.0.2 22")
    a_session(tmp_path, tmp_path / "project")
    app = make_app(tmp_path / "sessions", tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("y", "3")  # the session id
        await until(pilot, lambda: "Copied" in status(app), "the copy")
        assert calls.read_text().split() == ["load-buffer", "-w", "-"] and sink.read_text() == "sid"
        assert "into tmux" in status(app)
        assert app.clipboard == ""  # no OSC 52 of our own: tmux would drop it


async def test_over_ssh_osc52_is_sent_and_called_what_it_is(
    tmp_path: Path, bin_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSH_TTY", "/dev/pts/3")
    a_session(tmp_path, tmp_path / "project")
    app = make_app(tmp_path / "sessions", tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("y", "3")
        await until(pilot, lambda: app.clipboard == "sid", "the OSC 52 copy")
        await until(pilot, lambda: "OSC 52" in status(app), "the notice")
        assert status(app).startswith("Sent the session id (3 characters) to the terminal's clipboard")


async def test_when_nothing_can_copy_the_text_is_shown_to_select(
    tmp_path: Path, bin_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DISPLAY", ":0")  # a desktop, but no xclip or xsel
    path = a_session(tmp_path, tmp_path / "project")
    app = make_app(tmp_path / "sessions", tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("y", "2")
        await until(pilot, lambda: isinstance(app.screen, TextScreen), "the text to select")
        assert isinstance(app.screen, TextScreen)
        assert app.screen.text == str(path)
        assert "install xclip or xsel" in app.screen.detail
        assert app.clipboard == ""  # no claim of a copy that nothing could make
        await pilot.press("escape")
        assert not isinstance(app.screen, TextScreen)
        assert "Could not copy" in status(app)


# ---------------------------------------------------------------------- served
async def test_resume_in_the_browser_shows_and_copies_the_command(tmp_path: Path, bin_dir: Path) -> None:
    calls = tmp_path / "pi-calls.txt"
    tool(bin_dir, "pi", f'echo ran > "{calls}"\n')
    project = tmp_path / "project"
    path = a_session(tmp_path, project)
    app = make_app(tmp_path / "sessions", tmp_path / "cache", served=True)
    async with app.run_test(size=(160, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, TextScreen), "the command")
        line = f"cd {project} && pi --session {path}"
        assert isinstance(app.screen, TextScreen)
        assert app.screen.text == line
        await until(pilot, lambda: app.clipboard == line, "the command copied")
        assert not calls.exists()  # pi was not run without a terminal
