"""`pi-sessions serve`: the app in a web page, on localhost unless asked, knowing it is served."""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import aiohttp
import pytest
from pi_sessions.app import guarded_server, subcommands
from pi_sessions.app.subcommands import serve

DEADLINE = 60.0  # only a hang reaches this (an app starting on a loaded machine takes seconds)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(tmp_path: Path, *args: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "pi_sessions.app.cli", "serve", "--port", str(port), *args],
        stdout=(tmp_path / "serve.out").open("wb"),
        stderr=(tmp_path / "serve.log").open("wb"),
    )
    return proc, port


def printed_url(proc: subprocess.Popen[bytes], tmp_path: Path) -> str:
    """The address `serve` tells the user to open, once it has printed it."""
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        found = re.search(r"serving the browser on (\S+)", (tmp_path / "serve.out").read_text())
        if found:
            return found.group(1)
        try:
            proc.wait(timeout=0.05)
        except subprocess.TimeoutExpired:
            continue
        raise AssertionError(f"the server exited with status {proc.returncode}")
    raise AssertionError("the server printed no address in time")


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=DEADLINE) as response:
            return int(response.status), str(response.read().decode("utf-8"))
    except urllib.error.HTTPError as refused:
        return int(refused.code), str(refused.read().decode("utf-8"))


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


async def first_screen(url: str, wanted: bytes, headers: dict[str, str]) -> bytes:
    """What the app sends through the page's websocket until `wanted` appears."""
    received = b""
    async with aiohttp.ClientSession() as client, client.ws_connect(url, headers=headers) as ws:

        async def read() -> None:
            nonlocal received
            async for message in ws:
                if message.type == aiohttp.WSMsgType.BINARY:
                    received += message.data
                if wanted in received:
                    return

        await asyncio.wait_for(read(), DEADLINE)
    return received


async def ws_status(url: str, headers: dict[str, str]) -> int:
    """The HTTP status a WebSocket handshake gets (101 when it is accepted)."""
    async with aiohttp.ClientSession() as client:
        try:
            async with client.ws_connect(url, headers=headers):
                return 101
        except aiohttp.WSServerHandshakeError as refused:
            return refused.status


async def as_a_browser(base: str, token: str) -> tuple[int, int, int]:
    """Statuses of the page (with the token), its script (with the page's cookies), the script without."""
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as browser:
        async with browser.get(f"{base}/?token={token}") as page:
            page_status = page.status
        async with browser.get(f"{base}/static/js/textual.js") as script:
            script_status = script.status
    async with aiohttp.ClientSession() as stranger, stranger.get(f"{base}/static/js/textual.js") as refused:
        return page_status, script_status, refused.status


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], int, str]]:
    """A server on an empty sessions folder: its process, port and token."""
    (tmp_path / "sessions").mkdir()
    proc, port = start(tmp_path, "--session-dir", str(tmp_path / "sessions"), "--max-clients", "1")
    try:
        url = printed_url(proc, tmp_path)
        yield proc, port, parse_qs(urlsplit(url).query)["token"][0]
    finally:
        stop(proc)


def test_serve_shows_the_app_in_the_page_at_the_printed_address(
    served: tuple[subprocess.Popen[bytes], int, str], tmp_path: Path
) -> None:
    _, port, token = served
    status, page = get(f"http://127.0.0.1:{port}/?token={token}")
    assert status == 200 and "textual.js" in page and f"ws://127.0.0.1:{port}/ws" in page
    assert "<div>pi-sessions</div>" in page  # the title we gave textual-serve
    # as a browser: the page hands over the token as a cookie, and what the page loads carries it
    assert asyncio.run(as_a_browser(f"http://127.0.0.1:{port}", token)) == (200, 200, 403)
    # the page's own WebSocket (its origin, the cookie the page was given) gets the app itself
    own = {"Origin": f"http://127.0.0.1:{port}", "Cookie": f"pi_sessions_token={token}"}
    screen = asyncio.run(
        first_screen(f"ws://127.0.0.1:{port}/ws?width=100&height=30", b"No pi sessions", own)
    )
    assert b"\x1b[38;2;" in screen  # truecolor, as textual-serve asks
    log = (tmp_path / "serve.log").read_text()
    assert "WARNING" not in log  # localhost: nothing to warn about
    assert token not in log  # requests are not logged with their token


def test_another_page_can_neither_read_nor_drive_the_app(
    served: tuple[subprocess.Popen[bytes], int, str],
) -> None:
    _, port, token = served
    base = f"http://127.0.0.1:{port}"
    # without the token (a page that guesses the port), with a wrong one: nothing is served
    for path in ("/", "/?token=wrong", "/static/js/textual.js", "/download/x"):
        status, body = get(base + path)
        assert status == 403 and "textual.js" not in body, path
    # DNS rebinding: the right token cannot arrive under another name (the page's own host)
    assert get(f"{base}/?token={token}", {"Host": f"evil.example:{port}"})[0] == 403
    # a WebSocket opened by a foreign page carries its own Origin: refused, token or not
    ws = f"ws://127.0.0.1:{port}/ws"
    cookie = {"Cookie": f"pi_sessions_token={token}"}
    assert asyncio.run(ws_status(ws, {"Origin": "http://evil.example", **cookie})) == 403
    assert asyncio.run(ws_status(ws, {"Origin": f"http://127.0.0.1:{port}"})) == 403  # no token
    assert asyncio.run(ws_status(ws, cookie)) == 403  # no Origin at all


