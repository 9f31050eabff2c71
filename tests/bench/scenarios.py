"""What each browser row does inside its probe process (probe.py), timed by painted frames.

Every scenario finds the panes by their ids (#sidebar, #tree, #context), sends keys the way
Textual's own drivers do (`driver.send_message(Key)`, the path a terminal's input takes) and
waits on the mirrored screen (screen.py), never on a handler returning. Results go into
`RESULT`; times there are durations in seconds unless named `*_at` (time.monotonic()).
"""

from __future__ import annotations

import asyncio
import json
import resource
import time
from collections.abc import Awaitable, Callable
from typing import Any

from .screen import Box, Frame, ScreenMirror

WIDTH, HEIGHT = 160, 48
RESULT: dict[str, Any] = {}
Scenario = Callable[[Any, dict[str, Any]], Awaitable[None]]


def memory() -> dict[str, int]:
    """Current and peak resident memory of this process, in bytes."""
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0]) * 1024
    return out


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def idle(window: float = 1.5, share: float = 0.05, limit: float = 180.0) -> float:
    """Wait until the process (all its threads) used under `share` of a core for `window`
    seconds: background work (the search index, the watcher starting) is done. Returns when
    that quiet window began."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        before, t0 = cpu_seconds(), time.monotonic()
        await asyncio.sleep(window)
        if cpu_seconds() - before < share * (time.monotonic() - t0):
            return t0
    raise TimeoutError("the app never went idle")


def mirror() -> ScreenMirror:
    assert ScreenMirror.current is not None
    return ScreenMirror.current


def box_of(widget: Any) -> Box:
    region = widget.region
    return Box(region.x, region.y, region.width, region.height)


async def pane_boxes(app: Any, ids: list[str], limit: float = 120.0) -> dict[str, Box]:
    """Where the panes are on screen, once the main screen has been laid out."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            boxes = {name: box_of(app.screen.query_one(f"#{name}")) for name in ids}
        except Exception:  # the main screen is not mounted yet
            boxes = {}
        if boxes and all(b.width and b.height for b in boxes.values()):
            return boxes
        await asyncio.sleep(0.005)
    raise TimeoutError(f"no panes {ids} on screen")


def filled(frame: Frame, box: Box, lines: int) -> bool:
    return sum(1 for line in frame.text(box).splitlines() if line.strip()) >= lines


def send_key(app: Any, key: str) -> None:
    """A key press as a terminal's input thread delivers it."""
    from textual import events
    from textual.keys import _character_to_key

    char = key if len(key) == 1 else None
    name = _character_to_key(key) if len(key) == 1 and not key.isalnum() else key
    app._driver.send_message(events.Key(name, char))


async def first_useful_screen(pilot: Any, need: dict[str, int]) -> tuple[dict[str, Box], Frame]:
    """The first frame where each pane in `need` shows at least that many lines of text."""
    boxes = await pane_boxes(pilot.app, list(need))
    frame = await mirror().wait_for(lambda f: all(filled(f, boxes[n], k) for n, k in need.items()))
    return boxes, frame


# ---------------------------------------------------------------------- start-up rows
async def screen(pilot: Any, params: dict[str, Any]) -> None:
    """Start -> first useful screen; memory then and once everything started has finished."""
    _, frame = await first_useful_screen(pilot, params["need"])
    RESULT["shown_at"] = frame.when
    if params.get("show"):
        RESULT["screen"] = frame.text()
    RESULT["rss_shown"] = memory()["VmHWM"]
    RESULT["idle_at"] = await idle()
    RESULT["rss_peak"] = memory()["VmHWM"]
    RESULT["rss_idle"] = memory()["VmRSS"]
    RESULT["mirror_ok"] = mirror().matches_app(pilot.app)


async def hello(pilot: Any, params: dict[str, Any]) -> None:
    frame = await mirror().wait_for(lambda f: "Hello, world!" in f.text())
    RESULT["shown_at"] = frame.when
    RESULT["rss_shown"] = memory()["VmHWM"]
    RESULT["idle_at"] = await idle(0.5)
    RESULT["rss_peak"] = memory()["VmHWM"]


