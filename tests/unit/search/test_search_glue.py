"""The core side of the browser's search: a query's rows kept from the listing's (groups, counts,
forks whose parent did not match), where a shown hit sits (a file read once until it changes),
where choosing a hit or a label lands, and the labels remembered per file."""

from __future__ import annotations

from pathlib import Path

import pytest
from pi_sessions.core.listing.sidebar_rows import (
    HIT_LINE,
    GroupRow,
    ResultRows,
    SessionRow,
    build_rows,
    filter_rows,
)
from pi_sessions.core.listing.store import SessionStore
from pi_sessions.core.listing.summary import SessionSummary
from pi_sessions.core.search import labels as labels_module
from pi_sessions.core.search import sidebar as sidebar_search
from pi_sessions.core.search.in_session import HitPlace
from pi_sessions.core.search.labels import LabelIndex
from pi_sessions.core.search.landing import Aim, land, place_words
from pi_sessions.core.search.query import parse_query
from pi_sessions.core.search.sidebar import SidebarSearch, describe_window
from pi_sessions.core.session.session import Session

from tests.helpers.sessions import branched, entry, header, rewrite_keeping_size_and_mtime, user, write


def summary(path: str, cwd: str, modified: float, parent: str | None = None) -> SessionSummary:
    return SessionSummary(path=path, cwd=cwd, modified_ms=modified, parent_session_path=parent)


def test_a_query_keeps_its_sessions_in_place_with_a_hit_line_each() -> None:
    listing = [
        summary("/a/1", "/a", 5),
        summary("/a/2", "/a", 4),
        summary("/b/1", "/b", 9),
        summary("/b/2", "/b", 8),
        summary("/c/1", "/c", 1),
    ]
    rows = build_rows(listing)
    kept = filter_rows(rows, {"/a/2", "/b/1", "/b/2"})
    assert [(type(r).__name__, getattr(r, "count", None)) for r in kept] == [
        ("GroupRow", 2),
        ("SessionRow", None),
        ("HitLine", None),
        ("SessionRow", None),
        ("HitLine", None),
        ("GroupRow", 1),
        ("SessionRow", None),
        ("HitLine", None),
    ]
    shown = [r.summary.path for r in kept if isinstance(r, SessionRow)]
    full = [r.summary.path for r in rows if isinstance(r, SessionRow)]
    assert shown == [p for p in full if p in {"/a/2", "/b/1", "/b/2"}]  # the listing's order
    assert all(kept[i + 1] is HIT_LINE for i, r in enumerate(kept) if isinstance(r, SessionRow))
    assert filter_rows(rows, set()) == []


def test_folders_and_their_sessions_are_ordered_the_same_whatever_order_the_listing_comes_in() -> None:
    """A listing newest first (as the store gives it) takes a shortcut: no folder is sorted
    again. Any other order gives the same rows."""
    import random

    newest_first = [
        SessionSummary(path=f"/{cwd}/{i}", cwd=f"/{cwd}", modified_ms=modified, mtime_ns=mtime)
        for i, (cwd, modified, mtime) in enumerate(
            [("b", 9, 5), ("a", 9, 4), ("a", 7, 9), ("c", 7, 8), ("b", 7, 8), ("a", 3, 1), ("c", 1, 1)]
        )
    ]
    rows = build_rows(newest_first, current_cwd="/c")
    # (the current folder first; then by latest activity, a tie by name)
    assert [(r.cwd, r.count) for r in rows if isinstance(r, GroupRow)] == [("/c", 2), ("/a", 3), ("/b", 2)]
    assert [r.summary.path for r in rows if isinstance(r, SessionRow)] == [
        "/c/3", "/c/6", "/a/1", "/a/2", "/a/5", "/b/0", "/b/4"
    ]  # fmt: skip
    shuffled = list(newest_first)
    random.Random(7).shuffle(shuffled)
    assert build_rows(shuffled, current_cwd="/c") == rows
    assert build_rows(reversed(newest_first), current_cwd="/c") == rows


def test_a_fork_whose_parent_did_not_match_moves_up() -> None:
    listing = [
        summary("/p/root", "/p", 9),
        summary("/p/child", "/p", 8, parent="/p/root"),
        summary("/p/grandchild", "/p", 7, parent="/p/child"),
    ]
    rows = build_rows(listing)
    assert [r.depth for r in rows if isinstance(r, SessionRow)] == [0, 1, 2]
    kept = [r for r in filter_rows(rows, {"/p/root", "/p/grandchild"}) if isinstance(r, SessionRow)]
    assert [(r.summary.path, r.depth) for r in kept] == [("/p/root", 0), ("/p/grandchild", 1)]
    shown = [r for r in filter_rows(rows, {"/p/grandchild"}) if isinstance(r, SessionRow | GroupRow)]
    assert [(type(r).__name__, getattr(r, "depth", None)) for r in shown] == [
        ("GroupRow", None),
        ("SessionRow", 0),
    ]


