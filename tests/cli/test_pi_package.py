"""The pi package in pi-package/: its manifest names what it ships, and the real pi 1.6.0 (the
oracle's, when it is installed) loads it: `/sessions` and the skill are listed, and pi connects
to the `pi-sessions mcp` server it registers."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.pi import COMMAND, PACKAGE, PI

DEADLINE = 90.0  # only a hang reaches this


def test_the_manifest_names_the_extension_and_the_skill_it_ships() -> None:
    manifest = json.loads((PACKAGE / "package.json").read_text())
    assert "pi-package" in manifest["keywords"]
    for path in manifest["pi"]["extensions"] + manifest["pi"]["skills"]:
        assert (PACKAGE / path).exists(), path
    skill = (PACKAGE / "skills" / "pi-sessions" / "SKILL.md").read_text()
    assert skill.startswith("---\nname: pi-sessions\ndescription: ")
    # host packages are never bundled (pi's packages.md): only a peer dependency
    assert "dependencies" not in manifest
    assert "@earendil-works/pi-coding-agent" in manifest["peerDependencies"]


class Rpc:
    """pi in RPC mode: a JSON command in, its JSON lines out."""

    def __init__(self, home: Path) -> None:
        assert PI is not None
        env = {
            **os.environ,
            "HOME": str(home),
            "PI_CODING_AGENT_DIR": str(home / "agent"),
            "PI_SESSIONS_COMMAND": str(COMMAND),
        }
        self.proc = subprocess.Popen(
            [str(PI), "--mode", "rpc", "--no-session", "--offline", "-e", str(PACKAGE)],
            cwd=home,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.deadline = time.monotonic() + DEADLINE

    def send(self, command: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(command).encode() + b"\n")
        self.proc.stdin.flush()

    def next_line(self) -> dict[str, Any]:
        assert self.proc.stdout is not None and time.monotonic() < self.deadline, "pi did not answer"
        line = self.proc.stdout.readline()
        assert line, "pi ended"
        result: dict[str, Any] = json.loads(line)
        return result

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.mark.oracle
@pytest.mark.skipif(
    PI is None, reason="the oracle's pi is not installed (cd ../shared/oracle && bash setup.sh)"
)
@pytest.mark.skipif(not COMMAND.exists(), reason="no .venv/bin/pi-sessions in this checkout")
def test_the_real_pi_loads_the_package_lists_sessions_and_connects_to_the_server(tmp_path: Path) -> None:
    pi = Rpc(tmp_path)
    try:
        pi.send({"type": "get_commands", "id": "commands"})
        while (answer := pi.next_line()).get("id") != "commands":
            pass
        assert answer["success"], answer
        commands = {c["name"]: c for c in answer["data"]["commands"]}
        assert commands["sessions"]["source"] == "extension"
        assert commands["sessions"]["sourceInfo"]["path"] == str(PACKAGE / "extensions" / "sessions.ts")
        assert commands["skill:pi-sessions"]["source"] == "skill"
        # `/mcp` outside the terminal UI says each server's state: asked again until it is up
        status = ""
        while "connected" not in status or "connecting" in status:
            pi.send({"type": "prompt", "message": "/mcp", "id": "mcp"})
            status = ""
            while (line := pi.next_line()).get("id") != "mcp":
                if line.get("method") == "notify" and "pi-sessions" in line.get("message", ""):
                    status = line["message"]
            assert "failed" not in status and "error" not in status, status
        assert status.startswith("pi-sessions: connected"), status
    finally:
        pi.close()
