"""The bundled demo: a few real-looking sessions (branches, compaction, context edits,
labels, a fork), copied to a temporary folder so nothing the user owns is touched."""

from __future__ import annotations

import shutil
import tempfile
from importlib.resources import files
from pathlib import Path

from ..core.common.locations import SessionsRoot

PLACEHOLDER = "{{DEMO_ROOT}}"
_made: list[Path] = []  # temporary copies made by this process, removed by remove_demos()


def prepare_demo(target: Path | None = None) -> Path:
    """Copy the demo sessions and return the sessions folder of the copy."""
    root = Path(tempfile.mkdtemp(prefix="pi-sessions-demo-")) if target is None else target
    sessions = root / "sessions"
    source = files("pi_sessions.app") / "demo"
    for folder in source.iterdir():
        if not folder.is_dir():
            continue
        (sessions / folder.name).mkdir(parents=True, exist_ok=True)
        for item in folder.iterdir():
            if item.name.endswith(".jsonl"):
                text = item.read_text(encoding="utf-8").replace(PLACEHOLDER, str(sessions))
                (sessions / folder.name / item.name).write_text(text, encoding="utf-8")
    return sessions


def demo_root() -> SessionsRoot:
    """A fresh temporary copy of the demo, as the folder to browse."""
    sessions = prepare_demo()
    _made.append(sessions.parent)
    return SessionsRoot(str(sessions), "the demo (a temporary copy)", True)


def remove_demos() -> None:
    """Remove the temporary copies this process made (never a folder it was handed)."""
    while _made:
        shutil.rmtree(_made.pop(), ignore_errors=True)
