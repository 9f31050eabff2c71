"""Search inside session files: hits placed on their entry (active path or a branch), the
deep scope's fields, deep search over files (its byte pre-filter never loses a hit), labels."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from pi_sessions.core.listing.store import SessionStore, list_sessions
from pi_sessions.core.search import bytefilter as bytefilter_module
from pi_sessions.core.search.deep import deep_search
from pi_sessions.core.search.in_session import (
    HitPlace,
    TreePlaces,
    deep_text,
    entry_hits,
    locate_hit,
    message_text,
    tree_matches,
)
from pi_sessions.core.search.labels import all_labels, filter_labels, session_labels
from pi_sessions.core.search.picker import PatternTooSlow, SearchCancelled, SearchIndex, SessionText
from pi_sessions.core.search.query import parse_query
from pi_sessions.core.session.session import Session

from tests.helpers.checks import known
from tests.helpers.corpus import FIXTURES
from tests.helpers.sessions import assistant, branched, entry, header, kitchen, tool_result, user, write

DAY = 86_400_000.0


def index_of(root: Path, cache: Path) -> tuple[SessionStore, SearchIndex[SessionText]]:
    store = SessionStore(root, cache_dir=cache, keep_text=True)
    store.scan()
    summaries = store.listing().summaries
    return store, SearchIndex(SessionText.from_summary(s, store.texts(s.path)) for s in summaries)


# ---------------------------------------------------------------------------- default scope


def test_a_hit_is_placed_on_its_entry_on_the_active_path_or_a_branch(tmp_path: Path) -> None:
    path = branched(tmp_path / "sessions" / "p" / "s.jsonl")
    _, index = index_of(tmp_path / "sessions", tmp_path / "cache")
    session = Session.open(path)
    query = parse_query('"explain why that works"')
    (hit,) = index.search(query)
    assert hit.segment == 2 and hit.entry_id is None  # the index knows the message, not the entry
    assert locate_hit(session, hit, query) == HitPlace("u3", "message", False, "a1")
    query = parse_query("fix it")
    (hit,) = index.search(query)
    assert locate_hit(session, hit, query) == HitPlace("u2", "message", True, None)
    # a hit in the cwd has no entry
    query = parse_query("proj")
    (hit,) = index.search(query)
    assert locate_hit(session, hit, query) == HitPlace(None, "cwd", None, None)


def test_a_hit_is_found_again_when_the_file_changed_since_indexing(tmp_path: Path) -> None:
    path = branched(tmp_path / "sessions" / "p" / "s.jsonl")
    _, index = index_of(tmp_path / "sessions", tmp_path / "cache")
    query = parse_query('"explain why"')
    (hit,) = index.search(query)
    # rewritten: the branch is gone and the words are now in another message
    write(path, header(), user("n1", None, "hello"), assistant("n2", "n1", "let me explain why it broke"))
    assert locate_hit(Session.open(path), hit, query) == HitPlace("n2", "message", True, None)


def test_default_text_is_the_index_text(tmp_path: Path) -> None:
    """The segments read back from a file are the ones the store keeps for the index."""
    store = SessionStore(FIXTURES / "sessions", cache_dir=tmp_path / "cache", keep_text=True)
    store.scan()
    compared = 0
    for summary in store.listing().summaries:
        texts = store.texts(summary.path)
        session = Session.open(summary.path)
        if session.is_v1:
            continue
        assert list(message_text(session).segments) == texts, summary.path
        compared += 1
    assert compared > 50


def test_entry_hits_walk_every_matching_entry(tmp_path: Path) -> None:
    session = Session.open(branched(tmp_path / "s.jsonl"))
    hits = entry_hits(session, parse_query("scheduler"))
    assert [(h.entry_id, h.field, h.on_active_path, h.branch_from) for h in hits] == [
        ("u1", "message", True, None),
        ("a1", "message", True, None),
    ]
    assert str(hits[1].excerpt(30)) == "Let me look at the scheduler."
    deep = entry_hits(session, parse_query("scheduler"), "deep")
    assert [(h.entry_id, h.field) for h in deep] == [
        ("u1", "message"),
        ("a1", "message"),
        ("t2", "tool_result"),
    ]
    assert [h.entry_id for h in entry_hits(session, parse_query("re:work(s|ed)"))] == ["u3", "a3"]
    assert [h.entry_id for h in entry_hits(session, parse_query("it works"))] == ["u3", "a3", "u2"]
    assert entry_hits(session, parse_query("re:(")) == []
    with pytest.raises(PatternTooSlow):
        write(tmp_path / "slow.jsonl", header(), user("x", None, "a" * 40 + "!"))
        entry_hits(Session.open(tmp_path / "slow.jsonl"), parse_query("re:(a|aa)+$"), time_limit=0.05)


def test_the_trees_own_search_wants_every_word_in_one_entry(tmp_path: Path) -> None:
    """pi's tree selector keeps an entry only when its text holds every token; the session
    search's hits (any token, for n / N) are not that."""
    session = Session.open(branched(tmp_path / "s.jsonl"))

    def matches(text: str) -> list[str]:
        return tree_matches(session, parse_query(text), text)

    assert matches("it works") == ["a3"]  # u3 holds "works" only, u2 "it" only
    assert [h.entry_id for h in entry_hits(session, parse_query("it works"))] == ["u3", "a3", "u2"]
    assert matches("SCHEDULER test") == ["u1", "t2"]  # deep: the tool result too; a1 lacks "test"
    assert matches('"lock is held" works') == ["a3"]
    assert matches("scheduler missing") == []
    assert matches("re:work(s|ed)") == ["u3", "a3"]
    assert matches(" a1 ") == ["a1"]  # an id typed alone finds its entry
    assert matches("t2 scheduler") == []