def test_numbered_answers_keep_the_same_rows_as_the_paths(tmp_path: Path) -> None:
    # The sidebar's answer at every keystroke goes by each session's number in the index;
    # it must keep exactly the rows a plain set of paths keeps (forks moved up included).
    root = tmp_path / "sessions"
    for name, cwd, text, parent in [
        ("root", "/p", "alpha beta", None),
        ("child", "/p", "beta only", "root"),
        ("grandchild", "/p", "alpha again", "child"),
        ("other", "/q", "gamma alpha", None),
        ("lonely", "/r", "nothing here", None),
    ]:
        parent_path = str(root / "--p--" / f"{parent}.jsonl") if parent else None
        write(
            root / ("--p--" if cwd == "/p" else "--x--") / f"{name}.jsonl",
            header(id=name, cwd=cwd, **({"parentSession": parent_path} if parent_path else {})),
            user("u1", None, text),
        )
    store = SessionStore(root, use_cache=False, keep_text=True)
    store.scan()
    listing = store.listing().summaries
    rows = build_rows(listing)
    result_rows = ResultRows(rows)
    search = SidebarSearch(store.texts)
    for query in ["alpha", "beta", "gamma", "zzz", "a", "re:al.ha"]:
        results = search.search(query, listing)
        paths = set(results.paths)
        assert results.rows_of(result_rows) == filter_rows(rows, paths), query
        assert all((s.path in results) == (s.path in paths) for s in listing), query
        assert all((results.hit(s.path) is not None) == (s.path in paths) for s in listing), query
        assert len(results) == len(paths)
    assert {
        r.summary.path.rsplit("/", 1)[1]
        for r in search.search("alpha", listing).rows_of(result_rows)
        if isinstance(r, SessionRow)
    } == {"root.jsonl", "grandchild.jsonl", "other.jsonl"}


def test_a_shown_hit_is_placed_and_its_file_read_once_until_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = branched(tmp_path / "sessions" / "p" / "s.jsonl")
    store = SessionStore(tmp_path / "sessions", cache_dir=tmp_path / "cache", keep_text=True)
    store.scan()
    listing = store.listing().summaries
    search = SidebarSearch(store.texts)
    opened: list[str] = []
    real_open = sidebar_search._open
    monkeypatch.setattr(sidebar_search, "_open", lambda p: opened.append(p) or real_open(p))

    def place(text: str) -> HitPlace:
        results = search.search(text, listing)
        ((_, found),) = list(search.place(results, list(results.paths)))
        return found

    assert place('"explain why that works"') == HitPlace("u3", "message", False, "a1")
    assert place("go ahead") == HitPlace("u2", "message", True, None)
    assert place("scheduler test") == HitPlace("u1", "message", True, None)
    assert opened == [str(path)]  # one read for every message of the file
    assert place("proj") == HitPlace(None, "cwd", None, None)  # the cwd: nothing to read
    # The file changes: read again, and the hit is where it is now.
    with open(path, "ab") as f:
        f.write(
            b'{"type":"message","id":"u9","parentId":"a3","timestamp":"2025-03-01T11:00:00.000Z",'
            b'"message":{"role":"user","content":"the lock again","timestamp":9}}\n'
        )
    store.scan()
    listing = store.listing().summaries
    search.update(listing)
    assert place('"explain why that works"') == HitPlace("u3", "message", True, None)  # now on the path
    assert opened == [str(path)] * 2
    assert place_words(HitPlace("u3", "message", False, "a1234567890")) == "branch from a1234567"
    assert place_words(HitPlace("u3", "message", True, None)) == "active path"
    assert place_words(HitPlace(None, "cwd", None, None)) == ""


def test_a_hit_is_placed_again_after_a_same_size_rewrite_with_its_mtime_put_back(tmp_path: Path) -> None:
    # Only the ctime tells the file changed: the places remembered for it are not kept.
    path = branched(tmp_path / "sessions" / "p" / "s.jsonl")
    store = SessionStore(tmp_path / "sessions", cache_dir=tmp_path / "cache", keep_text=True)
    store.scan()
    search = SidebarSearch(store.texts)

    def place(text: str) -> HitPlace:
        listing = store.listing().summaries
        search.update(listing)
        results = search.search(text, listing)
        ((_, found),) = list(search.place(results, list(results.paths)))
        return found

    assert place('"explain why that works"') == HitPlace("u3", "message", False, "a1")
    # a2 now hangs off a3 ("t2" and "a3": the same size): u3 is on the active path.
    data = path.read_bytes()
    moved = data.replace(b'"id": "a2", "parentId": "t2"', b'"id": "a2", "parentId": "a3"')
    rewrite_keeping_size_and_mtime(path, moved)
    store.scan()
    assert place('"explain why that works"') == HitPlace("u3", "message", True, None)


