"""pi's `system` theme asks the terminal for its colours (OSC 10/11 and DA1) before the
browser starts: a terminal that answers decides dark or light, one that does not costs at most
the timeout and leaves COLORFGBG, then dark (core/common/terminal_query.py, app/config.py)."""

from __future__ import annotations

import os
import pty
import select
import threading
from pathlib import Path

from pi_sessions.app.config import resolve_theme
from pi_sessions.core.common.terminal_colours import QUERY, TerminalColours
from pi_sessions.core.common.terminal_query import query_colours


def terminal(answer: bytes | None) -> tuple[int, threading.Thread, list[bytes]]:
    """A pty whose far end reads the query and, unless `answer` is None, answers it."""
    master, slave = pty.openpty()
    asked: list[bytes] = []

    def far_end() -> None:
        data = b""
        while QUERY not in data and select.select([master], [], [], 5)[0]:
            data += os.read(master, 1024)
        asked.append(data)
        if answer is not None:
            os.write(master, answer)

    thread = threading.Thread(target=far_end, daemon=True)
    thread.start()
    return slave, thread, asked


def ask(answer: bytes | None, timeout: float = 0.1) -> tuple[TerminalColours | None, list[bytes]]:
    slave, far_end, asked = terminal(answer)
    result: list[TerminalColours | None] = []
    asking = threading.Thread(target=lambda: result.append(query_colours(slave, timeout)), daemon=True)
    asking.start()
    asking.join(10)
    assert not asking.is_alive(), "the query hung"
    far_end.join(10)
    return result[0], asked


def test_a_terminal_that_answers_decides() -> None:
    light = b"\x1b]10;rgb:0000/0000/0000\x1b\\\x1b]11;rgb:ffff/ffff/ffff\x07\x1b[?62;22c"
    colours, asked = ask(light, timeout=5.0)  # (returns at the DA1 answer, not the timeout)
    assert asked and QUERY in asked[0]
    assert colours == TerminalColours((0, 0, 0), (255, 255, 255))
    choice = resolve_theme("system", {}, ask=lambda: colours)
    assert choice.appearance == "light" and "#ffffff" in choice.why


def test_a_terminal_that_answers_only_da1_falls_back_to_colorfgbg() -> None:
    colours, _ = ask(b"\x1b[?1;2c", timeout=5.0)
    assert colours == TerminalColours()
    assert resolve_theme("system", {"COLORFGBG": "0;15"}, ask=lambda: colours).appearance == "light"
    assert resolve_theme("system", {}, ask=lambda: colours).appearance == "dark"


def test_a_terminal_that_never_answers_does_not_hang() -> None:
    colours, asked = ask(None)
    assert asked and colours == TerminalColours()  # asked, nothing came: dark
    assert resolve_theme("system", {}, ask=lambda: colours).appearance == "dark"


def test_no_terminal_no_question(tmp_path: Path) -> None:
    with open(tmp_path / "not-a-tty", "w+b") as f:
        assert query_colours(f.fileno()) is None


def test_pis_system_theme_and_pairs_ask_and_a_fixed_theme_does_not(tmp_path: Path) -> None:
    asked: list[int] = []

    def light() -> TerminalColours:
        asked.append(1)
        return TerminalColours(None, (250, 250, 250))

    agent = tmp_path / "agent"
    agent.mkdir()
    env = {"PI_CODING_AGENT_DIR": str(agent)}
    for value, expected in (("system", "light"), ("light/dark", "light"), ("dark", "dark")):
        (agent / "settings.json").write_text(f'{{"theme": "{value}"}}')
        assert resolve_theme(None, env, str(tmp_path), ask=light).appearance == expected, value
    assert len(asked) == 2  # pi's "dark" needs no terminal
    assert resolve_theme("dark", env, ask=light).appearance == "dark" and len(asked) == 2
