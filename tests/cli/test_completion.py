"""`pi-sessions completion bash|zsh|fish|tcsh`: scripts (made by shtab) the shells accept, that
complete every registered subcommand, its flags and their values."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pi_sessions.app import subcommands
from pi_sessions.app.subcommands import completion


def script(shell: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "pi_sessions.app.cli", "completion", shell], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish", "tcsh"])
def test_every_subcommand_is_named(shell: str) -> None:
    text = script(shell)
    for name in subcommands.MODULES:
        assert name in text, (shell, name)


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish", "tcsh"])
def test_the_shell_accepts_the_script(shell: str, tmp_path: Path) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    path = tmp_path / f"completion.{shell}"
    path.write_text(script(shell))
    checked = subprocess.run([shell, "-n", str(path)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


def test_an_unknown_shell_is_refused() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "pi_sessions.app.cli", "completion", "ksh"], capture_output=True, text=True
    )
    assert out.returncode == 2 and "invalid choice" in out.stderr


def bash_complete(tmp_path: Path, *words: str) -> list[str]:
    """What bash offers for the last word, with the script loaded (files from tmp_path)."""
    path = tmp_path / "completion.bash"
    if not path.exists():
        path.write_text(script("bash"))
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in ("pi-sessions", *words))
    program = (
        f"source {path}\n"
        f"COMP_WORDS=({quoted}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1))\n"
        '_pi_sessions; printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    out = subprocess.run(["bash", "-c", program], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    return [line for line in out.stdout.splitlines() if line]


def test_bash_completes_subcommands_flags_and_values(tmp_path: Path) -> None:
    (tmp_path / "a session.jsonl").write_text("")
    (tmp_path / "folder").mkdir()
    first = bash_complete(tmp_path, "")
    assert set(subcommands.MODULES) <= set(first)
    assert {"a session.jsonl", "folder"} <= set(first)  # or a PATH to open
    assert bash_complete(tmp_path, "li") == ["list"]
    assert {"--json", "--session-dir", "--cwd"} <= set(bash_complete(tmp_path, "list", "--"))
    assert bash_complete(tmp_path, "list", "--session-dir", "") == ["folder"]
    assert bash_complete(tmp_path, "--color", "") == ["auto", "truecolor", "256", "16", "none"]
    assert bash_complete(tmp_path, "--theme", "=", "l") == ["light"]
    assert bash_complete(tmp_path, "completion", "") == ["bash", "zsh", "fish", "tcsh"]
    assert bash_complete(tmp_path, "tree", "a") == ["a session.jsonl"]
    # after the file, an entry id: nothing to offer
    assert bash_complete(tmp_path, "context", "a session.jsonl", "--leaf", "") == []
    assert bash_complete(tmp_path, "--version", "") != []  # flags do not count as the PATH


def test_fish_completes_from_the_script(tmp_path: Path) -> None:
    if shutil.which("fish") is None:
        pytest.skip("fish is not installed")
    path = tmp_path / "completion.fish"
    path.write_text(script("fish"))

    def offered(line: str) -> list[str]:
        out = subprocess.run(
            ["fish", "-c", f"source {path}; complete -C '{line}'"],
            capture_output=True,
            text=True,
            cwd=tmp_path,
        )
        return [row.split("\t")[0] for row in out.stdout.splitlines()]

    (tmp_path / "a session.jsonl").write_text("")
    assert set(subcommands.MODULES) | {"a session.jsonl"} <= set(offered("pi-sessions "))
    assert sorted(offered("pi-sessions completion ")) == ["bash", "fish", "tcsh", "zsh"]
    assert "--json" in offered("pi-sessions tree x --")


def test_a_newly_registered_subcommand_is_completed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Generated from the registry: a subcommand added there needs nothing here."""
    monkeypatch.setitem(subcommands.MODULES, "brandnew", "tree")
    for shell in completion.SHELLS:
        assert "brandnew" in completion.script(shell), shell


def test_bash_offers_every_option_of_every_subcommand(tmp_path: Path) -> None:
    for name in subcommands.MODULES:
        parser = subcommands.build_parser(name)
        shown = [action for action in parser._actions if action.help != argparse.SUPPRESS]  # (hidden ones)
        flags = {flag for action in shown for flag in action.option_strings if flag.startswith("--")}
        assert flags <= set(bash_complete(tmp_path, name, "--")), name
