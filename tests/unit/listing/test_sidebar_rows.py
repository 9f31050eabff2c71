"""The sidebar's rows: folders grouped by exact cwd (a sibling sharing a prefix is another
folder), sessions in pi's order with its tie-breaks, home shown as ~ only for what is inside it."""

from __future__ import annotations

import random

from pi_sessions.core.listing.sidebar_rows import GroupRow, SessionRow, build_rows, home_relative
from pi_sessions.core.listing.store import sort_newest_first
from pi_sessions.core.listing.summary import SessionSummary


def _session(name: str, cwd: str = "/p", modified: float = 1.0, mtime: int = 0) -> SessionSummary:
    return SessionSummary(path=f"/s/{name}.jsonl", id=name, cwd=cwd, modified_ms=modified, mtime_ns=mtime)


def test_sessions_that_tie_on_modified_are_in_the_listings_order_in_the_sidebar_too() -> None:
    """pi's list: `modified` newest first, a tie by the file's mtime (newest first); a sidebar
    fed the sessions in any other order (a live session moved) shows that order, as `list` does."""
    sessions = [_session(f"s{i}", modified=float(i // 3), mtime=(i * 7) % 10) for i in range(9)]
    listed = sessions[:]
    sort_newest_first(listed)
    for seed in range(5):
        shuffled = sessions[:]
        random.Random(seed).shuffle(shuffled)
        rows = build_rows(shuffled)
        assert [r.summary.id for r in rows if isinstance(r, SessionRow)] == [s.id for s in listed]


def test_a_sibling_folder_sharing_the_cwds_prefix_is_its_own_group_and_not_the_current_one() -> None:
    sessions = [
        _session("in", "/a/b", 2.0),
        _session("sibling", "/a/bc", 3.0),
        _session("below", "/a/b/c", 1.0),
    ]
    rows = build_rows(sessions, current_cwd="/a/b")
    groups = [(r.cwd, r.count, r.is_current) for r in rows if isinstance(r, GroupRow)]
    assert groups == [("/a/b", 1, True), ("/a/bc", 1, False), ("/a/b/c", 1, False)]
    only = build_rows(sessions, current_cwd="/a/b", only_current=True)
    assert [r.summary.id for r in only if isinstance(r, SessionRow)] == ["in"]


def test_home_is_shown_as_a_tilde_only_for_what_lies_inside_it() -> None:
    assert home_relative("/home/u", "/home/u") == "~"
    assert home_relative("/home/u/proj", "/home/u") == "~/proj"
    assert home_relative("/home/u/proj", "/home/u/") == "~/proj"
    assert home_relative("/home/user2/proj", "/home/u") == "/home/user2/proj"  # only a shared prefix
    assert home_relative("/home/ux", "/home/u") == "/home/ux"
