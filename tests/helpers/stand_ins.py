"""Stand-in tools on PATH: `bin_dir` makes a PATH of one private folder (and no clipboard hints
in the environment), `tool` puts a shell script in it (a clipboard, pi's HTML export, a pager).
The app tests take `bin_dir` through tests/app/conftest.py."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CLIPBOARD_VARIABLES = (
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "TERMUX_VERSION",
    "TMUX",
    "SSH_TTY",
    "SSH_CONNECTION",
    "SSH_CLIENT",
    "MOSH_CONNECTION",
    "PI_CLIPBOARD_OSC52",
)


@pytest.fixture
def bin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The only PATH folder, for stand-in tools, and no clipboard hints in the environment."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for name in ("cat", "head"):  # what the stand-ins use; nothing else of this machine's
        os.symlink(shutil.which(name) or name, folder / name)
    monkeypatch.setenv("PATH", str(folder))
    for name in CLIPBOARD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return folder


def tool(bin_dir: Path, name: str, script: str) -> None:
    path = bin_dir / name
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(0o755)
