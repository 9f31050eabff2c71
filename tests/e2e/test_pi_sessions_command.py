"""`/sessions` in the real pi 1.6.0 (the oracle's), in a tmux terminal: pi hands the terminal to
the browser on its cwd, takes it back when the browser quits, and keeps a printing subcommand's
output on screen until Enter. Skipped without tmux or the oracle's pi."""

from __future__ import annotations

import os
import secrets
import shlex
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.corpus import FIXTURES
from tests.helpers.pi import COMMAND, PACKAGE, PI

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.skipif(
        PI is None, reason="the oracle's pi is not installed (cd ../shared/oracle && bash setup.sh)"
    ),
    pytest.mark.skipif(not COMMAND.exists(), reason="no .venv/bin/pi-sessions in this checkout"),
]
SOCKET = f"pi-sessions-e2e-pi-{os.getpid()}-{secrets.token_hex(4)}"
WAIT = 60.0  # only a hang reaches this


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", "-L", SOCKET, *args], check=True, capture_output=True, text=True).stdout


def wait_for(text: str, gone: str = "") -> str:
    deadline = time.monotonic() + WAIT
    shown = ""
    while time.monotonic() < deadline:
        shown = tmux("capture-pane", "-t", "pi", "-p")
        if text in shown and not (gone and gone in shown):
            return shown
        time.sleep(0.2)
    raise AssertionError(f"{text!r} never appeared. The screen was:\n{shown}")


@pytest.fixture
def pi_in_tmux(tmp_path: Path) -> Iterator[Path]:
    env = {
        "HOME": str(tmp_path),
        "PI_CODING_AGENT_DIR": str(tmp_path / "agent"),
        "PI_SESSIONS_COMMAND": str(COMMAND),
        "PI_SESSIONS_MCP": "0",
        "TERM": "xterm-256color",
    }
    shutil.copytree(FIXTURES / "sessions", tmp_path / "agent" / "sessions")  # pi's own folder
    argv = [str(PI), "--no-session", "--offline", "-e", str(PACKAGE)]
    line = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()) + " " + shlex.join(argv)
    tmux("new-session", "-d", "-s", "pi", "-x", "140", "-y", "40", "-c", str(tmp_path), f"env {line}")
    try:
        yield tmp_path
    finally:
        subprocess.run(["tmux", "-L", SOCKET, "kill-server"], capture_output=True)


def type_line(text: str) -> None:
    """Typed into pi's editor, then Enter once pi shows it there, at a typist's pace: keys that
    come in one burst with the Enter are taken for a paste, whose Enter is a new line."""
    tmux("send-keys", "-t", "pi", "-l", text)
    wait_for(text)
    time.sleep(0.5)
    tmux("send-keys", "-t", "pi", "Enter")


def test_slash_sessions_opens_the_browser_and_gives_the_terminal_back(pi_in_tmux: Path) -> None:
    wait_for("(auto)")  # pi's footer: it is up
    type_line("/sessions")
    wait_for("Sessions 67")  # the browser, on pi's sessions folder
    tmux("send-keys", "-t", "pi", "q")
    wait_for("(auto)", gone="Sessions 67")  # pi again
    type_line("/sessions list")
    shown = wait_for("[Enter: back to pi]")
    assert "Write unit tests for parseConfig" in shown  # a corpus session's first message
    tmux("send-keys", "-t", "pi", "Enter")
    wait_for("(auto)", gone="[Enter: back to pi]")