# ---------------------------------------------------------------------------- deep scope


def test_deep_text_has_every_field_with_its_entry(tmp_path: Path) -> None:
    text = deep_text(Session.open(kitchen(tmp_path / "s.jsonl")))
    got = list(zip([(o.entry_id, o.field) for o in known(text.owners)], text.segments, strict=True))
    assert got == [
        (("u1", "message"), "start"),
        (("a1", "message"), "ok"),
        (("a1", "thinking"), "maybe the cache is stale"),
        (("a1", "tool_call"), "bash rg -n frobnicate"),
        (("t1", "tool_result"), "src/x.ts: frobnicate() is unused"),
        (("b1", "bash_command"), "make deploy"),
        (("b1", "bash_output"), "deployed to staging"),
        (("c1", "custom_message"), "custom role text"),
        (("m1", "custom_message"), "remember the release notes"),
        (("s1", "summary"), "we tried the quick fix"),
        (("k1", "summary"), "goal: ship it"),
        (("t1", "label"), "good output"),  # cleared labels and labels of missing entries: none
    ]


@pytest.mark.parametrize(
    ("query", "entry_id", "field"),
    [
        ("stale cache", "a1", "thinking"),
        ("frobnicate", "a1", "tool_call"),
        ('"is unused"', "t1", "tool_result"),
        ("make deploy", "b1", "bash_command"),
        ("staging", "b1", "bash_output"),
        ("release notes", "m1", "custom_message"),
        ("quick fix", "s1", "summary"),
        ('"good output"', "t1", "label"),
        ("re:ship\\s+it$", "k1", "summary"),
    ],
)
def test_deep_only_hits_say_which_field_matched(
    tmp_path: Path, query: str, entry_id: str, field: str
) -> None:
    path = kitchen(tmp_path / "sessions" / "p" / "s.jsonl")
    summaries = list_sessions(str(tmp_path / "sessions"), use_cache=False).summaries
    _, index = index_of(tmp_path / "sessions", tmp_path / "cache")
    assert index.search(query) == []  # not in pi's picker text
    (found,) = deep_search(summaries, parse_query(query))
    assert (found.place.entry_id, found.place.field, found.place.on_active_path) == (entry_id, field, True)
    assert found.summary.path == str(path)
    excerpt = found.hit.excerpt(40)
    assert excerpt is not None and excerpt.spans