# ---------------------------------------------------------------------- keys and appends
def _next_quiet(latency: float) -> float:
    """How long the screen must stay unchanged after a key before it counts as settled."""
    return max(0.3, 3 * latency)


def _answers(app: Any) -> dict[str, float]:
    """query -> when the sidebar was handed its answer (time.monotonic()). The main screen's
    sidebar is wrapped to note the moment; nothing else changes."""
    sidebar = app.screen.sidebar
    original = sidebar.show_matches
    answered: dict[str, float] = {}

    def show_matches(results: Any, *args: Any, **kwargs: Any) -> Any:
        answered.setdefault(getattr(results, "text", ""), time.monotonic())
        return original(results, *args, **kwargs)

    sidebar.show_matches = show_matches
    return answered


async def _answer_to(answered: dict[str, float], typed: str, limit: float = 180.0) -> float:
    deadline = time.monotonic() + limit
    while typed not in answered:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the sidebar never got the answer to {typed!r}")
        await asyncio.sleep(0.002)
    return answered[typed]


async def search(pilot: Any, params: dict[str, Any]) -> None:
    """Type the query letter by letter into the sidebar search, `passes` times. Per key: the
    time from the key to the first frame drawn after the sidebar got the answer to what was
    typed (its rows for that query: not the echo, and not a frame that only shows the
    letter while the answer is still being worked out; the first key of the first pass waits
    for whatever the search line's opening started), and to the search field showing the
    letter. The next key goes in once the screen has settled. Memory: resident and peak
    before the search line opened and after the passes."""
    app, m = pilot.app, mirror()
    boxes, _ = await first_useful_screen(pilot, {"sidebar": 5, "tree": 3, "context": 3})
    await idle()
    sidebar = boxes["sidebar"]
    answered = _answers(app)
    RESULT["rss_before"] = memory()["VmRSS"]
    passes = []
    for _ in range(params["passes"]):
        t0 = time.monotonic()
        send_key(app, "/")
        await m.settle(sidebar, since=t0, quiet=0.3)
        field = box_of(app.focused)
        keys = []
        for i, char in enumerate(params["query"]):
            typed = params["query"][: i + 1]
            answered.pop(typed, None)
            t0 = time.monotonic()
            send_key(app, char)
            at = await _answer_to(answered, typed)
            shown = await m.wait_for(lambda f, at=at: f.when >= at, since=t0)  # type: ignore[misc]  # (mypy cannot infer a lambda with a default argument)
            echo = next(f for f in m.frames if f.when >= t0 and typed in f.text(field))
            keys.append(
                {"typed": typed, "shown": shown.when - t0, "answered": at - t0, "echo": echo.when - t0}
            )
            await m.settle(sidebar, since=shown.when, quiet=_next_quiet(shown.when - t0))
        passes.append(keys)
        t0 = time.monotonic()
        send_key(app, "escape")
        await m.settle(sidebar, since=t0, quiet=0.5)
        await idle(0.5)
    RESULT["passes"] = passes
    RESULT["rss_after"] = memory()["VmRSS"]
    RESULT["rss_peak"] = memory()["VmHWM"]


async def moves(pilot: Any, params: dict[str, Any]) -> None:
    """Up then Down from the end of the open session: key -> the context pane settled."""
    app, m = pilot.app, mirror()
    boxes, _ = await first_useful_screen(pilot, {"tree": 5, "context": 5})
    await idle()
    context = boxes["context"]
    times = []
    quiet = 0.5
    for key in ["up"] * params["count"] + ["down"] * params["count"]:
        before = m.last()
        t0 = time.monotonic()
        send_key(app, key)
        shown = await m.settle(context, since=t0, quiet=quiet)
        if before is not None and shown.text(context) == before.text(context):
            raise RuntimeError(f"{key} did not change the context pane")
        times.append(shown.when - t0)
        quiet = _next_quiet(times[-1])
    RESULT["times"] = times


async def search_once(app: Any, query: str) -> None:
    """From the tree, search the sidebar for `query` and clear it again, as a user would: from
    then on the sessions' search index exists and every append has to keep it current."""
    for key in ["shift+tab", "slash", *query, "escape", "tab"]:
        send_key(app, "/" if key == "slash" else key)
        await idle(0.3)


