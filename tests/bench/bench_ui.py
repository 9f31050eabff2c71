"""The browser on the big tree, against pi measured in the same run.

first screen:  warm cache, app start -> sessions listed and one context shown
               target <= 0.2x pi's listAll
open largest:  select the largest session -> its tree and default leaf's context shown
               target <= 1.2x pi's open + buildSessionContext
move:          in a 10,000-entry session, one key press -> the context pane updated
               target: median under one frame (16.7 ms)
live append:   in a 100,000-entry session, pi appends one entry -> tree and context updated
               (on the event loop: the session taking in what the watcher's thread read, and
               the panes following); against a full rebuild of the tree in the same run
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from .common import pi_bench, ratio_line
from .trees import ensure_tree_2k as ensure_big_tree
from .trees import largest_files, write_long_session

FRAME_MS = 1000 / 60


def _app(root: Path, cache: Path, open_path: Path | None = None):
    from pi_sessions.app.config import Settings
    from pi_sessions.app.tui import PiSessionsApp
    from pi_sessions.core.common.locations import SessionsRoot

    return PiSessionsApp(
        Settings(),
        SessionsRoot(str(root), "bench", False),
        open_path=str(open_path) if open_path else None,
        current_cwd="/nowhere",
        cache_dir=str(cache),
    )


async def _until(pilot, condition, limit: float = 60.0) -> None:
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit("bench: timed out")
        await pilot.pause(0.001)


async def _session_shown(pilot, app):
    """The main screen once the opened session and its context are shown."""
    from pi_sessions.app.main_screen import MainScreen

    await _until(
        pilot,
        lambda: (
            isinstance(app.screen, MainScreen)
            and app.screen.session is not None
            and app.screen.context_view.projection is not None
        ),
    )
    return app.screen


async def first_screen(root: Path, cache: Path) -> float:
    from pi_sessions.app.main_screen import MainScreen

    started = time.perf_counter()
    app = _app(root, cache)
    async with app.run_test(size=(160, 48)) as pilot:

        def ready() -> bool:
            screen = app.screen
            return (
                isinstance(screen, MainScreen)
                and screen.scanned
                and screen.context_view.projection is not None
            )

        await _until(pilot, ready)
        return time.perf_counter() - started


async def open_largest(root: Path, cache: Path, path: Path) -> float:
    """From asking for the session to the first frame showing its tree and default context."""
    from pi_sessions.app.main_screen import MainScreen

    app = _app(root, cache)
    async with app.run_test(size=(160, 48)) as pilot:
        await _until(
            pilot,
            lambda: isinstance(app.screen, MainScreen) and app.screen.context_view.projection is not None,
        )
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.pause(0.3)  # let the first screen finish drawing
        loop = asyncio.get_running_loop()
        shown = loop.create_future()
        original = screen.opener.opened

        def opened(*args: object) -> None:
            original(*args)  # type: ignore[arg-type]
            screen.call_after_refresh(lambda: shown.done() or shown.set_result(time.perf_counter()))

        screen.opener.opened = opened  # type: ignore[method-assign,assignment]  # (wrapped to time the open)
        started = time.perf_counter()
        screen.open_session(str(path))
        finished = await shown
        assert screen.session is not None and screen.session.path == str(path)
        return finished - started


async def moves(root: Path, cache: Path, path: Path, count: int = 200) -> tuple[list[float], list[float]]:

    app = _app(root, cache, open_path=path)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await _session_shown(pilot, app)
        screen.focus_pane("tree")
        await pilot.pause()
        handler, key_to_frame = [], []
        loop = asyncio.get_running_loop()
        for _ in range(count):
            before = screen.context_view.projection
            started = time.perf_counter()
            screen.branch_tree.action_cursor_up()  # what the key does
            await _until(pilot, lambda before=before: screen.context_view.projection is not before)
            drawn = loop.create_future()
            screen.call_after_refresh(lambda drawn=drawn: drawn.done() or drawn.set_result(None))
            await drawn  # the next frame, with the new context in it, has been rendered
            key_to_frame.append((time.perf_counter() - started) * 1000)
            handler.append(screen.last_context_ms)
        return handler, key_to_frame


async def live_appends(
    root: Path, cache: Path, path: Path, count: int = 20
) -> tuple[list[float], list[float]]:
    """Time on the event loop for each appended entry, and of full tree rebuilds (the baseline)."""
    import json

    app = _app(root, cache, open_path=path)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await _session_shown(pilot, app)
        await _until(pilot, lambda: screen.watcher is not None and screen.watcher.running)
        assert screen.session is not None
        handled: list[float] = []
        settled: list[float] = []
        real_handler = screen.scan_watch.open_session_changed
        real_settle = screen.watcher.settle

        def timed(event, **kwargs):
            started = time.perf_counter()
            real_handler(event, **kwargs)
            handled.append((time.perf_counter() - started) * 1000 + (settled.pop() if settled else 0.0))

        def timed_settle(batch):
            started = time.perf_counter()
            result = real_settle(batch)
            settled.append((time.perf_counter() - started) * 1000)
            return result

        screen.scan_watch.open_session_changed = timed
        screen.watcher.settle = timed_settle
        for i in range(count):
            parent = screen.session.default_leaf
            eid = f"live{i}"
            line = {
                "type": "message",
                "id": eid,
                "parentId": parent,
                "timestamp": "2026-01-02T00:00:00.000Z",
                "message": {"role": "user", "content": f"live question {i}", "timestamp": 1767312000000 + i},
            }
            with open(path, "a") as f:
                f.write(json.dumps(line) + "\n")
            await _until(pilot, lambda eid=eid: eid in screen.branch_tree.index_by_id)
        rebuilds = []
        for _ in range(5):
            started = time.perf_counter()
            screen.branch_tree.rebuild(keep_view=True)
            rebuilds.append((time.perf_counter() - started) * 1000)
        return handled, rebuilds


def main() -> None:
    tree = ensure_big_tree()
    pi = pi_bench(tree)
    pi_list = pi["list_all_ms"] / 1000 if pi else None
    scratch = Path(tempfile.mkdtemp(prefix="pi-sessions-bench-ui-"))
    try:
        cache = scratch / "cache"
        root = tree / "sessions"
        from pi_sessions.core.listing.store import SessionStore

        SessionStore(root, cache_dir=cache, keep_text=True).scan()  # warm the cache
        times = [asyncio.run(first_screen(root, cache)) for _ in range(3)]
        print(ratio_line("first useful screen (warm cache)", statistics.median(times), pi_list, target=0.2))

        largest = largest_files(tree, 1)[0]
        pi_open = None
        if pi:
            item = next(x for x in pi["largest"] if x["file"].endswith(largest.name))
            pi_open = (item["open_ms"] + item["context_ms"]) / 1000
        times = [asyncio.run(open_largest(root, cache, largest)) for _ in range(3)]
        print(
            ratio_line(
                f"open the largest session ({largest.stat().st_size / 2**20:.0f} MiB) into tree + context",
                statistics.median(times),
                pi_open,
                target=1.2,
            )
        )

        long_root = scratch / "long"
        long_path = write_long_session(long_root / "--home-u-long--")
        handler, frames = asyncio.run(moves(long_root, scratch / "cache-long", long_path))
        median_handler, median_frame = statistics.median(handler), statistics.median(frames)
        verdict = "ok" if median_handler < FRAME_MS else "OVER one frame"
        print(
            f"move in a 10,000-entry session: context update median {median_handler:.2f} ms (max {max(handler):.1f}), "
            f"cursor move to rendered frame median {median_frame:.1f} ms  {verdict}"
        )

        huge_root = scratch / "huge"
        huge_path = write_long_session(huge_root / "--home-u-huge--", entries=100_000)
        handled, rebuilds = asyncio.run(live_appends(huge_root, scratch / "cache-huge", huge_path))
        median_handled, median_rebuild = statistics.median(handled), statistics.median(rebuilds)
        print(
            f"live append in a 100,000-entry session: on the loop median {median_handled:.1f} ms "
            f"(max {max(handled):.1f}), full tree rebuild {median_rebuild:.1f} ms, "
            f"ratio {median_handled / median_rebuild:.3f}x"
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
