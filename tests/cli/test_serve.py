"""`pi-sessions serve`: the app in a web page, on localhost unless asked, knowing it is served."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import aiohttp
import pytest
from pi_sessions.app import subcommands
from pi_sessions.app.subcommands import serve

DEADLINE = 30.0  # only a hang reaches this


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(tmp_path: Path, *args: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    log = (tmp_path / "serve.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "pi_sessions.app.cli", "serve", "--port", str(port), *args],
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    return proc, port


def fetch_when_up(proc: subprocess.Popen[bytes], url: str) -> str:
    """The page at `url` once the server answers (waiting on the process between tries)."""
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return str(response.read().decode("utf-8"))
        except OSError:
            try:
                proc.wait(timeout=0.05)
            except subprocess.TimeoutExpired:
                continue
            raise AssertionError(f"the server exited with status {proc.returncode}") from None
    raise AssertionError("the server did not answer in time")


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


async def first_screen(url: str, wanted: bytes) -> bytes:
    """What the app sends through the page's websocket until `wanted` appears."""
    received = b""
    async with aiohttp.ClientSession() as client, client.ws_connect(url) as ws:

        async def read() -> None:
            nonlocal received
            async for message in ws:
                if message.type == aiohttp.WSMsgType.BINARY:
                    received += message.data
                if wanted in received:
                    return

        await asyncio.wait_for(read(), DEADLINE)
    return received


def test_serve_shows_the_app_in_a_web_page(tmp_path: Path) -> None:
    (tmp_path / "sessions").mkdir()
    proc, port = start(tmp_path, "--session-dir", str(tmp_path / "sessions"))
    try:
        page = fetch_when_up(proc, f"http://127.0.0.1:{port}/")
        assert "textual.js" in page and f"ws://127.0.0.1:{port}/ws" in page
        assert "<div>pi-sessions</div>" in page  # the title we gave textual-serve
        # a browser that connects gets the app itself, drawn for the browser's terminal
        screen = asyncio.run(first_screen(f"ws://127.0.0.1:{port}/ws?width=100&height=30", b"No pi sessions"))
        assert b"\x1b[38;2;" in screen  # truecolor, as textual-serve asks
    finally:
        stop(proc)
    log = (tmp_path / "serve.log").read_text()
    assert "WARNING" not in log  # localhost: nothing to warn about


def test_serving_beyond_localhost_warns(tmp_path: Path) -> None:
    proc, port = start(tmp_path, "--host", "0.0.0.0", "--public-url", "http://example.invalid:1")
    try:
        page = fetch_when_up(proc, f"http://127.0.0.1:{port}/")
        assert "ws://example.invalid:1/ws" in page
    finally:
        stop(proc)
    log = (tmp_path / "serve.log").read_text()
    assert "WARNING: serving on 0.0.0.0" in log and "anyone who can reach this address" in log


def test_the_served_app_gets_the_flags_and_knows_it_is_served(tmp_path: Path) -> None:
    ns = subcommands.build_parser("serve").parse_args(
        ["--port", "9", "--ascii", "--theme", "light", "--session-dir", "/s", "some/file.jsonl"]
    )
    argv = serve.app_argv(ns)
    assert argv[0] == "--served" and "--ascii" in argv

    def value_of(flag: str) -> str:
        return argv[argv.index(flag) + 1]

    assert value_of("--theme") == "light" and value_of("--session-dir") == "/s"
    assert str(Path("some/file.jsonl").absolute()) in argv
    assert "--port" not in argv and "--host" not in argv


@pytest.mark.parametrize("port", ["0", "70000"])
def test_a_bad_port_is_one_line_exit_2(port: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "pi_sessions.app.cli", "serve", "--port", port], capture_output=True, text=True
    )
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "not a port" in out.stderr