def test_landing_on_a_hit_and_on_a_label(tmp_path: Path) -> None:
    path = branched(tmp_path / "s.jsonl")
    session = Session.open(path)
    landing = land(session, Aim(parse_query("fix"), place=HitPlace("u2", "message", True, None)))
    assert landing.entry_id == "u2" and landing.walk == ("u1", "u2", "a2") and landing.ordinal() == 2
    deep = land(session, Aim(parse_query('"94 todo"'), "deep"))
    assert deep.walk == ("t2",)  # a tool result: deep only
    assert land(session, Aim(parse_query('"94 todo"'))).walk == ()
    label = land(session, Aim(None, place=HitPlace("u3", "label", False, "a1"), walk=("u3", "gone")))
    assert label.entry_id == "u3" and label.walk == ("u3",)  # entries the file does not hold go
    gone = land(session, Aim(parse_query("fix"), place=HitPlace("nowhere", "message", True, None)))
    assert gone.entry_id is None


def test_labels_are_read_again_only_for_files_that_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "sessions"
    one = write(
        root / "p" / "one.jsonl",
        header(),
        user("u1", None, "a", 1),
        entry("label", "l1", "u1", 2, targetId="u1", label="first"),
    )
    two = write(root / "p" / "two.jsonl", header(), user("u1", None, "b", 1))
    store = SessionStore(root, cache_dir=tmp_path / "cache")
    store.scan()
    read: list[str] = []
    real = labels_module.all_labels
    monkeypatch.setattr(
        labels_module, "all_labels", lambda s, *a: read.extend(x.path for x in s) or real(s, *a)
    )
    index = LabelIndex()
    found = [row.text for _, rows in index.read(store.listing().summaries) for row in rows]
    assert found == ["first"] and sorted(read) == sorted([str(one), str(two)])
    read.clear()
    assert [row.text for _, rows in index.read(store.listing().summaries) for row in rows] == ["first"]
    assert read == []  # nothing changed: nothing read
    with open(two, "ab") as f:
        f.write(
            b'{"type":"label","id":"l2","parentId":"u1","timestamp":"2025-03-01T10:00:09.000Z","targetId":"u1","label":"second"}\n'
        )
    store.scan()
    found = sorted(row.text for _, rows in index.read(store.listing().summaries) for row in rows)
    assert found == ["first", "second"] and read == [str(two)]
    assert [row.text for row in index.labels_of(str(two))] == ["second"]


def test_time_filters_are_said_as_they_could_be_typed() -> None:
    day = 86_400_000
    windows = (12 * 3_600_000, 10 * day, 7 * day, 14 * day, 90 * day, 365 * day)
    assert [describe_window(ms) for ms in windows] == ["12h", "10d", "1w", "2w", "3mo", "1y"]
    assert describe_window(parse_query("deploy @3mo").window_ms or 0) == "3mo"


def test_a_query_longer_than_the_limit_is_cut_and_says_so(tmp_path: Path) -> None:
    """A pasted page is matched as its first MAX_QUERY_CHARS characters (the cost of matching
    grows with the query: 3,000 characters froze the browser at every key)."""
    from pi_sessions.core.search.query import MAX_QUERY_CHARS

    root = tmp_path / "sessions"
    write(root / "p" / "one.jsonl", header(id="s-one"), user("u1", None, "alpha beta", 1))
    write(root / "p" / "two.jsonl", header(id="s-two"), user("u1", None, "alpha omega", 1))
    store = SessionStore(root, cache_dir=tmp_path / "cache", keep_text=True)
    store.scan()
    listing = store.listing().summaries
    search = SidebarSearch(store.texts)
    start = " ".join(["alpha"] * 60)[:MAX_QUERY_CHARS]
    long = start + " omega" * 10
    assert len(long) > MAX_QUERY_CHARS
    parsed = parse_query(long)
    assert parsed.cut and parsed.text == start.strip()
    assert parse_query(long[:MAX_QUERY_CHARS]).tokens == parsed.tokens
    assert not parse_query(start).cut and not parse_query("  " + start + "  ").cut  # trimmed first
    found = search.search(long, listing)
    assert found.query.cut and found.text == long  # the query as typed is kept
    assert set(found.paths) == set(search.search(start, listing).paths) == {s.path for s in listing}
    # (the whole query would have kept one session only)
    assert {s.id for s in listing if s.path in search.search(start[:200] + " omega", listing)} == {"s-two"}
