"""One real browser process, measured from the inside: `pi-sessions ARGS` with a headless driver.

    python -m tests.bench.probe SCENARIO RESULT.json PARAMS_JSON [-- pi-sessions arguments]

The process runs the real command line (`pi_sessions.app.cli.main`) exactly as the installed
`pi-sessions` script does; the only change is that `App.run` is told to use Textual's headless
driver at 160x48 with an autopilot (the scenario), and that every painted frame is mirrored as
text (screen.py). Textual is patched when the app first imports it, not before, so the command
line still sets its environment (colours, animations) before Textual reads it. The `hello*`
scenarios run a hello-world Textual app the same way: the floors the browser rows compare with.

Why this is faithful: the time runs from the moment the parent starts the process (interpreter
start, imports, settings, scan, layout included) to the frame Textual hands to its driver, the
point where a terminal driver would write it out; the headless driver only skips that write
(the same for the hello-world app). Keys go in where a terminal's keys do (the driver's
`send_message`), and a result counts once it is on the mirrored screen, not when a handler
returns.

Scenarios write a JSON object to RESULT.json: times are `time.monotonic()` values (the parent
compares them with the moment it started the process) or durations in seconds.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from .scenarios import HEIGHT, RESULT, SCENARIOS, WIDTH, Scenario, hello_world_app


def _patch_textual(scenario: Scenario, params: dict[str, Any]) -> None:
    from textual.app import App

    from .screen import ScreenMirror

    ScreenMirror.install(WIDTH, HEIGHT)
    original_run = App.run

    def run(self: App[Any], *args: Any, **kwargs: Any) -> Any:
        async def pilot(pilot: Any) -> None:
            try:
                await scenario(pilot, params)
            except Exception as e:  # reported by the parent, with the screen as it was
                import traceback

                RESULT["error"] = f"{type(e).__name__}: {e}"
                RESULT["traceback"] = traceback.format_exc()
                last = ScreenMirror.current.last() if ScreenMirror.current else None
                RESULT["screen"] = last.text() if last else ""
            finally:
                pilot.app.exit()

        return original_run(self, headless=True, size=(WIDTH, HEIGHT), auto_pilot=pilot)

    App.run = run  # type: ignore[method-assign]


class _AfterImport(importlib.abc.MetaPathFinder):
    """Calls `then()` right after `textual.app` has been imported by whoever imports it."""

    def __init__(self, then: Callable[[], None]) -> None:
        self.then = then

    def find_spec(self, name: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if name != "textual.app":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        loader, then = spec.loader, self.then

        class Loader(importlib.abc.Loader):
            def create_module(self, spec: Any) -> Any:
                return loader.create_module(spec)

            def exec_module(self, module: Any) -> None:
                loader.exec_module(module)
                sys.modules[name] = module
                then()

        spec.loader = Loader()
        return spec


def main() -> None:
    name, result_path, params_json, *rest = sys.argv[1:]
    argv = rest[1:] if rest[:1] == ["--"] else rest
    params = json.loads(params_json)
    scenario = SCENARIOS[name]
    sys.meta_path.insert(0, _AfterImport(lambda: _patch_textual(scenario, params)))
    # PI_BENCH_PROFILE=FILE: a cProfile of the main thread (where the app handles keys and
    # appends), to see what a measured figure is made of.
    profile_to = os.environ.get("PI_BENCH_PROFILE")
    profiler = None
    if profile_to:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    try:
        if name.startswith("hello"):
            hello_world_app(name, params).run()
        else:
            from pi_sessions.app.cli import main as cli_main

            code = cli_main(argv)
            if code:
                RESULT.setdefault("error", f"pi-sessions exited with {code}")
    except BaseException as e:
        RESULT.setdefault("error", f"{type(e).__name__}: {e}")
    if profiler is not None and profile_to:
        profiler.disable()
        profiler.dump_stats(profile_to)
    with open(result_path, "w") as f:
        json.dump(RESULT, f)
    os._exit(0)  # the app's threads (watcher, workers) are not worth waiting for


if __name__ == "__main__":
    main()
