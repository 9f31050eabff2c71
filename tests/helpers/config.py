"""Settings in tests: a config folder holding a config.toml, and the command run in a fresh
interpreter (what it reads at start-up: the environment, the config file)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_process(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`pi-sessions ARGS` in a fresh interpreter, with `env` added to ours."""
    return subprocess.run(
        [sys.executable, "-m", "pi_sessions.app.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )


def config_home(tmp_path: Path, text: str) -> dict[str, str]:
    """An XDG config folder holding `text` as pi-sessions' config.toml (and no NO_COLOR)."""
    folder = tmp_path / "config" / "pi-sessions"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text(text)
    return {"XDG_CONFIG_HOME": str(tmp_path / "config"), "PI_CODING_AGENT_DIR": str(tmp_path / "agent")}
