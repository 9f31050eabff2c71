"""Settings: config.toml problems are reported once, `pi-sessions config` says where every value
came from, the theme follows pi's when ours is unset; --version, --help and --no-mouse."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from pi_sessions.app import arguments, cli, tui
from pi_sessions.app.config import read_settings, resolve_theme

from tests.helpers.app import until
from tests.helpers.config import config_home, run_process
from tests.helpers.sessions import header, user, write


# ---------------------------------------------------------------------- reading the file
def test_unknown_keys_are_reported_and_keys_table_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        'ascii = true\ncolour = "none"\nthme = "light"\n[keys]\n"app.session.delete" = ["ctrl+d", "D"]\n'
    )
    loaded = read_settings(path, env={})
    assert loaded.settings.ascii is True
    assert loaded.settings.keys == {"app.session.delete": ["ctrl+d", "D"]}
    line = loaded.problem_line()
    assert line is not None and "\n" not in line
    assert "'colour'" in line and "'thme'" in line and "'keys'" not in line


def test_a_bad_value_costs_only_its_own_key(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('color = "loud"\nascii = true\n')
    loaded = read_settings(path, env={})
    assert loaded.settings.ascii is True and loaded.settings.color == "auto"
    assert loaded.problems == [
        f"{path}: color: Input should be 'auto', 'truecolor', '256', '16' or 'none'; using the default"
    ]
    assert loaded.source("ascii").kind == "file" and loaded.source("color").kind == "default"


@pytest.mark.parametrize(("config", "pydantic_needed"), [(None, False), ('color = "16"\n', True)])
def test_without_a_config_file_the_browser_starts_without_pydantic(
    tmp_path: Path, config: str | None, pydantic_needed: bool
) -> None:
    # (pydantic costs ~50 ms of the first screen; only a file's values need checking by it)
    if config is not None:
        (tmp_path / "pi-sessions").mkdir()
        (tmp_path / "pi-sessions" / "config.toml").write_text(config)
    code = (
        "import sys\n"
        "from pi_sessions.app import cli, main_screen, tui\n"
        "from pi_sessions.app.config import read_settings\n"
        "loaded = read_settings()\n"
        "print(loaded.file_found, loaded.settings.color, 'pydantic' in sys.modules)\n"
    )
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    expected = f"{config is not None} {'16' if config else 'auto'} {pydantic_needed}"
    assert out.stdout.split() == expected.split()


def test_an_unreadable_file_means_defaults_and_one_line(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("ascii = \n")
    loaded = read_settings(path, env={})
    assert loaded.settings.ascii is False
    assert len(loaded.problems) == 1 and "using the defaults" in loaded.problems[0]


def test_no_color_is_an_environment_source_a_file_overrides_it(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("")
    from_env = read_settings(path, env={"NO_COLOR": "1"})
    assert from_env.settings.color == "none" and from_env.source("color").describe() == "environment NO_COLOR"
    assert read_settings(path, env={"NO_COLOR": ""}).settings.color == "auto"  # empty means unset
    path.write_text('color = "256"\n')
    assert read_settings(path, env={"NO_COLOR": "1"}).settings.color == "256"


def test_a_console_or_a_non_utf8_locale_gets_ascii_by_itself(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("")
    utf8 = {"TERM": "xterm-256color", "LANG": "en_US.UTF-8"}
    assert read_settings(path, env=utf8).settings.ascii is False
    assert read_settings(path, env={"TERM": "xterm"}).settings.ascii is False  # no locale says nothing
    for env, why in (
        ({**utf8, "TERM": "linux"}, "TERM=linux"),
        ({**utf8, "TERM": "vt100"}, "TERM=vt100"),
        ({"TERM": "xterm", "LANG": "C"}, "LANG=C"),
        ({**utf8, "LC_ALL": "de_DE.ISO-8859-1"}, "LC_ALL=de_DE.ISO-8859-1"),
        ({**utf8, "LC_CTYPE": "POSIX"}, "LC_CTYPE=POSIX"),
    ):
        loaded = read_settings(path, env=env)
        assert loaded.settings.ascii is True, env
        assert loaded.source("ascii").describe() == f"environment {why}"
    assert read_settings(path, env={"TERM": "xterm", "LC_ALL": "C.utf8", "LANG": "C"}).settings.ascii is False
    path.write_text("ascii = false\n")  # the file wins over the guess
    assert read_settings(path, env={"TERM": "linux"}).settings.ascii is False


def test_the_warning_is_printed_once_before_the_app_and_shown_in_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, value in config_home(tmp_path, 'bogus = 1\n[keys]\n"sessions.sort" = "o"\n').items():
        monkeypatch.setenv(name, value)
    for name in ("NO_COLOR", "TEXTUAL_COLOR_SYSTEM", "TEXTUAL_ANIMATIONS"):
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    started: list[dict[str, Any]] = []
    monkeypatch.setattr(tui, "run_app", lambda *args, **kwargs: started.append(kwargs) or 0)
    assert cli.main(["--session-dir", str(tmp_path / "none"), "--no-mouse"]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'bogus'" in err and "'keys'" not in err
    assert started and started[0]["notices"] == [err.strip().removeprefix("pi-sessions: ")]


async def test_the_app_shows_the_config_warning_in_its_status(tmp_path: Path) -> None:
    from pi_sessions.app.config import Settings
    from pi_sessions.core.common.locations import SessionsRoot

    root = tmp_path / "sessions"
    write(root / "--p--" / "s.jsonl", header(id="s1", cwd="/p"), user("u1", None, "hello"))
    app = tui.PiSessionsApp(
        Settings(),
        SessionsRoot(str(root), "test", True),
        current_cwd="/nowhere",
        cache_dir=str(tmp_path / "cache"),
        notices=["config.toml: unknown setting 'bogus' ignored"],
    )
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: "'bogus'" in str(app.screen.query_one("#status").render()), "the warning")


# ---------------------------------------------------------------------- pi-sessions config
def test_config_says_where_each_value_came_from(tmp_path: Path) -> None:
    env = config_home(tmp_path, 'resume_command = "pi -c {path}"\nfrobnicate = true\n')
    env["NO_COLOR"] = "1"
    out = run_process("config", "--ascii", env=env)
    assert out.returncode == 0, out.stderr
    config_file = str(tmp_path / "config" / "pi-sessions" / "config.toml")
    rows = {line.split()[0]: line for line in out.stdout.splitlines()[2:] if line.strip()}
    assert rows["resume_command"].endswith(config_file) and '"pi -c {path}"' in rows["resume_command"]
    assert rows["ascii"].endswith("flag --ascii")
    assert rows["color"].endswith("environment NO_COLOR")
    assert rows["poll"].endswith("default")
    assert out.stderr.count("\n") == 1 and "'frobnicate'" in out.stderr

    out = run_process("config", "--json", "--theme", "light", env=env)
    report = json.loads(out.stdout)
    assert report["config_file"] == config_file and report["config_file_found"] is True
    assert report["settings"]["resume_command"] == {
        "value": "pi -c {path}",
        "source": "file",
        "where": config_file,
    }
    assert report["settings"]["theme"] == {"value": "light", "source": "flag", "where": "--theme light"}
    assert report["settings"]["color"]["source"] == "environment"
    assert report["theme"]["appearance"] == "light"
    assert report["sessions_folder"]["path"] == str(tmp_path / "agent" / "sessions")
    assert any("frobnicate" in p for p in report["problems"])


# ---------------------------------------------------------------------- themes
def pi_settings(folder: Path, data: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.json").write_text(json.dumps(data))


def test_theme_follows_pi_when_ours_is_unset(tmp_path: Path) -> None:
    agent, project = tmp_path / "agent", tmp_path / "project"
    env = {"PI_CODING_AGENT_DIR": str(agent)}
    assert resolve_theme(None, env, str(project)).appearance == "dark"  # nobody set one
    pi_settings(agent, {"theme": "light"})
    choice = resolve_theme(None, env, str(project))
    assert choice.appearance == "light" and str(agent / "settings.json") in choice.why
    assert resolve_theme("dark", env, str(project)).appearance == "dark"  # ours wins
    pi_settings(project / ".pi", {"theme": "dark"})  # the project's settings win over the agent's
    assert resolve_theme(None, env, str(project)).appearance == "dark"


def test_pis_system_pairs_and_custom_themes(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    env = {"PI_CODING_AGENT_DIR": str(agent)}
    cwd = str(tmp_path)
    pi_settings(agent, {"theme": "solarized/monokai"})  # pi's light/dark pair
    (agent / "themes").mkdir()
    (agent / "themes" / "solarized.json").write_text(json.dumps({"name": "solarized", "appearance": "light"}))
    (agent / "themes" / "monokai.json").write_text(json.dumps({"name": "monokai", "appearance": "dark"}))
    assert resolve_theme(None, {**env, "COLORFGBG": "0;15"}, cwd).appearance == "light"
    assert resolve_theme(None, {**env, "COLORFGBG": "15;0"}, cwd).appearance == "dark"
    pi_settings(agent, {"theme": "system"})
    assert resolve_theme(None, {**env, "COLORFGBG": "0;default;7"}, cwd).appearance == "light"  # rxvt form
    assert resolve_theme(None, {**env, "COLORFGBG": "0;8"}, cwd).appearance == "dark"  # bright black
    assert resolve_theme(None, env, cwd).appearance == "dark"  # no report: dark, as pi
    assert resolve_theme("system", {"COLORFGBG": "0;11"}, cwd).appearance == "light"


async def test_the_light_theme_is_used(tmp_path: Path) -> None:
    from tests.helpers.app import make_app

    app = make_app(tmp_path / "sessions", tmp_path / "cache", theme="light")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.theme == "pi-light" and not app.current_theme.dark


# ---------------------------------------------------------------------- the command line
def test_version_comes_from_the_package_metadata() -> None:
    out = run_process("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"pi-sessions {version('pi-sessions')}"


def test_help_has_subcommands_examples_config_path_and_exit_codes(tmp_path: Path) -> None:
    out = run_process("--help", env=config_home(tmp_path, ""))
    assert out.returncode == 0
    for name in ("list", "completion", "config"):
        assert f"\n  {name} " in out.stdout
    assert "examples:" in out.stdout and "pi-sessions list --json" in out.stdout
    assert str(tmp_path / "config" / "pi-sessions" / "config.toml") in out.stdout
    for code in ("0 ", "1 ", "2 ", "130 "):
        assert f"\n  {code}" in out.stdout
    assert "--no-mouse" in out.stdout and "--served" not in out.stdout


def test_no_mouse_reaches_the_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs: list[dict[str, Any]] = []
    monkeypatch.setattr(tui.PiSessionsApp, "run", lambda self, **kwargs: runs.append(kwargs))
    from pi_sessions.app.config import Settings
    from pi_sessions.core.common.locations import SessionsRoot

    root = SessionsRoot(str(tmp_path), "test", True)
    assert tui.run_app(Settings(mouse=False), root) == 0
    assert tui.run_app(Settings(), root) == 0
    assert [r["mouse"] for r in runs] == [False, True]
    ns = cli._tui_parser(full_help=False).parse_args(["--no-mouse"])
    assert arguments.flag_overrides(ns)["mouse"] == (False, "--no-mouse")


def test_an_unknown_flag_is_exit_2() -> None:
    out = run_process("--frobnicate")
    assert out.returncode == 2 and "unrecognized arguments" in out.stderr
