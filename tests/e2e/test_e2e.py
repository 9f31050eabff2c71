"""Runs tests/e2e_tmux.py: the installed command in a real terminal (skipped without tmux)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

HERE = Path(__file__).resolve().parent


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_installed_command_in_tmux() -> None:
    command = Path(sys.executable).parent / "pi-sessions"
    result = subprocess.run(
        [sys.executable, str(HERE / "e2e_tmux.py"), str(command)], capture_output=True, text=True, timeout=180
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "e2e: ok" in result.stdout
