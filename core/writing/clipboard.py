"""Copying text truthfully: which way can reach the user's clipboard here, trying them in
order, and a notice that says which one worked (or that none could).

pi 1.6.0's rules (utils/clipboard.js), plus tmux: the platform's own tool when there is a
desktop (pbcopy, clip, termux-clipboard-set, wl-copy, xclip, xsel); OSC 52 for a remote
session (SSH, mosh, or PI_CLIPBOARD_OSC52=1) and for a Linux box without any display; inside
tmux, `tmux load-buffer -w -`, because tmux drops an application's own OSC 52 by default.
The choice is pure (environment and `which` are arguments); `copy_text` runs it.
"""

from __future__ import annotations

import base64
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

MAX_OSC52_ENCODED = 100_000  # pi's limit: terminals cut or drop longer sequences


class RouteKind(StrEnum):
    COMMAND = "command"  # a clipboard tool; its exit status says whether it worked
    TMUX = "tmux"  # tmux's buffer, which tmux forwards to the terminal's clipboard
    OSC52 = "osc52"  # an escape sequence to the terminal; nothing reports whether it arrived


@dataclass(frozen=True, slots=True)
class CopyRoute:
    kind: RouteKind
    argv: tuple[str, ...] = ()
    name: str = ""  # how the notice names it


@dataclass(frozen=True, slots=True)
class CopyPlan:
    routes: tuple[CopyRoute, ...]
    missing: str = ""  # with no route, what would make one (e.g. "install xclip or xsel")


@dataclass(slots=True)
class CopyOutcome:
    route: CopyRoute | None
    failures: list[str] = field(default_factory=list)  # routes tried before, and why they failed
    reason: str = ""  # with no route taken: why nothing could copy


def is_remote(env: Mapping[str, str]) -> bool:
    return bool(
        env.get("SSH_TTY")
        or env.get("SSH_CONNECTION")
        or env.get("SSH_CLIENT")
        or env.get("MOSH_CONNECTION")
        or env.get("PI_CLIPBOARD_OSC52") == "1"
    )


def native_tools(env: Mapping[str, str], platform: str) -> list[tuple[str, ...]]:
    """The clipboard commands this platform and desktop would use, best first (pi's order)."""
    if platform == "darwin":
        return [("pbcopy",)]
    if platform == "win32":
        return [("clip",)]
    tools: list[tuple[str, ...]] = []
    if env.get("TERMUX_VERSION"):
        tools.append(("termux-clipboard-set",))
    if env.get("WAYLAND_DISPLAY"):
        tools.append(("wl-copy",))
    if env.get("DISPLAY"):
        tools += [("xclip", "-selection", "clipboard"), ("xsel", "--clipboard", "--input")]
    return tools


def plan_copy(
    env: Mapping[str, str],
    platform: str,
    which: Callable[[str], str | None],
    *,
    served: bool = False,
) -> CopyPlan:
    """The ways to try, in order. Served in a browser, the page's terminal takes OSC 52 and
    hands it to the browser's clipboard; nothing on this machine is the user's clipboard."""
    osc52 = CopyRoute(RouteKind.OSC52, (), "the browser's clipboard" if served else "the terminal (OSC 52)")
    if served:
        return CopyPlan((osc52,))
    in_tmux = bool(env.get("TMUX")) and which("tmux") is not None
    # tmux before 3.2 has no -w (set the terminal's clipboard too): then its buffer alone.
    tmux = [
        CopyRoute(RouteKind.TMUX, ("tmux", "load-buffer", "-w", "-"), "tmux"),
        CopyRoute(RouteKind.TMUX, ("tmux", "load-buffer", "-"), "tmux's buffer"),
    ]
    native = [
        CopyRoute(RouteKind.COMMAND, tool, tool[0]) for tool in native_tools(env, platform) if which(tool[0])
    ]
    routes: list[CopyRoute] = []
    if is_remote(env):
        # The user's clipboard is on the other end: tmux or the terminal carry it there; a
        # clipboard tool here would fill this machine's (or a forwarded X display's).
        routes += tmux if in_tmux else [osc52]
        routes += native
    else:
        routes += native
        if in_tmux:
            routes += tmux
        headless = (
            platform.startswith("linux")
            and not env.get("DISPLAY")
            and not env.get("WAYLAND_DISPLAY")
            and not env.get("TERMUX_VERSION")
        )
        if headless and not in_tmux:
            routes.append(osc52)  # no desktop at all: the terminal is the only clipboard
    return CopyPlan(tuple(routes), "" if routes else _missing(env, platform))