def test_deep_search_keeps_the_default_hits_and_time_filters(tmp_path: Path) -> None:
    branched(tmp_path / "sessions" / "p" / "s.jsonl")
    summaries = list_sessions(str(tmp_path / "sessions"), use_cache=False).summaries
    (found,) = deep_search(summaries, parse_query('"explain why"'))
    assert found.place == HitPlace("u3", "message", False, "a1")
    (found,) = deep_search(summaries, parse_query("flaky"))
    assert found.place.entry_id == "u1"
    (by_name,) = deep_search(summaries, parse_query("0195aaaa"))  # the session id: no file read
    assert by_name.place == HitPlace(None, "id", None, None)
    modified = summaries[0].modified_ms
    assert list(deep_search(summaries, parse_query("@2d TODO"), now_ms=modified + DAY))
    assert not list(deep_search(summaries, parse_query("@2d TODO"), now_ms=modified + 3 * DAY))


def test_deep_search_is_cancellable_between_files(tmp_path: Path) -> None:
    for i in range(5):
        branched(tmp_path / "sessions" / "p" / f"s{i}.jsonl")
    summaries = list_sessions(str(tmp_path / "sessions"), use_cache=False).summaries
    calls: list[int] = []

    def cancelled() -> bool:
        calls.append(1)
        return len(calls) > 2

    found = []
    with pytest.raises(SearchCancelled):
        for hit in deep_search(summaries, parse_query("TODO"), cancelled=cancelled):
            found.append(hit)
    assert len(found) == 2


def test_deep_search_finds_what_the_byte_filter_could_miss(tmp_path: Path) -> None:
    root = tmp_path / "sessions" / "p"
    # "K" as KELVIN SIGN lowercases to "k"; ASCII letters may be spelled as \\u escapes
    kelvin = json.dumps(tool_result("t1", "u1", "size: 12 \u212ab"), ensure_ascii=False)
    escaped = json.dumps(tool_result("t1", "u1", "grep hit")).replace("grep", "\\u0067rep")
    for name, line in (("kelvin", kelvin), ("escaped", escaped)):
        path = write(root / f"{name}.jsonl", header(), user("u1", None, "hi"))
        with path.open("a", encoding="utf-8") as f:
            f.write(line + "\n")
    summaries = list_sessions(str(tmp_path / "sessions"), use_cache=False).summaries
    assert [h.summary.path.rsplit("/", 1)[1] for h in deep_search(summaries, parse_query("12 kb"))] == [
        "kelvin.jsonl"
    ]
    (hit,) = deep_search(summaries, parse_query("grep"))
    assert hit.summary.path.endswith("escaped.jsonl") and hit.place.entry_id == "t1"


def test_a_token_without_ascii_is_looked_for_in_every_line(tmp_path: Path) -> None:
    """ "日本" has no ASCII run to look for in the bytes: the lines without "deploy" may hold it,
    so the filter must keep them all (the session holds both words, in two messages)."""
    root = tmp_path / "sessions" / "p"
    write(
        root / "both.jsonl",
        header(),
        user("u1", None, "日本語のドキュメント", 1),
        assistant("a1", "u1", "ok", 2),
        user("u2", "a1", "now deploy it", 3),
    )
    write(root / "one.jsonl", header(), user("u1", None, "deploy only", 1))
    summaries = list_sessions(str(tmp_path / "sessions"), use_cache=False).summaries
    found = [h.summary.path.rsplit("/", 1)[1] for h in deep_search(summaries, parse_query("日本 deploy"))]
    assert found == ["both.jsonl"]
    session = Session.open(root / "both.jsonl")
    assert [h.entry_id for h in entry_hits(session, parse_query("日本 deploy"))] == ["u1", "u2"]


