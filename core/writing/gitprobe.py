"""Asking git about the files of a session's work tree: differs from HEAD, commits since a time.

Here in core/writing because this is the wing that runs other programs (clipboard tools, the
exporter). Read-only: no shell, a timeout per call, optional locks off (a `git diff` would
otherwise refresh the index file), no external diff or fsmonitor program a repository's
config could name."""

from __future__ import annotations

import math
import os
import subprocess
import time

from ..common.jsvalues import iso_from_ms

TIMEOUT = 5.0  # seconds for one git call
BUDGET = 20.0  # seconds for all the calls of one probe: past that git is not asked again


class GitProbe:
    """git in the work tree at `top` (`open_probe` finds it)."""

    def __init__(self, top: str, git: str = "git") -> None:
        self.top = top
        self.git = git
        self._deadline = time.monotonic() + BUDGET

    def _run(self, *args: str) -> subprocess.CompletedProcess[bytes] | None:
        left = self._deadline - time.monotonic()
        if left <= 0:
            return None
        return _git(self.git, self.top, list(args), min(TIMEOUT, left))

    def _inside(self, path: str) -> str | None:
        rel = os.path.relpath(path, self.top)
        return None if rel == os.pardir or rel.startswith(os.pardir + os.sep) else rel

    def differs_from_head(self, path: str) -> bool | None:
        rel = self._inside(path)
        if rel is None:
            return None
        done = self._run("diff", "--no-ext-diff", "--no-textconv", "--quiet", "HEAD", "--", rel)
        if done is None or done.returncode not in (0, 1):
            return None
        return done.returncode == 1

    def commits_since(self, path: str, since_ms: float) -> int | None:
        rel = self._inside(path)
        when = iso_from_ms(math.floor(since_ms / 1000) * 1000.0 + 1000.0)  # after that second
        if rel is None or when is None:
            return None
        done = self._run("log", f"--since={when}", "--format=%H", "--", rel)
        if done is None or done.returncode != 0:
            return None
        return len(done.stdout.split())


def open_probe(cwd: str, git: str = "git") -> GitProbe | None:
    """A probe when `cwd` lies in a git work tree with a HEAD, else None (no git, no repo)."""
    if not cwd or not os.path.isdir(cwd):
        return None
    done = _git(git, cwd, ["rev-parse", "--show-toplevel", "--verify", "-q", "HEAD"], TIMEOUT)
    if done is None or done.returncode != 0:
        return None
    lines = done.stdout.decode("utf-8", "surrogateescape").splitlines()
    return GitProbe(lines[0], git) if lines and os.path.isabs(lines[0]) else None


def _git(git: str, where: str, args: list[str], timeout: float) -> subprocess.CompletedProcess[bytes] | None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    argv = [git, "--no-pager", "-c", "core.fsmonitor=false", "-C", where, *args]
    try:
        return subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            timeout=timeout,
            check=False,
        )
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None
