"""A FIFO or a link to /dev/zero where a settings-like file belongs (our config.toml, pi's
keybindings.json, settings.json of the agent, of the current folder and of the session's own
cwd, a theme, models.json): every command still finishes, with a clear word where we read it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pi_sessions.core.common.smallfiles import read_small_text

from tests.helpers.sessions import assistant, entry, header, jsonl, user

PLACES = ("config.toml", "keybindings.json", "agent settings", "folder settings", "session cwd settings",
          "theme", "models.json")  # fmt: skip


def _layout(tmp_path: Path) -> dict[str, Path]:
    agent = tmp_path / "agent"
    work = tmp_path / "work"
    project = tmp_path / "project"  # the cwd the session's header names
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "pi-sessions"
    for folder in (agent / "themes", work / ".pi", project / ".pi", config):
        folder.mkdir(parents=True, exist_ok=True)
    session = agent / "sessions" / "--project--" / "s.jsonl"
    session.parent.mkdir(parents=True)
    session.write_bytes(
        jsonl(
            header(cwd=str(project)),
            user("u", None, "hi"),
            # a model no table knows and a compaction on the path: the window comes from
            # tokensBefore + reserveTokens, read from <cwd>/.pi/settings.json
            assistant("a", "u", "ok", 1, provider="nobody", model="unknown-model-x"),
            entry("compaction", "c", "a", 2, summary="s", firstKeptEntryId="u", tokensBefore=50000),
            user("v", "c", "again", 3),
        )
    )
    return {
        "agent": agent,
        "work": work,
        "session": session,
        "config.toml": config / "config.toml",
        "keybindings.json": agent / "keybindings.json",
        "agent settings": agent / "settings.json",
        "folder settings": work / ".pi" / "settings.json",
        "session cwd settings": project / ".pi" / "settings.json",
        "theme": agent / "themes" / "evil.json",
        "models.json": agent / "models.json",
    }


def _poison(target: Path, kind: str) -> None:
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero")


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
@pytest.mark.parametrize("place", PLACES)
def test_a_fifo_or_dev_zero_at_a_settings_path_never_hangs_a_command(
    tmp_path: Path, place: str, kind: str
) -> None:
    paths = _layout(tmp_path)
    if place == "theme":  # the theme is read only when a settings file names it
        (paths["agent settings"]).write_text(json.dumps({"theme": "evil"}))
    _poison(paths[place], kind)
    env = {**os.environ, "PI_CODING_AGENT_DIR": str(paths["agent"]), "HOME": str(tmp_path)}
    runs = [["list"], ["config"], ["config", "--json"], ["stats", str(paths["session"])],
            ["stats", str(paths["session"]), "--json"], ["context", str(paths["session"]), "--json"]]  # fmt: skip
    # One fresh interpreter runs the six commands (a hang must not hold up pytest itself; six
    # interpreters a case were a tenth of the suite's time), each with its own output.
    try:
        out = subprocess.run(
            [sys.executable, "-c", _DRIVER, json.dumps(runs)],
            capture_output=True,
            text=True,
            cwd=paths["work"],
            env=env,
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"a command hung on a {kind} at {place}")
    assert out.returncode == 0, out.stderr
    for args, (code, stdout, stderr) in zip(runs, json.loads(out.stdout), strict=True):
        assert code == 0, (args, stderr)
        assert "Traceback" not in stderr and "MemoryError" not in stderr, (args, stderr)
        if args[0] == "list":
            assert str(paths["session"]) in stdout
        if place in ("config.toml", "keybindings.json") and args == ["config"]:
            # where a broken file is reported, it says which file and why
            assert str(paths[place]) in stderr + stdout and "not a regular file" in stderr + stdout


# Runs each command line of argv[1] (JSON) as `pi-sessions ARGS` does, in this interpreter, and
# prints [exit code, stdout, stderr] for each (an exception that escapes: its traceback as stderr).
_DRIVER = """
import io, json, sys, traceback
from pi_sessions.app.cli import main
results = []
for args in json.loads(sys.argv[1]):
    out, err = io.BytesIO(), io.BytesIO()
    saved = sys.stdout, sys.stderr
    wrapped = [io.TextIOWrapper(b, encoding="utf-8", write_through=True) for b in (out, err)]
    sys.stdout, sys.stderr = wrapped
    try:
        code = main(args)
    except BaseException:
        code = 1
        wrapped[1].write(traceback.format_exc())
    finally:
        sys.stdout, sys.stderr = saved
    for w in wrapped:
        w.flush()
    results.append([code, out.getvalue().decode("utf-8", "replace"), err.getvalue().decode("utf-8", "replace")])
    for w in wrapped:
        w.detach()  # (closing a wrapper would close the buffer under it)
print(json.dumps(results))
"""


def test_the_reader_refuses_what_is_not_a_small_regular_file(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        read_small_text(fifo)
    zero = tmp_path / "zero"
    zero.symlink_to("/dev/zero")
    with pytest.raises(OSError, match="not a regular file"):
        read_small_text(zero)
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 101)
    with pytest.raises(OSError, match="larger than 100 bytes"):
        read_small_text(big, limit=100)
    with pytest.raises(FileNotFoundError):
        read_small_text(tmp_path / "absent")
    with pytest.raises(OSError, match="NUL"):
        read_small_text(str(tmp_path) + "/a\0b")
    (tmp_path / "ok.json").write_text('{"a": 1}')
    assert read_small_text(tmp_path / "ok.json") == '{"a": 1}'
