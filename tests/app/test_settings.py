"""Settings and colour: config.toml, the flags that win over it, NO_COLOR, and the resume
command (its template, --here, --command, exit_on_resume)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pi_sessions.app import cli, tui

from tests.helpers.app import loaded, make_app, until
from tests.helpers.sessions import calls, header, user, write

COLOUR_ENV = ("NO_COLOR", "TEXTUAL_COLOR_SYSTEM", "COLORTERM", "TERM", "TEXTUAL_ANIMATIONS", "PI_TRUE_COLOR")


@pytest.fixture
def browser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """`pi-sessions [flags] FOLDER` up to the point where the app would start: what it would
    start with (settings, the sessions folder, the colour environment Textual reads)."""
    for name in COLOUR_ENV:
        monkeypatch.delenv(name, raising=False)  # restored afterwards, whatever the CLI sets
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))  # never the tester's own pi settings
    started: dict[str, Any] = {}

    def run_app(settings: Any, root: Any, *, open_path: str | None = None, **more: Any) -> int:
        colour = {name: os.environ.get(name) for name in ("NO_COLOR", "TEXTUAL_COLOR_SYSTEM")}
        started.update(settings=settings, root=root, open_path=open_path, **colour, **more)
        return 0

    monkeypatch.setattr(tui, "run_app", run_app)
    (tmp_path / "sessions").mkdir()
    return started


def start(tmp_path: Path, *flags: str) -> int:
    return cli.main([*flags, str(tmp_path / "sessions")])


def config(tmp_path: Path, text: str) -> None:
    folder = tmp_path / "config" / "pi-sessions"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text)


# ---------------------------------------------------------------------- colour
@pytest.mark.parametrize(
    ("flags", "env", "system", "no_color"),
    [
        (("--color", "16"), {}, "standard", False),
        (("--color", "256"), {}, "256", False),
        (("--color", "truecolor"), {}, "truecolor", False),
        (("--color", "none"), {}, None, True),
        ((), {"COLORTERM": "truecolor"}, "truecolor", False),  # auto believes a terminal that says so
        ((), {"COLORTERM": "24bit"}, "truecolor", False),
        ((), {"TERM": "linux"}, "standard", False),  # the Linux console
        ((), {"TERM": "vt220"}, "standard", False),
        ((), {"TERM": "xterm-256color"}, "256", False),  # auto: 256 colours over SSH, no COLORTERM
        ((), {"NO_COLOR": "1"}, None, True),
        (("--color", "truecolor"), {"NO_COLOR": "1"}, "truecolor", False),  # a flag overrides NO_COLOR
        ((), {"NO_COLOR": "", "TERM": "xterm-256color"}, "256", False),  # empty: no request (no-color.org)
        (
            (),
            {"PI_TRUE_COLOR": "1", "TERM": "xterm-256color"},
            "truecolor",
            False,
        ),  # pi's own switch, over SSH
        ((), {"PI_TRUE_COLOR": "0", "COLORTERM": "truecolor"}, "256", False),
        (("--color", "16"), {"PI_TRUE_COLOR": "1"}, "standard", False),  # ours, when given, wins
    ],
    ids=[
        *("16", "256", "truecolor", "none", "colorterm", "24bit", "linux", "vt220", "ssh"),
        *("no-color", "flag-over-no-color", "empty-no-color", "pi-true-color", "pi-true-color-off"),
        "flag-over-pi",
    ],
)
def test_colour_modes_reach_textual_before_it_starts(
    tmp_path: Path,
    browser: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    flags: tuple[str, ...],
    env: dict[str, str],
    system: str | None,
    no_color: bool,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert start(tmp_path, *flags) == 0
    assert (browser["TEXTUAL_COLOR_SYSTEM"], browser["NO_COLOR"] is not None) == (system, no_color)


@pytest.mark.parametrize(("setting", "env", "system"), [(True, "0", "truecolor"), (False, "1", "256")])
def test_pis_terminal_true_color_setting_decides_auto(
    tmp_path: Path,
    browser: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    setting: bool,
    env: str,
    system: str,
) -> None:
    """pi's `terminal.trueColor` wins over PI_TRUE_COLOR, as in pi (its settings override the variable)."""
    (tmp_path / "agent").mkdir()
    (tmp_path / "agent" / "settings.json").write_text(json.dumps({"terminal": {"trueColor": setting}}))
    monkeypatch.setenv("PI_TRUE_COLOR", env)
    assert start(tmp_path) == 0
    assert browser["TEXTUAL_COLOR_SYSTEM"] == system


