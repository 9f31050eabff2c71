"""Trash on every platform: the `trash` command first (as pi), then the freedesktop trash or
send2trash; a file no trash takes is left where it is, never unlinked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pi_sessions.core.common.problems import SessionError
from pi_sessions.core.writing.trash import move_to_trash


def a_session(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "2025-01-01T00-00-00-000Z_s1.jsonl"
    path.write_text('{"type":"session","version":3,"id":"s1"}\n')
    return path


def fake_trash(bin_dir: Path, script: str) -> Path:
    bin_dir.mkdir(parents=True, exist_ok=True)
    command = bin_dir / "trash"
    command.write_text("#!/bin/sh\n" + script)
    command.chmod(0o755)
    return command


def test_the_trash_command_comes_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    can = tmp_path / "can"
    can.mkdir()
    calls = tmp_path / "calls.txt"
    command = fake_trash(tmp_path / "bin", f'echo "$@" >> "{calls}"\nmv "$1" "{can}/"\n')
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    path = a_session(tmp_path / "sessions")
    assert move_to_trash(path) == f"the trash (via {command})"
    assert calls.read_text() == f"{path}\n"
    assert (can / path.name).exists() and not (tmp_path / "data" / "Trash").exists()


def test_a_failing_trash_command_falls_back_to_the_freedesktop_trash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_trash(tmp_path / "bin", 'echo "trash: no trash can here" >&2\nexit 1\n')
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    path = a_session(tmp_path / "sessions")
    where = move_to_trash(path, platform="linux")
    assert where == str(tmp_path / "data" / "Trash" / "files" / path.name) and Path(where).exists()
    info = (tmp_path / "data" / "Trash" / "info" / f"{path.name}.trashinfo").read_text()
    assert f"Path={path}" in info


def trash_in_a_child(tmp_path: Path, path: Path, platform: str) -> subprocess.CompletedProcess[str]:
    """move_to_trash in a fresh process whose home and XDG data folder are in tmp_path
    (send2trash reads them when it is imported) and with no `trash` command on PATH."""
    program = (
        "import json, sys\n"
        "from pi_sessions.core.writing.trash import move_to_trash\n"
        "from pi_sessions.core.common.problems import SessionError\n"
        "try:\n"
        f"    print(json.dumps(move_to_trash(sys.argv[1], platform={platform!r})))\n"
        "except SessionError as e:\n"
        "    print(json.dumps({'error': str(e)}))\n"
    )
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "PATH": os.path.dirname(sys.executable),
    }
    return subprocess.run([sys.executable, "-c", program, str(path)], capture_output=True, text=True, env=env)


def test_send2trash_is_the_trash_where_freedesktop_is_not(tmp_path: Path) -> None:
    """On macOS and Windows the library does it; here it writes the freedesktop trash, so
    its result can be checked in a temporary XDG_DATA_HOME."""
    path = a_session(tmp_path / "sessions")
    out = trash_in_a_child(tmp_path, path, "darwin")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == "the trash (via send2trash)"
    assert not path.exists() and (tmp_path / "data" / "Trash" / "files" / path.name).exists()
    assert (tmp_path / "data" / "Trash" / "info" / f"{path.name}.trashinfo").exists()


def test_no_trash_at_all_leaves_the_file_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pi_sessions.core.writing import trash

    def refuses(name: str):
        def run(source: Path) -> str:
            raise SessionError(f"{name} refused")

        return run

    monkeypatch.setattr(trash, "freedesktop_trash", refuses("freedesktop"))
    monkeypatch.setattr(trash, "library_trash", refuses("send2trash"))
    path = a_session(tmp_path / "sessions")
    with pytest.raises(SessionError, match="freedesktop refused; send2trash refused"):
        move_to_trash(path, use_command=False, platform="linux")
    assert path.exists()


def test_a_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SessionError, match="no such file"):
        move_to_trash(tmp_path / "gone.jsonl")


@pytest.mark.parametrize("sticky", [True, False])
def test_another_disk_with_a_shared_trash_uses_its_folder_for_this_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sticky: bool
) -> None:
    """On a disk other than the home's, an administrator's sticky `.Trash` holds `$uid`
    (the freedesktop spec's first choice); without the sticky bit it is skipped for `.Trash-$uid`."""
    from pi_sessions.core.writing import trash

    disk = tmp_path / "usb"
    (disk / ".Trash").mkdir(parents=True)
    (disk / ".Trash").chmod(0o1777 if sticky else 0o777)
    path = a_session(disk / "sessions")
    (tmp_path / "not-a-folder").write_text("")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "not-a-folder"))  # the home trash cannot take it
    monkeypatch.setattr(trash, "_mount_point", lambda _: disk)
    where = Path(trash.freedesktop_trash(path))
    expected = disk / ".Trash" / str(os.getuid()) if sticky else disk / f".Trash-{os.getuid()}"
    assert where == expected / "files" / path.name and where.exists() and not path.exists()
    assert (expected / "info" / f"{path.name}.trashinfo").exists()
