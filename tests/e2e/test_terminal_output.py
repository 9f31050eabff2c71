"""The terminal gets what it can show: the installed command's first screen, read from a real
pseudo-terminal, holds only the colour codes of the depth asked for, and only ASCII on a console."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import tempfile
import termios
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

COMMAND = Path(sys.executable).parent / "pi-sessions"
SGR = re.compile(rb"\x1b\[([0-9;:]*)m")
FIRST_SCREEN = b"Sessions"  # the sidebar's title: the first frame is out
COLOUR_QUERY = b"\x1b]11;?"  # the background asked for (pi's `system` theme)
WAIT = 30.0


def first_screen(
    *flags: str, env_extra: dict[str, str] | None = None, config: str = "", colours: bytes | None = None
) -> bytes:
    """What the terminal received up to the first frame, then `q` (with this config.toml;
    `colours`: the terminal's answer to a colour query, else it answers none)."""
    with tempfile.TemporaryDirectory() as config_home:
        (Path(config_home) / "pi-sessions").mkdir()
        (Path(config_home) / "pi-sessions" / "config.toml").write_text(config)
        return _run(flags, env_extra or {}, config_home, colours)


def _run(
    flags: tuple[str, ...], env_extra: dict[str, str], config_home: str, colours: bytes | None = None
) -> bytes:
    pid, fd = pty.fork()
    if pid == 0:  # the child: the browser on the demo set, as over SSH (no COLORTERM)
        env = {
            k: v for k, v in os.environ.items() if k not in ("COLORTERM", "NO_COLOR", "TEXTUAL_COLOR_SYSTEM")
        }
        env.update({"TERM": "xterm-256color", "XDG_CONFIG_HOME": config_home, **env_extra})
        try:
            os.execve(str(COMMAND), [str(COMMAND), "--demo", *flags], env)
        finally:
            os._exit(127)  # (never back into pytest from the child)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    out = b""
    deadline = time.monotonic() + WAIT
    try:
        while time.monotonic() < deadline and FIRST_SCREEN not in out:
            ready, _, _ = select.select([fd], [], [], 0.5)
            if ready:
                out += os.read(fd, 1 << 16)
            if colours is not None and COLOUR_QUERY in out:
                os.write(fd, colours)  # the terminal answers the browser's question
                colours = None
        # The rest of that frame: read until the terminal is quiet for a moment.
        while select.select([fd], [], [], 0.5)[0]:
            out += os.read(fd, 1 << 16)
        os.write(fd, b"q")
        while select.select([fd], [], [], 5.0)[0]:
            if not os.read(fd, 1 << 16):
                break
    except OSError:  # the child ended and closed its side
        pass
    finally:
        os.close(fd)
        os.waitpid(pid, 0)
    assert FIRST_SCREEN in out, out[-2000:]
    return out


def colour_kinds(out: bytes) -> set[str]:
    """Which kinds of colour the SGR sequences set: '16', '256', 'truecolor'."""
    kinds: set[str] = set()
    for match in SGR.finditer(out):
        params = [p for p in re.split(rb"[;:]", match.group(1))]
        i = 0
        while i < len(params):
            p = int(params[i] or b"0")
            if p in (38, 48) and i + 1 < len(params):
                mode = int(params[i + 1] or b"0")
                kinds.add("256" if mode == 5 else "truecolor")
                i += 3 if mode == 5 else 5
                continue
            if 30 <= p <= 37 or 40 <= p <= 47 or 90 <= p <= 97 or 100 <= p <= 107:
                kinds.add("16")
            i += 1
    return kinds


@pytest.mark.parametrize(
    ("flag", "allowed"),
    [("16", {"16"}), ("256", {"16", "256"}), ("truecolor", {"16", "256", "truecolor"}), ("none", set())],
)
def test_the_color_flag_sets_the_depth(flag: str, allowed: set[str]) -> None:
    kinds = colour_kinds(first_screen("--color", flag))
    assert kinds <= allowed, kinds
    if flag == "truecolor":
        assert "truecolor" in kinds
    if flag in ("16", "256"):
        assert flag in kinds


def test_no_color_in_the_environment_means_no_colour() -> None:
    assert colour_kinds(first_screen(env_extra={"NO_COLOR": "1"})) == set()


def test_the_config_file_sets_the_depth() -> None:
    assert colour_kinds(first_screen(config='color = "16"\n')) == {"16"}


def test_no_color_still_shows_the_cursor_row() -> None:
    out = first_screen("--color", "none")
    # A row's worth of text in reverse video (the scrollbar's thumb is reversed too, one cell wide).
    assert re.search(rb"\x1b\[(?:[0-9;]*;)?7(?:;[0-9;]*)?m[^\x1b]{10,}", out), "the cursor row is invisible"


@pytest.mark.parametrize("env", [{"TERM": "linux"}, {"TERM": "vt100"}, {"LANG": "C", "LC_ALL": "C"}])
def test_a_console_gets_ascii_without_asking(env: dict[str, str]) -> None:
    out = first_screen(env_extra=env)
    shown = SGR.sub(b"", out).decode("utf-8", "replace")
    drawn = set(re.sub(r"\x1b[^a-zA-Z]*[a-zA-Z]", "", shown))  # text only, no sequences
    assert not {ch for ch in drawn if ord(ch) > 126}, sorted(ch for ch in drawn if ord(ch) > 126)[:20]


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM])
def test_a_closed_terminal_leaves_no_demo_copy_behind(signum: int, tmp_path: Path) -> None:
    pid, fd = pty.fork()
    if pid == 0:
        try:
            os.execve(str(COMMAND), [str(COMMAND), "--demo"], {**os.environ, "TMPDIR": str(tmp_path)})
        finally:
            os._exit(127)
    out = b""
    deadline = time.monotonic() + WAIT
    try:
        while time.monotonic() < deadline and FIRST_SCREEN not in out:
            if select.select([fd], [], [], 0.5)[0]:
                out += os.read(fd, 1 << 16)
        assert FIRST_SCREEN in out, out[-2000:]
        assert list(tmp_path.glob("pi-sessions-demo-*"))  # the copy being browsed
        os.kill(pid, signum)  # the terminal window is closed
    finally:
        status = os.waitpid(pid, 0)[1]
        os.close(fd)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signum  # it ends as the signal says
    assert not list(tmp_path.glob("pi-sessions-demo-*"))


