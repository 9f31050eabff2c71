"""Deleting a session means moving it to the desktop trash, never a silent unlink.

The `trash` command first, as pi does. Otherwise, on freedesktop systems (Linux, the BSDs),
the freedesktop trash written here (`$XDG_DATA_HOME/Trash`; at the top of another filesystem
`.Trash/$UID` where an administrator made a sticky `.Trash`, else `.Trash-$UID`), with the
`.trashinfo` record that lets a file manager restore it; on macOS and Windows, or if that
fails, send2trash, which knows each platform's own trash. Unlike pi, nothing is ever unlinked
when no trash would take the file.
"""

from __future__ import annotations

import importlib
import os
import shutil
import stat
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

from ..common.problems import SessionError


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
    top = _mount_point(path)
    shared = _shared_trash(top)
    if shared is not None:
        return shared
    if top == Path(top.anchor):  # no trash of our making at the top of the system's own disk
        raise SessionError(f"the home trash {home} cannot take {path}, and none is made at {top}")
    return top / f".Trash-{os.getuid()}"


def _shared_trash(top: Path) -> Path | None:
    """The spec's first choice at the top of another filesystem: an administrator's
    `$topdir/.Trash` (a real folder with the sticky bit, never a link) holds `$uid` per user."""
    shared = top / ".Trash"
    try:
        mode = os.lstat(shared).st_mode
    except OSError:
        return None
    if not stat.S_ISDIR(mode) or not mode & stat.S_ISVTX:
        return None  # a link or a folder anyone may empty: the spec says to skip it
    mine = shared / str(os.getuid())
    try:
        mine.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return None
    return mine


def move_to_trash(
    path: str | os.PathLike[str], use_command: bool = True, platform: str = sys.platform
) -> str:
    """Trash one file; returns where it went (or what took it). Raises SessionError."""
    source = Path(path).absolute()
    if not source.exists():
        raise SessionError(f"no such file: {source}")
    problems: list[str] = []
    command = shutil.which("trash") if use_command else None
    if command:
        try:
            result = subprocess.run(
                [command, str(source)], capture_output=True, text=True, errors="replace", timeout=60
            )
        except (OSError, subprocess.TimeoutExpired) as e:
            problems.append(f"trash: {e}")
        else:
            if not source.exists():  # as pi: the file is gone, whatever the exit status said
                return f"the trash (via {command})"
            said = (result.stderr or "").strip().splitlines()
            problems.append(f"trash: {said[0] if said else f'exit {result.returncode}'}")
    if platform not in ("darwin", "win32"):
        try:
            return freedesktop_trash(source)
        except SessionError as e:
            problems.append(str(e))
    try:
        return library_trash(source)
    except SessionError as e:
        problems.append(str(e))
    raise SessionError("; ".join(problems))


def library_trash(source: Path) -> str:
    """send2trash: the platform's own trash (Finder's, the Recycle Bin, freedesktop's)."""
    try:
        send2trash = importlib.import_module("send2trash").send2trash
    except ImportError:
        raise SessionError("send2trash is not installed") from None
    try:
        send2trash(str(source))
    except Exception as e:  # it raises OSError and its own TrashPermissionError
        raise SessionError(f"send2trash: {e}") from None
    if source.exists():
        raise SessionError(f"send2trash left {source} in place")
    return "the trash (via send2trash)"


def freedesktop_trash(source: Path) -> str:
    """The freedesktop.org trash, with a `.trashinfo` a file manager can restore from."""
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
