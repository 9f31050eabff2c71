"""End to end: the installed `pi-sessions` in a real terminal (tmux), driven with keys.

    python tests/e2e_tmux.py [path/to/pi-sessions]

Starts the browser on a copy of the pi 1.6.0 corpus (plus one hostile session) in a 120x40
tmux pane with TERM=xterm-256color and no COLORTERM (as over SSH), presses keys and checks
what the terminal shows. Exits non-zero on the first thing that is not on screen.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "fixtures" / "pi-1.6.0" / "sessions"
SESSION = "pi-sessions-e2e"
# A private tmux server per run (`tmux -L`): two runs at once never share a session.
SOCKET = f"pi-sessions-e2e-{os.getpid()}-{secrets.token_hex(4)}"
WAIT = 20.0


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", "-L", SOCKET, *args], check=True, capture_output=True, text=True).stdout


def screen() -> str:
    return tmux("capture-pane", "-t", SESSION, "-p")


def wait_for(text: str, what: str) -> str:
    deadline = time.monotonic() + WAIT
    shown = ""
    while time.monotonic() < deadline:
        shown = screen()
        if text in shown:
            return shown
        time.sleep(0.1)
    raise SystemExit(f"e2e: {what}: {text!r} never appeared. The screen was:\n{shown}")


def keys(*names: str) -> None:
    for name in names:
        tmux("send-keys", "-t", SESSION, name)
        # A terminal reads ESC followed at once by another key as Alt+key (Textual waits
        # ESCDELAY, 100 ms, to tell them apart): keys go in at a typist's pace.
        time.sleep(0.15)


def main() -> int:
    command = (
        sys.argv[1]
        if len(sys.argv) > 1
        else shutil.which("pi-sessions") or str(HERE.parents[1] / ".venv" / "bin" / "pi-sessions")
    )
    if os.sep in command:
        command = os.path.abspath(command)
    if shutil.which("tmux") is None:
        print("e2e: tmux is not installed", file=sys.stderr)
        return 2
    scratch = Path(tempfile.mkdtemp(prefix="pi-sessions-e2e-"))
    try:
        root = scratch / "sessions"
        shutil.copytree(CORPUS, root)
        evil = root / "--home-u-evil--"
        evil.mkdir()
        lines = [
            {
                "type": "session",
                "version": 3,
                "id": "evil",
                "timestamp": "2026-11-01T00:00:00.000Z",
                "cwd": "/home/u/evil",
            },
            {
                "type": "message",
                "id": "e1",
                "parentId": None,
                "timestamp": "2026-11-01T00:00:01.000Z",
                "message": {
                    "role": "user",
                    "content": "\x1b[2J\x1b]0;pwned\x07 [bold]literal[/bold] hostile",
                    "timestamp": 1793491201000,
                },
            },
        ]
        (evil / "2026-11-01T00-00-00-000Z_evil.jsonl").write_text(
            "".join(json.dumps(x) + "\n" for x in lines)
        )
        env = f"TERM=xterm-256color COLORTERM= LC_ALL=C.UTF-8 XDG_CACHE_HOME={scratch / 'cache'} XDG_CONFIG_HOME={scratch / 'config'}"
        tmux("new-session", "-d", "-s", SESSION, "-x", "120", "-y", "40")
        tmux(
            "send-keys",
            "-t",
            SESSION,
            f"cd {scratch} && {env} {command} --session-dir {root}; echo EXITED=$?",
            "Enter",
        )

        shown = wait_for("sessions in", "the listing")
        total = int(shown.split("sessions in")[0].split()[-1])
        assert shown.splitlines()[1].startswith("/home/u/evil"), shown  # the newest group first
        shown = wait_for("[bold]literal[/bold]", "the hostile session, markup shown literally")
        assert "\u241b[2J" in shown, "ESC must be shown as a placeholder"

        # pi appends to the open session: the new message shows up in tree and context.
        live = {
            "type": "message",
            "id": "e2",
            "parentId": "e1",
            "timestamp": "2026-11-01T00:00:02.000Z",
            "message": {"role": "user", "content": "a live message arrives", "timestamp": 1793491202000},
        }
        with open(evil / "2026-11-01T00-00-00-000Z_evil.jsonl", "a") as f:
            f.write(json.dumps(live) + "\n")
        shown = wait_for("a live message arrives", "a message appended while open")
        assert shown.count("a live message arrives") >= 2, shown  # the tree row and the context

        keys("Down", "Tab")
        wait_for("Context at", "the context pane")
        keys("x")
        wait_for("hide what is not in context", "the excluded toggle")
        keys("v")
        wait_for("no tool results view", "the view filter")
        keys("?")
        wait_for("pi-sessions · keys", "the help screen")
        keys("Escape", "Escape", "Escape", "/", "r", "a", "c", "e")
        wait_for(f"/{total} ·", "the session search (shown/total in the title)")
        keys("Escape", "q")
        wait_for("EXITED=0", "a clean exit")
        print("e2e: ok")
        return 0
    finally:
        subprocess.run(["tmux", "-L", SOCKET, "kill-server"], capture_output=True)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