def backgrounds(out: bytes) -> list[tuple[int, int, int]]:
    """Every truecolor background the frame set."""
    found = []
    for match in re.finditer(rb"48;2;(\d+);(\d+);(\d+)", out):
        r, g, b = (int(x) for x in match.groups())
        found.append((r, g, b))
    return found


def test_the_system_theme_follows_the_background_the_terminal_reports() -> None:
    light = b"\x1b]10;rgb:2020/2020/2020\x07\x1b]11;rgb:fdfd/f6f6/e3e3\x07\x1b[?62;22c"
    out = first_screen("--theme", "system", "--color", "truecolor", colours=light)
    assert COLOUR_QUERY in out  # asked before the first frame
    assert sum(r + g + b for r, g, b in backgrounds(out)) / len(backgrounds(out)) > 3 * 160  # light


def test_the_system_theme_without_an_answer_starts_dark() -> None:
    out = first_screen("--theme", "system", "--color", "truecolor")  # (nobody answers: it goes on)
    assert COLOUR_QUERY in out
    assert sum(r + g + b for r, g, b in backgrounds(out)) / len(backgrounds(out)) < 3 * 100  # dark


def test_a_fixed_theme_asks_nothing() -> None:
    assert COLOUR_QUERY not in first_screen("--theme", "dark", "--color", "truecolor")
