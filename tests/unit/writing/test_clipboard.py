"""Which way a copy goes (tmux, SSH, local, none) with the environment faked, and that the
notice says the way that was really used."""

from __future__ import annotations

from pathlib import Path

from pi_sessions.core.writing.clipboard import (
    MAX_OSC52_ENCODED,
    CopyPlan,
    CopyRoute,
    RouteKind,
    copy_text,
    describe,
    plan_copy,
    run_tool,
)


def which_of(*installed: str):
    return lambda name: f"/usr/bin/{name}" if name in installed else None


def first_tools(plan: CopyPlan) -> list[str]:
    return [" ".join(r.argv) if r.argv else r.kind.value for r in plan.routes]


def test_local_desktop_uses_the_native_tool() -> None:
    plan = plan_copy({"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}, "linux", which_of("wl-copy", "xsel"))
    assert first_tools(plan) == ["wl-copy", "xsel --clipboard --input"]
    assert first_tools(plan_copy({}, "darwin", which_of("pbcopy"))) == ["pbcopy"]
    assert first_tools(plan_copy({}, "win32", which_of("clip"))) == ["clip"]


def test_local_desktop_without_a_tool_says_what_to_install() -> None:
    plan = plan_copy({"DISPLAY": ":0"}, "linux", which_of())
    assert plan.routes == () and plan.missing == "install xclip or xsel"
    outcome = copy_text(plan, "x", send_osc52=lambda t: None)
    assert outcome.route is None and describe(outcome, "3 characters") == (
        "Could not copy 3 characters: install xclip or xsel."
    )
    assert (
        plan_copy({"WAYLAND_DISPLAY": "w"}, "linux", which_of()).missing == "install wl-clipboard (wl-copy)"
    )


def test_over_ssh_the_terminal_carries_it() -> None:
    for variable in ("SSH_CONNECTION", "SSH_TTY", "SSH_CLIENT", "MOSH_CONNECTION"):
        plan = plan_copy({variable: "1.2.3.4 22 5.6.7.8 22"}, "linux", which_of("xclip"))
        assert first_tools(plan)[0] == "osc52", variable
    # X forwarding gives a display, but the user's clipboard is still on the other end
    plan = plan_copy({"SSH_TTY": "/dev/pts/1", "DISPLAY": "localhost:10"}, "linux", which_of("xclip"))
    assert first_tools(plan) == ["osc52", "xclip -selection clipboard"]


def test_inside_tmux_tmux_takes_it_not_osc52() -> None:
    env = {"TMUX": "/tmp/tmux-0/default,1,0", "SSH_CONNECTION": "x"}
    plan = plan_copy(env, "linux", which_of("tmux"))
    assert first_tools(plan) == ["tmux load-buffer -w -", "tmux load-buffer -"]
    # local, headless, in tmux: tmux too (an OSC 52 of our own would be dropped by tmux)
    assert first_tools(plan_copy({"TMUX": "t"}, "linux", which_of("tmux"))) == [
        "tmux load-buffer -w -",
        "tmux load-buffer -",
    ]
    # local with a desktop: the native tool first, tmux after it
    local = plan_copy({"TMUX": "t", "WAYLAND_DISPLAY": "w"}, "linux", which_of("tmux", "wl-copy"))
    assert first_tools(local) == ["wl-copy", "tmux load-buffer -w -", "tmux load-buffer -"]


def test_no_display_at_all_means_osc52() -> None:
    assert first_tools(plan_copy({}, "linux", which_of())) == ["osc52"]


def test_served_in_a_browser_only_the_page_can_copy() -> None:
    plan = plan_copy(
        {"TMUX": "t", "SSH_TTY": "x", "DISPLAY": ":0"}, "linux", which_of("tmux", "xclip"), served=True
    )
    assert [r.kind for r in plan.routes] == [RouteKind.OSC52]
    sent: list[str] = []
    outcome = copy_text(plan, "hello", sent.append)
    assert sent == ["hello"] and "browser's clipboard" in describe(outcome, "5 characters")


def test_routes_are_tried_in_order_and_the_notice_names_the_one_used() -> None:
    plan = CopyPlan(
        (
            CopyRoute(RouteKind.TMUX, ("tmux", "load-buffer", "-w", "-"), "tmux"),
            CopyRoute(RouteKind.TMUX, ("tmux", "load-buffer", "-"), "tmux's buffer"),
        )
    )
    ran: list[tuple[str, ...]] = []

    def old_tmux(argv: tuple[str, ...], text: str) -> str | None:
        ran.append(argv)
        return "tmux failed (exit 1)" if "-w" in argv else None

    outcome = copy_text(plan, "abc", send_osc52=lambda t: None, run=old_tmux)
    assert ran == [("tmux", "load-buffer", "-w", "-"), ("tmux", "load-buffer", "-")]
    assert outcome.failures == ["tmux failed (exit 1)"]
    assert (
        describe(outcome, "abc")
        == "Copied abc into tmux's paste buffer only (this tmux cannot set the clipboard)."
    )
    outcome = copy_text(plan, "abc", send_osc52=lambda t: None, run=lambda argv, text: None)
    assert "passes it on to the terminal's clipboard" in describe(outcome, "abc")


def test_text_too_long_for_osc52_is_not_claimed_as_sent() -> None:
    plan = plan_copy({"SSH_TTY": "x"}, "linux", which_of())
    sent: list[str] = []
    outcome = copy_text(plan, "x" * MAX_OSC52_ENCODED, sent.append)
    assert sent == [] and outcome.route is None and "too long for OSC 52" in outcome.reason
    assert describe(copy_text(plan, "short", sent.append), "5 characters").startswith(
        "Sent 5 characters to the terminal's clipboard (OSC 52"
    )


def test_run_tool_feeds_the_text_and_reports_failure(tmp_path: Path) -> None:
    sink = tmp_path / "clipboard.txt"
    good = tmp_path / "good-copy"
    good.write_text(f'#!/bin/sh\ncat > "{sink}"\n')
    good.chmod(0o755)
    bad = tmp_path / "bad-copy"
    bad.write_text("#!/bin/sh\ncat > /dev/null\nexit 3\n")
    bad.chmod(0o755)
    assert run_tool((str(good),), "héllo \udc00") is None
    assert sink.read_text(encoding="utf-8") == "héllo ?"
    assert run_tool((str(bad),), "x") == f"{bad} failed (exit 3)"
    assert "No such file" in (run_tool((str(tmp_path / "missing"),), "x") or "")
