"""The bundled demo: a few real-looking sessions (branches, compaction, context edits,
labels, a fork), copied to a temporary folder so nothing the user owns is touched."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
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
    remove_demos_on_hangup()
    return SessionsRoot(str(sessions), "the demo, a temporary copy", True)


def remove_demos() -> None:
    """Remove the temporary copies this process made (never a folder it was handed)."""
    while _made:
        shutil.rmtree(_made.pop(), ignore_errors=True)


def remove_demos_on_hangup() -> None:
    """A closed terminal (SIGHUP) or a `kill` (SIGTERM) ends the process without unwinding:
    remove the copies first, then end as the signal would have."""

    def end(signum: int, _frame: object) -> None:
        remove_demos()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    for name in ("SIGHUP", "SIGTERM"):
        signum = getattr(signal, name, None)
        if signum is not None and signal.getsignal(signum) is signal.SIG_DFL:
            with contextlib.suppress(ValueError):  # not the main thread: nothing to hang up on
                signal.signal(signum, end)
