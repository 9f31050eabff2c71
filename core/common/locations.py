"""Where pi keeps sessions, resolved the way pi 1.6.0 resolves it.

Order: `--session-dir`, then `PI_CODING_AGENT_SESSION_DIR`, then the `sessionDir` setting
(pi's settings.json under the agent dir, overridden by the project's `.pi/settings.json`),
then `<agent dir>/sessions` with the agent dir from `PI_CODING_AGENT_DIR` or `~/.pi/agent`.

pi stores sessions as `<root>/--<encoded cwd>--/<time>_<id>.jsonl` under its default root and
directly in a custom session dir; we read both layouts.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

ENV_AGENT_DIR = "PI_CODING_AGENT_DIR"
ENV_SESSION_DIR = "PI_CODING_AGENT_SESSION_DIR"


@dataclass(frozen=True, slots=True)
class SessionsRoot:
    path: str
    source: str  # how it was chosen, for "looked in ..." messages
    custom: bool  # a custom session dir (pi keeps files flat in it)

    def describe(self) -> str:
        return f"{self.path} ({self.source})"


def expand_path(path: str) -> str:
    return os.path.abspath(os.path.expanduser(path))


def agent_dir(env: Mapping[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    value = env.get(ENV_AGENT_DIR)
    return expand_path(value) if value else os.path.join(os.path.expanduser("~"), ".pi", "agent")


def _setting_session_dir(path: str) -> str | None:
    import json

    from .smallfiles import read_small_text

    try:
        data = json.loads(read_small_text(path))
    except (OSError, ValueError, RecursionError):
        return None
    value = data.get("sessionDir") if isinstance(data, dict) else None
    return value if isinstance(value, str) and value else None


def resolve_sessions_root(
    cli_dir: str | None = None, env: Mapping[str, str] | None = None, cwd: str | None = None
) -> SessionsRoot:
    env = os.environ if env is None else env
    if cli_dir:
        return SessionsRoot(expand_path(cli_dir), "--session-dir", True)
    if env.get(ENV_SESSION_DIR):
        return SessionsRoot(expand_path(env[ENV_SESSION_DIR]), f"${ENV_SESSION_DIR}", True)
    agent = agent_dir(env)
    project_settings = os.path.join(cwd or os.getcwd(), ".pi", "settings.json")
    global_settings = os.path.join(agent, "settings.json")
    for settings in (project_settings, global_settings):
        value = _setting_session_dir(settings)
        if value:
            return SessionsRoot(expand_path(value), f"sessionDir in {settings}", True)
    source = f"${ENV_AGENT_DIR}/sessions" if env.get(ENV_AGENT_DIR) else "pi's default"
    return SessionsRoot(os.path.join(agent, "sessions"), source, False)


def iter_session_files(root: str) -> Iterator[str]:
    """Every `*.jsonl` directly in `root` or one folder below it (pi's two layouts).

    Each name is judged on its own: one that cannot even be looked at (a symlink loop, no
    permission) is still yielded, so the reader lists it as skipped with its reason instead
    of it hiding the files after it. Folders that cannot be listed are left out."""
    for entry in _scan(root):
        if entry.name.endswith(".jsonl") and _is_file(entry):
            yield entry.path
            continue
        try:
            is_dir = entry.is_dir()
        except OSError:
            continue
        if is_dir:
            for item in _scan(entry.path):
                if item.name.endswith(".jsonl") and _is_file(item):
                    yield item.path


def folders_changed_since(root: str, mtime_ns: int) -> bool:
    """Whether a file may have been created, deleted or renamed in `root` or a folder one
    below it (where `iter_session_files` looks) at `mtime_ns` or later: a folder's mtime
    changes then (a file only appended to keeps it). A stat per folder; a folder that cannot
    be looked at counts as changed."""
    try:
        if os.stat(root).st_mtime_ns >= mtime_ns:
            return True
    except OSError:
        return True
    for entry in _scan(root):  # (a session file directly in root: root's mtime covers it)
        try:
            if entry.is_dir() and entry.stat().st_mtime_ns >= mtime_ns:
                return True
        except OSError:
            return True
    return False


def _scan(folder: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except OSError:
        return []


def _is_file(entry: os.DirEntry[str]) -> bool:
    """A regular file (or a link to one); True also when the question itself fails."""
    try:
        return entry.is_file()
    except OSError:
        return True


def encode_cwd_folder(cwd: str) -> str:
    """pi's folder name for a cwd: strip one leading separator, `/`, `\\` and `:` become `-`."""
    resolved = expand_path(cwd)
    stripped = resolved[1:] if resolved[:1] in ("/", "\\") else resolved
    return "--" + stripped.replace("/", "-").replace("\\", "-").replace(":", "-") + "--"


def fork_folder(root: SessionsRoot, cwd: str) -> str:
    """Where a session for `cwd` belongs: pi's encoded folder under the root, or the root
    itself when it is a flat custom session dir."""
    if root.custom and _is_flat(root.path):
        return root.path
    return os.path.join(root.path, encode_cwd_folder(cwd))


def _is_flat(path: str) -> bool:
    try:
        names = os.listdir(path)
    except OSError:
        return False
    has_folders = any(n.startswith("--") and n.endswith("--") for n in names)
    has_files = any(n.endswith(".jsonl") for n in names)
    return has_files and not has_folders
