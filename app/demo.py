"""The bundled demo: a few real-looking sessions (branches, compaction, context edits,
labels, a fork), copied to a temporary folder so nothing the user owns is touched."""

from __future__ import annotations

import shutil
import tempfile
from importlib.resources import files
from pathlib import Path

PLACEHOLDER = "{{DEMO_ROOT}}"


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


def remove_demo(sessions: Path) -> None:
    shutil.rmtree(sessions.parent, ignore_errors=True)
