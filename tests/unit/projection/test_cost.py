"""Cost and context figures besides pi's context size: the model's window and pi's gauge, the
context over time, cost per branch, the compaction audit and the size doctor."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from pi_sessions.core.listing.sidebar_rows import SessionRow, SortOrder, build_rows
from pi_sessions.core.listing.summary import SessionSummary
from pi_sessions.core.projection.branch_costs import SubtreeTotals, branch_totals
from pi_sessions.core.projection.compaction_audit import audit_compactions
from pi_sessions.core.projection.context import project
from pi_sessions.core.projection.sizes import size_report
from pi_sessions.core.projection.timeline import ASCII_BARS, BARS, context_timeline, sparkline
from pi_sessions.core.projection.tokens import context_tokens
from pi_sessions.core.projection.window import (
    DEFAULT_RESERVE_TOKENS,
    ContextGauge,
    ContextWindow,
    Level,
    WindowSource,
    context_window,
    format_tokens,
    reserve_tokens,
    to_fixed,
)
from pi_sessions.core.session.session import Session

from tests.helpers.checks import known
from tests.helpers.corpus import FIXTURES
from tests.helpers.sessions import assistant, entry, header, jsonl, user, write
from tests.helpers.token_cases import AUDIT_CASE, AUDIT_PI_TOKENS, CASES

TWO_COMPACTIONS = (
    FIXTURES
    / "sessions/--home-u-proj-b--/2025-03-11T10-04-46-904Z_019584a9-f9b8-71e5-b35b-1b66cf1482e5.jsonl"
)
DEMO = (
    FIXTURES / "sessions/--tmp-scratch--/2025-03-30T10-52-05-079Z_0195e6ae-1c57-71e5-b35b-1bbb5f940b52.jsonl"
)
SONNET = {"provider": "anthropic", "modelId": "claude-sonnet-4-5"}
CUSTOM = {"provider": "my-llm", "modelId": "local-70b"}


# ---------------------------------------------------------------------------- the window
def test_models_json_wins_and_may_hold_comments(tmp_path: Path) -> None:
    (tmp_path / "models.json").write_text(
        "\ufeff{ // pi strips comments\n"
        '  "providers": {\n'
        '    "my-llm": {"baseUrl": "http://x//y", "models": [{"id": "local-70b", "contextWindow": 32768}]},\n'
        "    /* a built-in model, overridden */\n"
        '    "anthropic": {"modelOverrides": {"claude-sonnet-4-5": {"contextWindow": 1000000}}}\n'
        "  }\n}\n"
    )
    custom = context_window(CUSTOM, agent=str(tmp_path))
    assert custom is not None and (custom.tokens, custom.source) == (32768, WindowSource.MODELS_JSON)
    overridden = context_window(SONNET, agent=str(tmp_path))
    assert overridden is not None and overridden.tokens == 1_000_000


def test_a_model_models_json_adds_without_a_window_gets_pis_default(tmp_path: Path) -> None:
    (tmp_path / "models.json").write_text('{"providers": {"my-llm": {"models": [{"id": "local-70b"}]}}}')
    window = context_window(CUSTOM, agent=str(tmp_path))
    assert window is not None and window.tokens == 128_000


def test_well_known_models_and_their_dated_ids(tmp_path: Path) -> None:
    for model_id, tokens in (
        ("claude-sonnet-4-5", 200_000),
        ("claude-sonnet-4-5-20250929", 200_000),
        ("gpt-4.1", 1_047_576),
        ("z-ai/glm-4.6", 202_752),
    ):
        window = context_window({"provider": "p", "modelId": model_id}, agent=str(tmp_path))
        assert window is not None and window.tokens == tokens, model_id
        assert window.source is WindowSource.KNOWN_MODEL
    assert context_window(CUSTOM, agent=str(tmp_path)) is None
    assert context_window(None, agent=str(tmp_path)) is None


def test_a_compaction_bounds_an_unknown_models_window(tmp_path: Path) -> None:
    entries = [
        user("u1", None, "q", 1),
        entry("compaction", "c1", "u1", 2, summary="s", firstKeptEntryId="c1", tokensBefore=100_000),
        entry("compaction", "c2", "c1", 3, summary="s", firstKeptEntryId="c2", tokensBefore=115_000),
    ]
    session = Session.open(write(tmp_path / "s.jsonl", header(), *entries))
    path = project(session, "c2").path
    window = context_window(CUSTOM, path, agent=str(tmp_path / "agent"))
    assert window is not None and window.source is WindowSource.COMPACTION and window.is_estimate
    assert window.tokens == 115_000 + DEFAULT_RESERVE_TOKENS
    # reserveTokens from pi's settings: the project's over the agent's, a per-model override first.
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "settings.json").write_text('{"compaction": {"reserveTokens": 20000}}')
    assert reserve_tokens(CUSTOM, str(agent)) == 20000
    project_dir = tmp_path / "proj"
    (project_dir / ".pi").mkdir(parents=True)
    (project_dir / ".pi" / "settings.json").write_text(
        '{"compaction": {"modelOverrides": {"my-llm/local-70b": {"reserveTokens": 8000}}}}'
    )
    assert reserve_tokens(CUSTOM, str(agent), str(project_dir)) == 8000
    assert reserve_tokens(SONNET, str(agent), str(project_dir)) == 20000


def test_the_gauge_follows_pis_footer() -> None:
    window = ContextWindow(200_000, WindowSource.KNOWN_MODEL, "t")
    assert ContextGauge(140_000, window).level is Level.NORMAL  # exactly 70 %: not above
    assert ContextGauge(140_001, window).level is Level.WARNING
    assert ContextGauge(180_001, window).level is Level.ERROR
    assert ContextGauge(90_500, window).percent_text() == "45.3%"  # toFixed rounds 45.25 up
    assert ContextGauge(90_500, None).percent_text() == "?"
    assert ContextGauge(190_000, window, unknown_in_footer=True).level is Level.NORMAL


def test_number_formatting_is_pis() -> None:
    # Values node 22 gives for toFixed(1) and pi's footer formatTokens.
    values = [0.25, 0.35, 1.45, -0.04, -0.0, 99.95, 70.05, 12.345, 1 / 3 * 100, 0.05, 2.675, 45.25]
    fixed = ["0.3", "0.3", "1.4", "-0.0", "0.0", "100.0", "70.0", "12.3", "33.3", "0.1", "2.7", "45.3"]
    assert [to_fixed(v, 1) for v in values] == fixed
    counts = [0, 999, 1000, 1050, 1250, 9999, 10000, 10500, 999499, 999500, 1000000, 1250000, 9999999, 10**7]
    shown = ["0", "999", "1.0k", "1.1k", "1.3k", "10.0k", "10k", "11k", "999k", "1000k", "1.0M", "1.3M"]
    assert [format_tokens(c) for c in counts] == [*shown, "10.0M", "10M"]


# ---------------------------------------------------------------------------- over time
def test_the_timeline_has_every_counted_reply_and_marks_compactions(tmp_path: Path) -> None:
    session = Session.open(write(tmp_path / "c.jsonl", header(), *CASES["compaction"]))
    timeline = context_timeline(session, project(session, "u5").path)
    assert [(p.entry_id, p.tokens) for p in timeline.points] == [("a1", 3000), ("a2", 4000), ("a3", 2500)]
    marks = [(c.entry_id, c.turn, c.dropped) for c in timeline.compactions]
    assert marks == [("c1", 2, True), ("c2", 3, False)]  # c2: no reply after it yet
    aborted = Session.open(write(tmp_path / "a.jsonl", header(), *CASES["aborted_error"]))
    assert [p.entry_id for p in context_timeline(aborted, project(aborted, "t1").path).points] == ["a1"]


def test_moving_along_a_branch_gives_the_timeline_a_fresh_read_gives() -> None:
    for source in (TWO_COMPACTIONS, DEMO):
        session = Session.open(source)
        leaf = session.default_leaf
        assert leaf is not None
        path = project(session, leaf).path
        everything = list(session.by_id)
        rng = random.Random(7)
        for _ in range(60):
            # Up and down the branch, and now and then a jump to another branch.
            target = path[rng.randrange(len(path))].id if rng.random() < 0.7 else rng.choice(everything)
            moved = context_timeline(session, project(session, target).path)
            fresh_session = Session.open(source)
            assert moved == context_timeline(fresh_session, project(fresh_session, target).path), target


def test_sparkline_shapes() -> None:
    assert sparkline([1, 2, 3, 4, 5, 6, 7, 8], 20) == BARS
    assert sparkline([1, 2, 3, 4, 5, 6, 7, 8], 20, ascii=True) == ASCII_BARS
    marked = sparkline([8, 8, 1, 2], 10, marks=[2])
    assert marked == "██┊▁▂"
    assert sparkline([8, 8, 1, 2], 10, marks=[2], ascii=True) == "@@|.:"
    wide = sparkline(list(range(1, 1001)), 40, marks=[500])
    assert len(wide) == 40 and wide.count("┊") == 1 and wide.endswith("█")
    assert sparkline([5, 10], 10, ceiling=40) == "▁▂"  # scaled to the window
    # narrow, with many compactions: up to half the cells are marks, so each one still shows
    assert sparkline([1, 2, 3, 4, 5, 6], 6, marks=[2, 4, 6]) == "▃┊▆┊█┊"
    assert sparkline([], 10) == "" and sparkline([1, 2], 0) == ""


def test_a_reply_that_lost_the_cache_has_its_mark_before_its_bar() -> None:
    assert sparkline([8, 8, 1, 2], 10, breaks=[2]) == "██↯▁▂"
    assert sparkline([8, 8, 1, 2], 10, breaks=[2], ascii=True) == "@@$.:"
    # a compaction that lost the cache: its mark, then the break's
    assert sparkline([8, 8, 1, 2], 10, marks=[2], breaks=[2]) == "██┊↯▁▂"
    wide = sparkline(list(range(1, 1001)), 40, marks=[500], breaks=[500, 999])
    assert len(wide) == 40 and wide.count("┊") == wide.count("↯") - 1 == 1 and wide.endswith("↯█")
    assert sparkline([1, 2, 3, 4], 4, breaks=[0, 1, 2, 3]) == "↯▄↯█"  # at most half the cells: the last ones
    assert sparkline([1, 2], 10, breaks=[2, -1]) == "▄█"  # no such reply: no mark


def test_the_sparkline_of_a_session_with_two_compactions() -> None:
    session = Session.open(TWO_COMPACTIONS)
    assert session.default_leaf is not None
    line = context_timeline(session, project(session, session.default_leaf).path).sparkline(80)
    assert line.count("┊") == 2
    assert all(ch in BARS + "┊" for ch in line)


# ---------------------------------------------------------------------------- per branch
def test_fork_branches_add_up_to_the_fork() -> None:
    session = Session.open(DEMO)
    totals = branch_totals(session)
    forks = totals.forks()
    assert forks
    for fork_id in forks:
        below = totals.below(fork_id)
        branches = totals.fork(fork_id)
        assert below is not None and len(branches) >= 2
        record = session.get(fork_id)
        assert below.entries == 1 + sum(b.totals.entries for b in branches)
        assert below.leaves == sum(b.totals.leaves for b in branches)
        assert below.tokens == pytest.approx(record.tokens + sum(b.totals.tokens for b in branches))
    whole = sum(t.entries for t in (totals.below(r) for r in session.roots) if t is not None)
    assert whole == len(session.by_id)
    root_tokens = sum(t.tokens for t in (totals.below(r) for r in session.roots) if t is not None)
    assert root_tokens == pytest.approx(session.totals.tokens)


def test_branch_totals_follow_a_growing_session(tmp_path: Path) -> None:
    entries = [
        user("u1", None, "q", 1),
        assistant("a1", "u1", "one", 2),
        assistant("a2", "u1", "two", 3),
    ]
    path = write(tmp_path / "s.jsonl", header(), *entries)
    session = Session.open(path)
    before = branch_totals(session).fork("u1")
    assert [(b.child_id, b.totals.entries, b.totals.tokens) for b in before] == [
        ("a1", 1, 15.0),
        ("a2", 1, 15.0),
    ]
    with path.open("ab") as f:
        f.write(jsonl(user("u2", "a2", "more", 4), assistant("a3", "u2", "three", 5)))
    session.refresh()
    grown = branch_totals(session)
    fresh = branch_totals(Session.open(path))
    for node in ("u1", "a1", "a2", "u2", "a3"):
        assert grown.below(node) == fresh.below(node), node
    a2 = grown.below("a2")
    assert a2 is not None and (a2.entries, a2.leaves, a2.tokens) == (3, 1, 30.0)


def test_branch_totals_after_a_tree_rebuild_are_a_fresh_reads(tmp_path: Path) -> None:
    """A reply written before its parent hangs as a root; when the parent's line comes, the
    tree is built again (not grown) and the totals must be too: the branch then holds both."""
    path = write(
        tmp_path / "s.jsonl",
        header(),
        user("u1", None, "q", 1),
        assistant("a1", "u1", "one", 2),
        assistant("a3", "u2", "early", 3),  # its parent u2 is not written yet
    )
    session = Session.open(path)
    assert known(branch_totals(session).below("u1")).entries == 2
    with path.open("ab") as f:
        f.write(jsonl(user("u2", "a1", "more", 4)))
    session.refresh()
    grown = branch_totals(session)
    fresh = branch_totals(Session.open(path))
    for node in ("u1", "a1", "u2", "a3"):
        assert grown.below(node) == fresh.below(node), node
    u1 = known(grown.below("u1"))
    assert (u1.entries, u1.leaves, u1.tokens) == (4, 1, 30.0)


def test_sort_by_cost_puts_the_most_expensive_first() -> None:
    cheap = SessionSummary(path="/p/a.jsonl", cwd="/p", cost=0.1, modified_ms=2)
    dear = SessionSummary(path="/p/b.jsonl", cwd="/p", cost=2.5, modified_ms=1)
    rows = build_rows([cheap, dear], order=SortOrder.COST)
    assert [r.summary.path for r in rows if isinstance(r, SessionRow)] == ["/p/b.jsonl", "/p/a.jsonl"]
    # The `s` key's cycle: recent, name, size, cost, and round again.
    assert [SortOrder.RECENT.next(), SortOrder.SIZE.next(), SortOrder.COST.next()] == [
        SortOrder.NAME,
        SortOrder.COST,
        SortOrder.RECENT,
    ]


# ---------------------------------------------------------------------------- compaction audit
def test_the_audit_of_a_compaction(tmp_path: Path) -> None:
    session = Session.open(write(tmp_path / "s.jsonl", header(), *AUDIT_CASE))
    [audit] = audit_compactions(session, project(session, "u3").path)
    assert audit.compaction_id == "c1" and audit.tokens_before == 3000
    assert audit.tokens_after == AUDIT_PI_TOKENS["c1"]  # pi's estimate with the compaction as leaf
    assert (audit.first_kept_id, audit.kept_entries) == ("u2", 2)
    assert (audit.summarized_entries, audit.summarized_messages) == (4, 4)
    # What the summarized entries weighed is pi's estimate of the context just before u2.
    assert audit.summarized_tokens == AUDIT_PI_TOKENS["b1"]
    assert audit.paths == ("src/a.ts", "src/b.ts") and audit.missing_paths == ("src/b.ts",)
    assert audit.missing_commands == ("npm test", "ls -la")


def test_audits_of_two_compactions_in_a_row() -> None:
    session = Session.open(TWO_COMPACTIONS)
    assert session.default_leaf is not None
    path = project(session, session.default_leaf).path
    audits = audit_compactions(session, path)
    assert len(audits) == 2
    first, second = audits
    assert first.position < second.position
    for audit in audits:
        at = project(session, audit.compaction_id)
        assert audit.tokens_after == context_tokens(session, at)
        assert all(
            p not in session.entry_dict(session.get(audit.compaction_id))["summary"]
            for p in audit.missing_paths
        )
    assert second.first_kept_id is None and second.kept_entries == 0  # the second keeps nothing


# ---------------------------------------------------------------------------- size doctor
def test_the_size_doctor_accounts_for_every_byte() -> None:
    session = Session.open(DEMO)
    report = size_report(session)
    lines = sum(v.bytes for v in report.by_type.values())
    assert report.header_bytes + lines + report.other_bytes == report.file_bytes == DEMO.stat().st_size
    assert report.active.bytes + report.abandoned.bytes == lines
    assert report.active.count == len(session.path_to(session.default_leaf or ""))
    assert sum(v.bytes for v in report.by_role.values()) == report.by_type["message"].bytes
    assert report.clone_drops >= report.abandoned.bytes
    assert set(report.tool_results) <= {"read", "bash", "edit", "write", "grep", "ls"}
    json.dumps(report.to_json())


def test_images_are_counted(tmp_path: Path) -> None:
    session = Session.open(write(tmp_path / "i.jsonl", header(), *CASES["images"]))
    report = size_report(session)
    assert report.images.count == 5  # one, two in a message, one in a tool result, one custom
    assert report.images.bytes == 5 * len("iVBORw0KGgo=")


def test_the_timeline_read_in_steps_is_the_timeline() -> None:
    """The browser reads a long path's replies a piece at a time: the pieces add up to the same
    timeline, and what a piece read is kept for the next move."""
    from pi_sessions.core.projection.timeline import timeline_steps

    session = Session.open(TWO_COMPACTIONS)
    whole = session.path_to(known(session.default_leaf))
    fresh = Session.open(TWO_COMPACTIONS)
    steps = list(timeline_steps(fresh, fresh.path_to(known(fresh.default_leaf)), 3))
    assert steps[:-1] == [None] * ((len(whole) - 1) // 3) and steps[-1] is not None
    assert steps[-1] == context_timeline(session, whole)
    # A move up the same branch: nothing left to read, the answer at once.
    shorter = fresh.path_to(known(fresh.default_leaf))[:-1]
    assert [s is None for s in timeline_steps(fresh, shorter, 3)] == [False]


def test_a_fork_drops_what_the_size_doctor_says() -> None:
    from pi_sessions.core.projection.sizes import fork_drops

    session = Session.open(DEMO)
    for leaf in session.by_id:
        assert fork_drops(session, leaf) == size_report(session, leaf).clone_drops, leaf


@pytest.mark.parametrize("seed", range(6))
def test_branch_totals_grown_in_place_agree_with_a_fresh_walk(
    tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Appends at the tip, at built entries (new forks), under earlier appends and as new roots,
    in batches: every entry's figures equal those of the whole file read again (on odd seeds the
    totals are walked again every few appends)."""
    import random

    from pi_sessions.core.projection import branch_costs

    if seed % 2:
        monkeypatch.setattr(branch_costs, "_FOLD_AFTER", 5)

    rng = random.Random(seed)
    ids = ["e0"]
    objects = [user("e0", None, "q", 0)]
    for i in range(1, 60):
        first_parent = ids[-1] if rng.random() < 0.8 else rng.choice(ids)
        make = assistant if i % 2 else user
        objects.append(make(f"e{i}", first_parent, f"t{i}", i))
        ids.append(f"e{i}")
    path = write(tmp_path / "s.jsonl", header(), *objects)
    session = Session.open(path)
    grown = branch_totals(session)
    n = 60
    for _batch in range(8):
        lines = []
        for _ in range(rng.randint(1, 6)):
            pick = rng.random()
            parent: str | None = None if pick < 0.05 else ids[-1] if pick < 0.6 else rng.choice(ids)
            make = assistant if rng.random() < 0.5 else user
            lines.append(make(f"e{n}", parent, f"t{n}", n))
            ids.append(f"e{n}")
            n += 1
        with path.open("ab") as f:
            f.write(jsonl(*lines))
        session.refresh()
        grown = branch_totals(session)
        again = Session.open(path)  # held: the totals keep only a weak reference to it
        fresh = branch_totals(again)
        for node in ids:
            assert _figures(grown.below(node)) == _figures(fresh.below(node)), (seed, node)
            mine, theirs = grown.branch(node), fresh.branch(node)
            assert (mine and (mine.child_id, _figures(mine.totals))) == (
                theirs and (theirs.child_id, _figures(theirs.totals))
            )
        for node in fresh.forks():
            assert [(b.child_id, _figures(b.totals)) for b in grown.fork(node)] == [
                (b.child_id, _figures(b.totals)) for b in fresh.fork(node)
            ]


def _figures(totals: SubtreeTotals | None) -> tuple[int, int, float, float] | None:
    """Counts exactly, sums to the cent's millionth (added in another order, the last bit
    of a float may differ)."""
    if totals is None:
        return None
    return totals.entries, totals.leaves, round(totals.tokens, 6), round(totals.cost, 9)