async def live(pilot: Any, params: dict[str, Any]) -> None:
    """Append a user message to the open session (as pi does: one line, flushed): the write ->
    the tree and context panes settled, showing it."""
    m = mirror()
    boxes, _ = await first_useful_screen(pilot, {"tree": 5, "context": 5})
    await idle()
    await search_once(pilot.app, "message")
    panes = (boxes["tree"], boxes["context"])
    parent = params["leaf"]
    times = []
    quiet = 0.5
    for i in range(params["count"]):
        marker = f"live question {i:04d}"
        entry = {
            "type": "message",
            "id": f"live{i:04d}",
            "parentId": parent,
            "timestamp": "2026-01-02T00:00:00.000Z",
            "message": {"role": "user", "content": f"{marker} for the bench", "timestamp": 1767312000000 + i},
        }
        line = json.dumps(entry) + "\n"
        t0 = time.monotonic()
        with open(params["path"], "a") as f:
            f.write(line)
        await m.wait_for(lambda f, marker=marker: marker in f.text(panes), since=t0)  # type: ignore[misc]  # (mypy cannot infer a lambda with a default argument)
        shown = await m.settle(panes, since=t0, quiet=quiet)
        times.append(shown.when - t0)
        quiet = _next_quiet(times[-1])
        parent = entry["id"]
    RESULT["times"] = times


# ---------------------------------------------------------------------- floors
async def hello_keys(pilot: Any, params: dict[str, Any]) -> None:
    """Floor for key rows: a hello-world app's Input, key -> the letter on screen."""
    app, m = pilot.app, mirror()
    await m.wait_for(lambda f: "Hello, world!" in f.text())
    await idle(0.5)
    field = box_of(app.focused)
    times = []
    text = params["text"]
    for i, char in enumerate(text):
        t0 = time.monotonic()
        send_key(app, char)
        shown = await m.wait_for(lambda f, typed=text[: i + 1]: typed in f.text(field), since=t0)  # type: ignore[misc]  # (mypy cannot infer a lambda with a default argument)
        times.append(shown.when - t0)
        await asyncio.sleep(0.05)
    RESULT["times"] = times


async def hello_watch(pilot: Any, params: dict[str, Any]) -> None:
    """Floor for the live row: a hello-world app showing a file's last line (watchfiles, the
    same OS notifications), write -> the line on screen."""
    m = mirror()
    await m.wait_for(lambda f: "Hello, world!" in f.text())
    await idle(1.5)  # the OS watch is installed in the background
    times = []
    for i in range(params["count"]):
        marker = f"live line {i:04d}"
        t0 = time.monotonic()
        with open(params["path"], "a") as f:
            f.write(json.dumps({"type": "custom", "text": marker}) + "\n")
        shown = await m.wait_for(lambda f, marker=marker: marker in f.text(), since=t0)  # type: ignore[misc]  # (mypy cannot infer a lambda with a default argument)
        times.append(shown.when - t0)
        await asyncio.sleep(0.2)
    RESULT["times"] = times


def hello_world_app(name: str, params: dict[str, Any]) -> Any:
    """The smallest Textual app for each floor: a greeting; plus an Input, or a watched file."""
    from textual.app import App, ComposeResult
    from textual.widgets import Input, Static

    class Hello(App[None]):
        def compose(self) -> ComposeResult:
            yield Static("Hello, world!")
            if name == "hello-keys":
                yield Input()
            if name == "hello-watch":
                yield Static("", id="last")

        async def on_mount(self) -> None:
            if name == "hello-watch":
                self.run_worker(self.follow(params["path"]))

        async def follow(self, path: str) -> None:
            import os

            import watchfiles
            from rich.text import Text

            async for _ in watchfiles.awatch(path, step=1):
                with open(path, "rb") as f:
                    f.seek(max(0, os.path.getsize(path) - 4096))
                    last = f.read().rstrip(b"\n").rsplit(b"\n", 1)[-1]
                self.query_one("#last", Static).update(Text(last.decode(errors="replace")))

    return Hello()


SCENARIOS: dict[str, Scenario] = {
    "screen": screen,
    "search": search,
    "moves": moves,
    "live": live,
    "hello": hello,
    "hello-keys": hello_keys,
    "hello-watch": hello_watch,
}
