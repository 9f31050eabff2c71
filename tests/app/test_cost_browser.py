"""Cost and context in the browser: the header (pi's context size, the window's share in pi's
colours, the path's cost), the sparkline, cost per session and per branch, the compaction audit
and the size doctor, driven through the real app."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from pi_sessions.app.audit_screen import CompactionAuditScreen
from pi_sessions.app.config import Settings
from pi_sessions.app.screens import ForkScreen
from pi_sessions.app.size_screen import SizeDoctorScreen
from pi_sessions.app.tui import PiSessionsApp
from pi_sessions.core.common.locations import SessionsRoot
from pi_sessions.core.common.text import human_bytes, short_cost
from pi_sessions.core.listing.sidebar_rows import SessionRow, SortOrder
from pi_sessions.core.projection.branch_costs import branch_totals
from pi_sessions.core.projection.cache_breaks import break_turns, cache_breaks
from pi_sessions.core.projection.compaction_audit import audit_compactions
from pi_sessions.core.projection.context import project
from pi_sessions.core.projection.sizes import size_report
from pi_sessions.core.projection.timeline import (
    ASCII_BREAK_MARK,
    ASCII_MARK,
    BREAK_MARK,
    MARK,
    context_timeline,
)
from pi_sessions.core.projection.window import format_tokens
from pi_sessions.core.session.session import Session
from pi_sessions.core.writing.export import context_markdown
from pi_sessions.widgets import branch_rows, sparkline
from pi_sessions.widgets.context_header import ContextHeader
from pi_sessions.widgets.plain import FitStatic
from pi_sessions.widgets.priority_row import PriorityRow

from tests.helpers.app import lines_of, loaded, make_app, settled, until
from tests.helpers.corpus import FIXTURES
from tests.helpers.sessions import assistant, chain, header, user, write

SESSIONS = FIXTURES / "sessions"
TOKENS = json.loads((FIXTURES / "expected" / "_tokens.json").read_text())
SCRATCH = "--tmp-scratch--/2025-03-30T10-52-05-079Z_0195e6ae-1c57-71e5-b35b-1bbb5f940b52.jsonl"
API = "--srv-my-api--/2025-03-12T09-04-49-453Z_01958999-712d-71e5-b35b-1b7130a4d54a.jsonl"
FORKS = "--home-u-proj-a--/2025-03-27T21-33-24-765Z_0195d986-2f9d-71e5-b35b-1baa9927ca36.jsonl"


def copy_of(tmp_path: Path, *names: str) -> Path:
    root = tmp_path / "sessions"
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SESSIONS / name, root / name)
    return root


def drawn(widget: Any) -> str:
    """What a FitStatic shows on screen now ("" when it is hidden or has no room)."""
    if not widget.display or widget.region.width <= 0:
        return ""
    return str(widget.render())


def header_on_screen(header: ContextHeader) -> list[str]:
    """The header's lines as drawn: each row's visible fields, the sparkline, the hint."""
    lines = [
        " ".join(text for text in (drawn(f) for f in row.query(FitStatic)) if text)
        for row in header.query(PriorityRow)
    ]
    return [*lines, *lines_of(header.sparkline)]


# ---------------------------------------------------------------------------- the header
@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_the_header_shows_pis_context_size_and_the_cost_at_80_and_160_columns(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    root = copy_of(tmp_path, SCRATCH)
    app = make_app(root, tmp_path / "cache", open_path=root / SCRATCH)
    async with app.run_test(size=size) as pilot:
        screen = await loaded(pilot)
        assert screen.context_leaf == "91ac5f50"
        shown = "\n".join(header_on_screen(screen.context_view.header))
        assert screen.session is not None
        totals = project(screen.session, "91ac5f50").path_totals(screen.session)
        assert f"context {TOKENS[SCRATCH]['91ac5f50']:,}" in shown  # pi's 7,394, not ~bytes/4
        assert f"${totals.cost:.3f}" in shown  # pi's footer: three decimals
        assert "3.6%" in shown and "203k" in shown  # glm-4.6's window, pi's toFixed(1)
        assert "glm-4.6" in shown and "26 m" in shown  # the model and the messages
        assert "…" not in shown.splitlines()[1], shown  # the figures line is never cut


async def test_the_header_has_pis_context_size_at_every_entry(tmp_path: Path) -> None:
    """Whatever entry is selected, the header says what pi estimates for that leaf."""
    root = copy_of(tmp_path, SCRATCH)
    app = make_app(root, tmp_path / "cache", open_path=root / SCRATCH)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        expected = TOKENS[SCRATCH]
        assert screen.session is not None
        assert set(expected) == set(screen.session.by_id)
        for entry_id, tokens in expected.items():
            assert screen.branch_tree.select(entry_id)
            await until(pilot, lambda e=entry_id: screen.context_leaf == e, f"the context at {entry_id}")  # type: ignore[misc]  # (mypy cannot infer a lambda with a default argument)
            size = screen.query_one("#context-size", FitStatic).full_text
            assert size.startswith(f"context {tokens:,}"), (entry_id, size, tokens)


def gauge_session(root: Path) -> Path:
    """Replies on a model that models.json gives a 1,000-token window: 50 %, 71 %, 91 %."""
    model = {"provider": "my-llm", "model": "local-1k"}
    return write(
        root / "--home-u-proj--" / "gauge.jsonl",
        header(cwd="/home/u/proj"),
        user("u1", None, "one", 1),
        assistant("a1", "u1", "half", 2, usage={"totalTokens": 500}, **model),
        user("u2", "a1", "two", 3),
        assistant("a2", "u2", "warm", 4, usage={"totalTokens": 710}, **model),
        user("u3", "a2", "three", 5),
        assistant("a3", "u3", "hot", 6, usage={"totalTokens": 910}, **model),
    )


async def test_the_gauge_has_pis_colours_above_70_and_90_percent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    models = {"providers": {"my-llm": {"models": [{"id": "local-1k", "contextWindow": 1000}]}}}
    (agent / "models.json").write_text(json.dumps(models))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    root = tmp_path / "sessions"
    path = gauge_session(root)
    app = PiSessionsApp(
        Settings(),
        SessionsRoot(str(root), "the test folder", True),
        open_path=str(path),
        current_cwd="/nowhere",
        cache_dir=str(tmp_path / "cache"),
    )
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        gauge = screen.context_view.header.gauge
        for leaf, percent, level in (
            ("a1", "50.0%", None),
            ("a2", "71.0%", "-warning"),
            ("a3", "91.0%", "-error"),
        ):
            screen.branch_tree.select(leaf)
            await until(pilot, lambda leaf=leaf: screen.context_leaf == leaf, leaf)  # type: ignore[misc]  # (mypy cannot infer a lambda with a default argument)
            assert drawn(gauge).startswith(percent) and "1.0k" in drawn(gauge), drawn(gauge)
            assert (gauge.has_class("-warning"), gauge.has_class("-error")) == (
                level == "-warning",
                level == "-error",
            ), leaf


# ---------------------------------------------------------------------------- the sparkline
@pytest.mark.parametrize("ascii", [False, True])
async def test_the_sparkline_marks_the_compaction_on_the_path(tmp_path: Path, ascii: bool) -> None:
    root = copy_of(tmp_path, API)
    app = make_app(root, tmp_path / "cache", open_path=root / API, ascii=ascii)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(pilot)
        line = lines_of(screen.context_view.header.sparkline)[0]
        session = screen.session
        assert session is not None and screen.context_leaf is not None
        path = session.path_to(screen.context_leaf)
        timeline = context_timeline(session, path)
        assert len(timeline.points) == 8 and [c.dropped for c in timeline.compactions] == [True]
        # (two replies of this session read much less than the one before had cached)
        lost = break_turns(timeline, cache_breaks(session, path))
        assert len(lost) == 2
        bars = timeline.sparkline(80, ascii=ascii, breaks=lost)
        assert line.strip() == f"over time {bars} peak {format_tokens(timeline.peak)}"
        mark, broke = (ASCII_MARK, ASCII_BREAK_MARK) if ascii else (MARK, BREAK_MARK)
        # a bar per reply, the mark where it dropped, one before each reply that lost the cache
        assert bars.count(mark) == 1 and bars.count(broke) == 2 and len(bars) == 11
        assert bars.replace(broke, "").index(mark) == timeline.compactions[0].turn
        assert line.isascii() == ascii


async def test_a_long_path_fills_the_sparkline_in_after_the_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sparkline, "STEP", 7)  # pieces this small: the worker reads most of it
    root = tmp_path / "sessions"
    write(root / "--home-u-proj--" / "long.jsonl", header(), *chain(60))
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)  # waits until the sparkline is no longer pending
        line = lines_of(screen.context_view.header.sparkline)[0]
        assert "peak 15" in line and "reading" not in line
        assert screen.session is not None
        assert len(context_timeline(screen.session, screen.session.path_to("e59")).points) == 30
        await pilot.press("tab", "up", "up")
        await settled(pilot)
        assert screen.context_leaf == "e57"
        assert "peak 15" in lines_of(screen.context_view.header.sparkline)[0]


# ---------------------------------------------------------------------------- cost in the panes
@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_each_branch_below_a_fork_says_what_it_spent(tmp_path: Path, size: tuple[int, int]) -> None:
    root = copy_of(tmp_path, FORKS)
    app = make_app(root, tmp_path / "cache", open_path=root / FORKS)
    async with app.run_test(size=size) as pilot:
        screen = await loaded(pilot)
        tree = screen.branch_tree
        assert screen.session is not None
        totals = branch_totals(screen.session)
        lines = lines_of(tree)
        top = int(tree.scroll_offset.y)
        checked = 0
        for y, line in enumerate(lines):
            index = top + y
            if index >= len(tree.rows) or not tree.rows[index].branch_start:
                continue
            branch = totals.branch(tree.rows[index].record.id)
            assert branch is not None
            cost = short_cost(branch.totals.cost)
            wide = f"{format_tokens(branch.totals.tokens)} {cost}"
            assert line.rstrip().endswith(wide if size[0] == 160 else cost), line
            if size[0] == 80:
                assert wide not in line  # a narrow row keeps its room for the text
            checked += 1
        assert checked >= 3


async def test_branch_costs_of_a_big_session_come_from_a_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(branch_rows, "SYNC_COSTS", 3)
    root = copy_of(tmp_path, FORKS)
    app = make_app(root, tmp_path / "cache", open_path=root / FORKS)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)  # waits for the worker
        assert screen.branch_tree.costs is not None
        assert any(line.rstrip().endswith("$0.07") for line in lines_of(screen.branch_tree))


async def test_sessions_show_their_cost_and_sort_by_it(tmp_path: Path) -> None:
    folder = "--home-u-proj-a--"
    root = tmp_path / "sessions"
    shutil.copytree(SESSIONS / folder, root / folder)
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        sidebar = screen.sidebar
        lines = lines_of(sidebar.session_list)
        for summary in sidebar.summaries:
            spent = [format_tokens(summary.tokens) if summary.tokens else "", short_cost(summary.cost)]
            want = " ".join(part for part in spent if part)
            assert not want or any(line.rstrip().endswith(want) for line in lines), (want, lines)

        def costs() -> list[float]:
            return [r.summary.cost for r in sidebar.session_list.rows if isinstance(r, SessionRow)]

        assert costs() != sorted(costs(), reverse=True)  # newest first is not dearest first here
        sidebar.session_list.focus()
        await pilot.press("s", "s", "s")
        assert sidebar.order is SortOrder.COST
        assert "by cost" in sidebar.query_one("#sidebar-title", FitStatic).full_text
        assert len(costs()) == len(sidebar.summaries) and costs() == sorted(costs(), reverse=True)


# ---------------------------------------------------------------------------- the reports
async def test_the_compaction_audit_of_the_selected_path(tmp_path: Path) -> None:
    root = copy_of(tmp_path, API)
    app = make_app(root, tmp_path / "cache", open_path=root / API)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        session = screen.session
        await pilot.press("A")
        await until(
            pilot, lambda: isinstance(app.screen, CompactionAuditScreen) and app.screen.ready, "audit"
        )
        assert isinstance(app.screen, CompactionAuditScreen)
        text = app.screen.text()
        assert session is not None
        [audit] = audit_compactions(session, session.path_to("97cc7d73"))
        assert audit.tokens_after == TOKENS[API][audit.compaction_id]  # pi's estimate at the compaction
        assert f"Context {audit.tokens_before:,} → {audit.tokens_after:,} tokens" in text
        assert f"Kept {audit.kept_entries} entries from {audit.first_kept_id}" in text
        assert f"Summarized {audit.summarized_entries} entries, {audit.summarized_messages} messages" in text
        assert audit.missing_paths == ("src/auth/session.ts",) and "src/auth/session.ts" in text
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, "back")
        # Before the compaction there is nothing to audit.
        screen.branch_tree.select("0db270c6")
        await pilot.press("A")
        await until(
            pilot, lambda: isinstance(app.screen, CompactionAuditScreen) and app.screen.ready, "audit"
        )
        assert isinstance(app.screen, CompactionAuditScreen)
        before = app.screen.text()
        assert before.startswith("No compaction on the path to this entry.")
        # the compaction comes later on this very path: it is not "on other branches"
        assert "1 compaction later on this path" in before and "other branches" not in before


async def test_the_size_doctor_offers_a_clone(tmp_path: Path) -> None:
    root = copy_of(tmp_path, SCRATCH)
    app = make_app(root, tmp_path / "cache", open_path=root / SCRATCH)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        assert screen.session is not None
        report = size_report(screen.session, "91ac5f50")
        await pilot.press("S")
        await until(pilot, lambda: isinstance(app.screen, SizeDoctorScreen) and app.screen.ready, "sizes")
        assert isinstance(app.screen, SizeDoctorScreen)
        text = app.screen.text()
        assert f"{human_bytes(report.file_bytes)} in 105 entries" in text
        assert f"assistant {human_bytes(report.by_role['assistant'].bytes)} (42)" in text
        assert f"Images: {report.images.count}" in text
        assert f"every other branch: {human_bytes(report.abandoned.bytes)}" in text
        assert f"about {human_bytes(report.clone_drops)} less. C: clone" in text
        await pilot.press("C")
        await until(pilot, lambda: isinstance(app.screen, ForkScreen), "the fork preview")
        assert isinstance(app.screen, ForkScreen)
        assert "91ac5f50" in app.screen.title_text  # a clone: the fork at the active leaf
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, "back")
        assert len(list(root.rglob("*.jsonl"))) == 1  # nothing was written


def test_the_markdown_export_says_pis_context_size() -> None:
    session = Session.open(SESSIONS / SCRATCH)
    text = context_markdown(session, project(session, "91ac5f50"))
    assert "26 messages, 7,394 tokens of context" in text


def test_branch_of_an_entry_is_its_forks_child() -> None:
    session = Session.open(SESSIONS / SCRATCH)
    totals = branch_totals(session)
    for fork in totals.forks():
        for child in session.children_of(fork):
            below = totals.below(child)
            branch = totals.branch(child)
            assert branch is not None and branch.child_id == child and branch.totals == below
            for grandchild in session.children_of(child)[:1]:
                if session.child_count(child) == 1:
                    assert (grand := totals.branch(grandchild)) is not None and grand.child_id == child
    assert totals.branch("nope") is None


def test_money_and_bytes_in_a_few_cells() -> None:
    assert [short_cost(c) for c in (0, 0.001, 0.63, 9.996, 12.34, 123.4, 4567, 12_345, 1e9)] == [
        "",
        "<$.01",
        "$0.63",
        "$10.0",
        "$12.3",
        "$123",
        "$4567",
        "$12k",
        "$99k+",
    ]
    assert [human_bytes(n) for n in (512, 51_000, 89_000_000)] == ["512 B", "49.8 kB", "84.9 MB"]