def test_pages_beyond_max_clients_are_turned_away(served: tuple[subprocess.Popen[bytes], int, str]) -> None:
    _, port, token = served
    own = {"Origin": f"http://127.0.0.1:{port}", "Cookie": f"pi_sessions_token={token}"}
    url = f"ws://127.0.0.1:{port}/ws?width=999999&height=999999"

    async def two_pages() -> tuple[bytes, int]:
        async with aiohttp.ClientSession() as client, client.ws_connect(url, headers=own) as first:
            shown = b""
            while b"No pi sessions" not in shown:  # the first page's app is up (at a clamped size)
                message = await asyncio.wait_for(first.receive(), DEADLINE)
                if message.type == aiohttp.WSMsgType.BINARY:
                    shown += message.data
            return shown, await ws_status(url, own)

    shown, second = asyncio.run(two_pages())
    assert second == 503  # --max-clients 1
    assert b"No pi sessions" in shown


async def test_an_app_that_does_not_quit_is_ended_when_its_page_goes(tmp_path: Path) -> None:
    from aiohttp.test_utils import TestClient, TestServer

    pid_file = tmp_path / "pid"
    stubborn = shlex.join(
        [
            sys.executable,
            "-c",
            f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(600)",
        ]
    )
    server = guarded_server.GuardedServer(
        f"exec {stubborn}",
        host="127.0.0.1",
        port=1,
        public_url="http://127.0.0.1:1",
        max_clients=1,
        announce=lambda _: None,
    )
    server.quit_grace = 0.2
    client = TestClient(TestServer(await server._make_app()))
    await client.start_server()
    try:
        own = {
            "Host": "127.0.0.1:1",
            "Origin": "http://127.0.0.1:1",
            "Cookie": f"pi_sessions_token={server.token}",
        }
        async with client.ws_connect("/ws", headers=own):
            deadline = time.monotonic() + DEADLINE
            while not pid_file.exists() or not pid_file.read_text():
                assert time.monotonic() < deadline, "the app never started"
                await asyncio.sleep(0.01)
        pid = int(pid_file.read_text())
        while server.clients:  # the page has gone: the server ends its app
            assert time.monotonic() < deadline, "the server never noticed the page had gone"
            await asyncio.sleep(0.01)
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    finally:
        await client.close()


def test_sizes_a_page_asks_for_are_clamped() -> None:
    assert guarded_server.clamp_size("999999", "-5") == (guarded_server.MAX_COLUMNS, 1)
    assert guarded_server.clamp_size("abc", None) == (80, 24)


def test_the_parts_of_textual_serve_we_build_on_are_there() -> None:
    """The pinned textual-serve still has what app/guarded_server.py overrides and reaches into."""
    import inspect

    from textual_serve.app_service import AppService
    from textual_serve.server import Server

    assert {
        "handle_websocket",
        "on_startup",
        "_make_app",
        "initialize_logging",
        "serve",
        "request_exit",
    } <= set(vars(Server))
    assert "self._process" in inspect.getsource(AppService._open_app_process)
    assert 'websocket_url+"?width="' in (
        Path(inspect.getfile(Server)).parent / "static/js/textual.js"
    ).read_text().replace(" ", "")  # why the token travels in a cookie, not in the WebSocket's URL


def test_serving_beyond_localhost_warns(tmp_path: Path) -> None:
    proc, port = start(tmp_path, "--host", "0.0.0.0", "--public-url", "http://example.invalid:1")
    try:
        token = parse_qs(urlsplit(printed_url(proc, tmp_path)).query)["token"][0]
        assert printed_url(proc, tmp_path).startswith("http://example.invalid:1/?token=")
        status, page = get(f"http://127.0.0.1:{port}/?token={token}")
        assert status == 200 and "ws://example.invalid:1/ws" in page
        assert get(f"http://127.0.0.1:{port}/?token={token}", {"Host": "example.invalid:1"})[0] == 200
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


def test_the_served_app_redacts_unless_no_redact_which_warns(tmp_path: Path) -> None:
    argv = serve.app_argv(subcommands.build_parser("serve").parse_args([]))
    assert "--redact" not in argv  # (run sets it: see below)
    ns = subcommands.build_parser("serve").parse_args(["--port", "9"])
    ns.redact = not ns.no_redact
    assert "--redact" in serve.app_argv(ns)
    out = subprocess.run(
        [sys.executable, "-m", "pi_sessions.app.cli", "serve", "--no-redact", "--port", "0"],
        capture_output=True,
        text=True,
    )
    assert "--no-redact" in out.stderr and "every secret" in out.stderr