def test_the_byte_filter_never_changes_a_deep_result(monkeypatch: pytest.MonkeyPatch) -> None:
    summaries = list_sessions(str(FIXTURES / "sessions"), use_cache=False).summaries
    rng = random.Random(5)
    words: list[str] = []
    for summary in summaries[:20]:
        text = deep_text(Session.open(summary.path))
        for segment in text.segments[:30]:
            words.extend(w for w in segment.split() if len(w) > 2)
    queries = [rng.choice(words) for _ in range(25)] + [
        '"' + " ".join(rng.sample(words, 2)) + '"' for _ in range(5)
    ]
    queries += [f"{rng.choice(words)} {rng.choice(words)}" for _ in range(10)] + ["zzqx", "tests pass", "k"]

    def results(query: str) -> list[tuple[str, str | None, str]]:
        return [
            (h.summary.path, h.place.entry_id, h.place.field)
            for h in deep_search(summaries, parse_query(query))
        ]

    filtered = {q: results(q) for q in queries}
    monkeypatch.setattr(bytefilter_module.ByteFilter, "_hidden", lambda self, data: True)
    for query in queries:
        assert filtered[query] == results(query), query
    assert sum(1 for r in filtered.values() if r) > 20


# ---------------------------------------------------------------------------- labels


def test_labels_resolve_as_pi_resolves_them(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        header(),
        user("u1", None, "Fix the scheduler", 1),
        assistant("a1", "u1", "Looking at it", 2),
        user("u3", "a1", "explain why that works", 3),
        entry("label", "l1", "u3", 4, targetId="u3", label="explained"),
        user("u2", "a1", "go on", 5),
        entry("label", "l2", "u2", 6, targetId="u1", label="start"),
        entry("label", "l3", "l2", 7, targetId="a1", label="first"),
        entry("label", "l4", "l3", 8, targetId="a1", label="renamed"),
        entry("label", "l5", "l4", 9, targetId="u1", label=""),  # cleared
        entry("label", "l6", "l5", 10, targetId="missing", label="nothing there"),
    )
    rows = session_labels(Session.open(path))
    assert [(r.entry_id, r.label, r.timestamp, r.on_active_path, r.branch_from) for r in rows] == [
        ("u3", "explained", "2025-03-01T10:00:04.000Z", False, "a1"),
        ("a1", "renamed", "2025-03-01T10:00:08.000Z", True, None),
    ]
    assert rows[0].excerpt == "explain why that works" and rows[1].excerpt == "Looking at it"
    assert filter_labels(rows, "REN") == [rows[1]]
    assert filter_labels(rows, "why") == [rows[0]]  # in the labelled entry's text
    assert filter_labels(rows, "") == rows
    assert filter_labels(rows, "nothing") == []


def test_every_label_of_the_corpus(tmp_path: Path) -> None:
    summaries = list_sessions(str(FIXTURES / "sessions"), use_cache=False).summaries
    rows = list(all_labels(summaries))
    expected = 0
    for path in (FIXTURES / "expected").rglob("*.jsonl.json"):
        data = json.loads(path.read_text())
        if not data.get("ids_are_random"):
            expected += len(data.get("labels") or {})
    assert len(rows) == expected > 10
    with pytest.raises(SearchCancelled):
        list(all_labels(summaries, cancelled=lambda: True))


def test_tree_places_walk_back_to_the_fork(tmp_path: Path) -> None:
    session = Session.open(branched(tmp_path / "s.jsonl"))
    places = TreePlaces(session)
    assert places.place("a3") == (False, "a1") and places.place("u3") == (False, "a1")
    assert places.place("a2") == (True, None)
    assert TreePlaces(session, leaf="a3").place("a2") == (False, "a1")