def _missing(env: Mapping[str, str], platform: str) -> str:
    if env.get("TERMUX_VERSION"):
        return "install the Termux:API app and the termux-api package"
    if platform.startswith("linux"):
        if env.get("WAYLAND_DISPLAY"):
            return "install wl-clipboard (wl-copy)"
        if env.get("DISPLAY"):
            return "install xclip or xsel"
    return "no clipboard tool found"


def osc52_sequence(text: str) -> str | None:
    """The OSC 52 escape that sets the clipboard, or None when it is too long to send."""
    encoded = base64.b64encode(text.encode("utf-8", "replace")).decode("ascii")
    return None if len(encoded) > MAX_OSC52_ENCODED else f"\x1b]52;c;{encoded}\x07"


def run_tool(argv: tuple[str, ...], text: str, timeout: float = 5.0) -> str | None:
    """Feed `text` to a clipboard tool; None when it worked, else why not. Tools that stay
    behind to own the selection (xclip, wl-copy) get no output pipes to hold open and their
    own session, like pi runs them."""
    try:
        result = subprocess.run(
            argv,
            input=text.encode("utf-8", "replace"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd="/",
            timeout=timeout,
            start_new_session=True,
        )
    except subprocess.TimeoutExpired:
        return f"{argv[0]} did not finish in {timeout:.0f} s"
    except OSError as e:
        return f"{argv[0]}: {e.strerror or e}"
    return None if result.returncode == 0 else f"{argv[0]} failed (exit {result.returncode})"


def copy_text(
    plan: CopyPlan,
    text: str,
    send_osc52: Callable[[str], None],
    run: Callable[[tuple[str, ...], str], str | None] = run_tool,
) -> CopyOutcome:
    """Try the plan's routes in order; the first that works is the outcome. `send_osc52`
    writes the text to the terminal as OSC 52 (the app owns the terminal)."""
    failures: list[str] = []
    text = text.encode("utf-8", "replace").decode("utf-8")  # a lone surrogate cannot be sent
    for route in plan.routes:
        if route.kind is RouteKind.OSC52:
            if osc52_sequence(text) is None:
                failures.append("too long for OSC 52")
                continue
            send_osc52(text)
            return CopyOutcome(route, failures)
        problem = run(route.argv, text)
        if problem is None:
            return CopyOutcome(route, failures)
        failures.append(problem)
    reason = "; ".join(failures) if failures else plan.missing
    return CopyOutcome(None, failures, reason or "no clipboard tool found")


def describe(outcome: CopyOutcome, what: str) -> str:
    """The notice: which way `what` went, and what that way can promise."""
    route = outcome.route
    if route is None:
        return f"Could not copy {what}: {outcome.reason}."
    if route.kind is RouteKind.COMMAND:
        return f"Copied {what} with {route.name}."
    if route.kind is RouteKind.TMUX and "-w" in route.argv:
        return f"Copied {what} into tmux, which passes it on to the terminal's clipboard (load-buffer -w)."
    if route.kind is RouteKind.TMUX:
        return f"Copied {what} into tmux's paste buffer only (this tmux cannot set the clipboard)."
    if route.name == "the browser's clipboard":
        return f"Sent {what} to the browser's clipboard."
    return f"Sent {what} to the terminal's clipboard (OSC 52, if the terminal allows it)."