# ---------------------------------------------------------------------- config.toml
def test_config_file_is_read_and_flags_win(tmp_path: Path, browser: dict[str, Any]) -> None:
    config(
        tmp_path,
        'resume_command = "mypi --resume {id}"\nexit_on_resume = true\ncolor = "16"\nascii = true\n'
        'poll = true\nsession_dir = "~/elsewhere"\n',
    )
    assert start(tmp_path) == 0
    settings = browser["settings"]
    assert (settings.resume_command, settings.exit_on_resume, settings.ascii, settings.poll) == (
        "mypi --resume {id}",
        True,
        True,
        True,
    )
    assert settings.session_dir == "~/elsewhere" and browser["TEXTUAL_COLOR_SYSTEM"] == "standard"
    assert start(tmp_path, "--color", "256", "--resume-command", "other {path}") == 0
    assert browser["TEXTUAL_COLOR_SYSTEM"] == "256" and browser["settings"].resume_command == "other {path}"


def test_config_session_dir_is_where_the_browser_looks(
    tmp_path: Path, browser: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    config(tmp_path, 'session_dir = "~/my-sessions"\n')
    assert cli.main([]) == 0
    assert browser["root"].path == str(tmp_path / "home" / "my-sessions")


@pytest.mark.parametrize(
    "text",
    ['color = "purple"\n', "exit_on_resume = [1\n", "resume_command = 5\n"],
    ids=["value", "toml", "type"],
)
def test_an_unusable_config_file_says_why_and_the_defaults_are_used(
    tmp_path: Path, browser: dict[str, Any], capsys: pytest.CaptureFixture[str], text: str
) -> None:
    config(tmp_path, text)
    assert start(tmp_path) == 0
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("pi-sessions: ") and "config.toml" in line
    assert line.endswith(("; using the default", "; using the defaults"))
    settings = browser["settings"]
    assert (settings.color, settings.exit_on_resume, settings.resume_command) == (
        "auto",
        False,
        "pi --session {path}",
    )


# ---------------------------------------------------------------------- resume, from the command line
def resume(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pi_sessions.app.cli", "resume", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture
def project_session(tmp_path: Path) -> tuple[Path, Path]:
    project_dir = tmp_path / "my project"
    project_dir.mkdir()
    path = write(tmp_path / "s.jsonl", header(id="sid-1", cwd=str(project_dir)), user("u1", None, "hello"))
    return project_dir, path


def test_resume_template_fills_path_cwd_and_id(
    tmp_path: Path, fake_pi: Path, project_session: tuple[Path, Path]
) -> None:
    project_dir, path = project_session
    config_home = tmp_path / "config"
    (config_home / "pi-sessions").mkdir(parents=True)
    (config_home / "pi-sessions" / "config.toml").write_text(
        'resume_command = "pi --id={id} --in {cwd} {path}"\n'
    )
    env = {"XDG_CONFIG_HOME": str(config_home)}
    out = resume(str(path), "--print", cwd=tmp_path, env=env)
    assert out.stdout == f"cd '{project_dir}' && pi --id=sid-1 --in '{project_dir}' {path}\n"
    out = resume(str(path), cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stderr
    assert calls(fake_pi) == [[str(project_dir), "--id=sid-1", "--in", str(project_dir), str(path)]]


def test_resume_command_flag_and_here(
    tmp_path: Path, fake_pi: Path, project_session: tuple[Path, Path]
) -> None:
    project_dir, path = project_session
    here = tmp_path / "here"
    here.mkdir()
    env = {"XDG_CONFIG_HOME": str(tmp_path / "no-config")}
    out = resume(str(path), "--command", "pi --resume {id}", cwd=here, env=env)
    assert out.returncode == 0, out.stderr
    out = resume(str(path), "--here", cwd=here, env=env)
    assert out.returncode == 0, out.stderr
    assert calls(fake_pi) == [[str(project_dir), "--resume", "sid-1"], [str(here), "--session", str(path)]]
    out = resume(str(path), "--here", "--print", cwd=here, env=env)
    assert out.stdout == f"cd {here} && pi --session {path}\n"


def test_resume_refuses_a_vanished_directory_unless_here(tmp_path: Path, fake_pi: Path) -> None:
    path = write(
        tmp_path / "s.jsonl", header(id="sid-2", cwd=str(tmp_path / "gone")), user("u1", None, "hello")
    )
    out = resume(str(path), cwd=tmp_path)
    assert out.returncode == 2 and "no longer exists" in out.stderr and "--here" in out.stderr
    assert len(out.stderr.splitlines()) == 1 and calls(fake_pi) == []
    assert resume(str(path), "--here", cwd=tmp_path).returncode == 0
    assert calls(fake_pi) == [[str(tmp_path), "--session", str(path)]]


# ---------------------------------------------------------------------- resume, from the browser
async def test_resume_in_the_app_fills_the_template_and_exit_on_resume_quits(
    tmp_path: Path, fake_pi: Path, project_session: tuple[Path, Path]
) -> None:
    project_dir, path = project_session
    root = tmp_path / "sessions"
    root.mkdir()
    moved = root / path.name
    path.rename(moved)
    app = make_app(
        root, tmp_path / "cache", resume_command="pi {path} --cwd {cwd} --id {id}", exit_on_resume=True
    )
    async with app.run_test(size=(120, 30)) as pilot:
        await loaded(pilot)
        await pilot.press("r")
        await until(pilot, lambda: calls(fake_pi), "pi to run")
        await until(pilot, lambda: not app.is_running, "the app to quit")
    assert calls(fake_pi) == [[str(project_dir), str(moved), "--cwd", str(project_dir), "--id", "sid-1"]]


@pytest.mark.parametrize(
    ("env", "links"),
    [
        ({}, False),  # an unknown terminal: a link it swallows would hide the path
        ({"TERM_PROGRAM": "WezTerm"}, True),
        ({"KITTY_WINDOW_ID": "1"}, True),
        ({"WT_SESSION": "x"}, True),
        ({"TERM_PROGRAM": "vscode", "TMUX": "/tmp/tmux"}, False),  # tmux may not pass them on
        ({"TERM": "screen-256color", "TERM_PROGRAM": "kitty"}, False),
        ({"PI_HYPERLINKS": "1", "TMUX": "/tmp/tmux"}, True),  # pi's switch says so
        ({"PI_HYPERLINKS": "0", "TERM_PROGRAM": "kitty"}, False),
    ],
)
def test_links_where_pi_would_draw_them(tmp_path: Path, env: dict[str, str], links: bool) -> None:
    from pi_sessions.app.config import terminal_hyperlinks

    assert terminal_hyperlinks({"PI_CODING_AGENT_DIR": str(tmp_path), **env}, cwd=str(tmp_path)) is links
    (tmp_path / "settings.json").write_text(json.dumps({"terminal": {"hyperlinks": not links}}))
    assert terminal_hyperlinks({"PI_CODING_AGENT_DIR": str(tmp_path), **env}, cwd=str(tmp_path)) is (
        not links
    )
