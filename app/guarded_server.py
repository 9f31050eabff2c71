"""The web server behind `pi-sessions serve`: textual-serve's, guarded against other web pages.

A page the user visits in the same browser (or a DNS-rebound name) can reach a server on
localhost. So every request must carry this run's secret token (in the printed URL's query, then
in a cookie that is only sent to this origin), its Host must be one this server answers to, and
a WebSocket's Origin must be this server's own page. Each connected page costs an app process of
its own: their number is bounded, a page's terminal size is clamped, and an app that does not
quit when its page goes away is ended.

textual-serve's `Server` is subclassed here and only here; what it is relied on for (its route
names, `handle_websocket`'s place, `AppService._process`) is checked by tests/cli/test_serve.py
against the pinned version.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import secrets
import signal
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server

TOKEN_COOKIE = "pi_sessions_token"
MAX_COLUMNS = 1000
MAX_ROWS = 500

log = logging.getLogger("pi-sessions.serve")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def clamp_size(width: object, height: object) -> tuple[int, int]:
    """A terminal size a page asked for, kept within what one app may be drawn at."""

    def number(value: object, default: int, top: int) -> int:
        try:
            wanted = int(str(value))
        except ValueError:
            return default
        return max(1, min(wanted, top))

    return number(width, 80, MAX_COLUMNS), number(height, 24, MAX_ROWS)


def allowed_hosts(host: str, port: int, public_url: str) -> frozenset[str]:
    """The Host header values this server answers to (lowercase, with the port)."""
    # The loopback names are always safe: a rebinding page arrives under its own name.
    names = {host.lower(), "127.0.0.1", "localhost", "[::1]"}
    hosts = {
        f"[{name}]:{port}" if ":" in name and not name.startswith("[") else f"{name}:{port}" for name in names
    }
    public = urlsplit(public_url)
    if public.netloc:
        hosts.add(public.netloc.lower())
        if public.port is None:  # a browser leaves the default port out of Host
            hosts.add((public.hostname or "").lower())
    return frozenset(hosts)


class GuardedServer(Server):
    """textual-serve's server with a token, Host and Origin checks and a bound on clients."""

    quit_grace = 5.0  # seconds an app has to quit by itself once its page is gone

    def __init__(
        self,
        command: str,
        *,
        host: str,
        port: int,
        public_url: str,
        max_clients: int,
        token: str | None = None,
        announce: Callable[[str], None] = print,
    ) -> None:
        super().__init__(command, host=host, port=port, title="pi-sessions", public_url=public_url)
        self.token = token or secrets.token_urlsafe(24)
        self.max_clients = max_clients
        self.clients = 0
        self.endings: set[asyncio.Future[None]] = set()
        self.hosts = allowed_hosts(host, port, public_url)
        self.origins = frozenset(f"{scheme}://{name}" for name in self.hosts for scheme in ("http", "https"))
        self.announce = announce

    @property
    def url(self) -> str:
        """The address to open: the page, with this run's token."""
        return f"{self.public_url}/?token={self.token}"

    def initialize_logging(self) -> None:
        # textual-serve's rich log would print every request's path, and so the token.
        logging.basicConfig(level=logging.WARNING, format="pi-sessions serve: %(message)s")

    async def on_startup(self, app: web.Application) -> None:
        pass  # (textual-serve prints its banner here, before the port listens)

    def serve(self, debug: bool = False) -> None:
        """Run until ctrl+c or SIGTERM; the address is printed once the port listens."""
        self.initialize_logging()
        loop = asyncio.new_event_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(signum, self.request_exit)

        def listening(*_: object) -> None:  # aiohttp's "running on" moment
            self.announce(f"pi-sessions: serving the browser on {self.url}")
            self.announce("pi-sessions: open that address (it holds this run's secret); ctrl+c stops")

        web.run_app(
            self._make_app(), host=self.host, port=self.port, handle_signals=False, loop=loop, print=listening
        )

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.middlewares.append(self.guard)
        return app

    def has_token(self, request: web.Request) -> bool:
        offered = request.query.get("token") or request.cookies.get(TOKEN_COOKIE) or ""
        return hmac.compare_digest(offered.encode("utf-8", "replace"), self.token.encode())

    @web.middleware
    async def guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Refuse a request from elsewhere before any route sees it."""
        if request.host.lower() not in self.hosts:
            raise web.HTTPForbidden(
                text="pi-sessions serve: this server does not answer to that host name (see --public-url)\n"
            )
        if not self.has_token(request):
            raise web.HTTPForbidden(
                text="pi-sessions serve: open the address printed at start (it holds the token)\n"
            )
        if request.path == "/ws" and request.headers.get("Origin", "").lower() not in self.origins:
            raise web.HTTPForbidden(text="pi-sessions serve: a WebSocket from another page\n")
        response = await handler(request)
        if request.query.get("token") and not response.prepared:
            response.set_cookie(TOKEN_COOKIE, self.token, httponly=True, samesite="Strict", path="/")
        return response

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One page's app: started if there is room, sized within bounds, ended when the page goes."""
        if self.clients >= self.max_clients:
            raise web.HTTPServiceUnavailable(
                text=f"pi-sessions serve: {self.max_clients} pages are open already (--max-clients)\n"
            )
        self.clients += 1
        websocket = web.WebSocketResponse(heartbeat=15)
        service: AppService | None = None
        try:
            await websocket.prepare(request)
            service = AppService(
                self.command,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=lambda: close_page(websocket),
                download_manager=self.download_manager,
                debug=False,
            )
            await service.start(*clamp_size(request.query.get("width", 80), request.query.get("height", 24)))
            await self.relay(websocket, service)
        except asyncio.CancelledError:
            await websocket.close()
        except Exception as error:  # one page's failure must not end the server
            log.warning("a page's connection failed: %s", type(error).__name__)
        finally:
            # aiohttp cancels this handler when the page's connection drops: the app is ended
            # in a task of its own, which that cancellation cannot stop half-way.
            ending = asyncio.ensure_future(self.release(service))
            self.endings.add(ending)
            ending.add_done_callback(self.endings.discard)
            await asyncio.shield(ending)
        return websocket

    async def release(self, service: AppService | None) -> None:
        """A page's place back, once its app has ended."""
        try:
            if service is not None:
                await end_app(service, self.quit_grace)
        finally:
            self.clients -= 1

    async def relay(self, websocket: web.WebSocketResponse, service: AppService) -> None:
        """The page's keys, sizes and focus changes, passed to its app."""
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope: Any = message.json()
            except ValueError:
                continue
            if not isinstance(envelope, list) or not envelope:
                continue
            kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
            if kind == "stdin" and isinstance(data, str):
                await service.send_bytes(data.encode("utf-8"))
            elif kind == "resize" and isinstance(data, dict):
                await service.set_terminal_size(*clamp_size(data.get("width"), data.get("height")))
            elif kind == "ping":
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await service.blur()
            elif kind == "focus":
                await service.focus()


async def close_page(websocket: web.WebSocketResponse) -> None:
    await websocket.close()


async def end_app(service: AppService, grace: float) -> None:
    """Ask the app to quit; if it has not within `grace` seconds, end its process."""
    with contextlib.suppress(Exception):  # it did not quit in time, or its pipes are gone
        await asyncio.wait_for(service.stop(), grace)
    process = getattr(service, "_process", None)
    if process is not None and process.returncode is None:
        process.kill()
        await process.wait()
