"""Deleting a session means moving it to the desktop trash, never a silent unlink.

The `trash` command is used when it is installed; otherwise the file goes to the freedesktop
trash (`$XDG_DATA_HOME/Trash`, or `.Trash-$UID` at the top of another filesystem) with the
`.trashinfo` record that lets a file manager restore it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import urllib.parse
from pathlib import Path

from .problems import SessionError


def home_trash() -> Path:
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(data) / "Trash"


def _mount_point(path: Path) -> Path:
    path = path.resolve()
    while not os.path.ismount(path) and path.parent != path:
        path = path.parent
    return path


def trash_folder_for(path: Path) -> Path:
    home = home_trash()
    try:
        home.mkdir(parents=True, exist_ok=True)
        if os.stat(home).st_dev == os.stat(path).st_dev:
            return home
    except OSError:
        pass
    return _mount_point(path) / f".Trash-{os.getuid()}"


def move_to_trash(path: str | os.PathLike[str], use_command: bool = True) -> str:
    """Trash one file; returns where it went (or which command took it). Raises SessionError."""
    source = Path(path).absolute()
    if not source.exists():
        raise SessionError(f"no such file: {source}")
    command = shutil.which("trash") if use_command else None
    if command:
        result = subprocess.run([command, str(source)], capture_output=True, text=True)
        if result.returncode == 0 and not source.exists():
            return f"the trash (via {command})"
        # fall through to the freedesktop trash
    trash = trash_folder_for(source)
    files, info = trash / "files", trash / "info"
    try:
        files.mkdir(parents=True, exist_ok=True)
        info.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise SessionError(f"cannot use the trash folder {trash}: {e.strerror}") from None
    stem, suffix = source.stem, source.suffix
    for attempt in range(1000):
        name = source.name if attempt == 0 else f"{stem}.{attempt}{suffix}"
        info_path = info / f"{name}.trashinfo"
        try:
            fd = os.open(info_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        with os.fdopen(fd, "w") as f:
            f.write(
                "[Trash Info]\n"
                f"Path={urllib.parse.quote(str(source))}\n"
                f"DeletionDate={time.strftime('%Y-%m-%dT%H:%M:%S')}\n"
            )
        target = files / name
        if target.exists():
            os.unlink(info_path)
            continue
        try:
            os.rename(source, target)
        except OSError as e:
            os.unlink(info_path)
            raise SessionError(f"could not move {source} to {target}: {e.strerror}") from None
        return str(target)
    raise SessionError(f"no free name in {files}")
