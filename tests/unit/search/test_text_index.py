"""The sidebar's search from the SQLite index: the same hits as the search with every text in
memory (on the pi 1.6.0 corpus, many queries both ways), a file grown since the index was
written still found by its new text, a damaged index file built again, and the texts left in
the index until a hit is shown."""

from __future__ import annotations

import re
import shutil
import sqlite3
from pathlib import Path

import pytest
from pi_sessions.core.index.db import index_file_path, open_index
from pi_sessions.core.listing.store import SessionStore
from pi_sessions.core.search.indexed import IndexedSearchIndex
from pi_sessions.core.search.picker import SearchIndex, SessionText
from pi_sessions.core.search.sidebar import SidebarSearch
from pi_sessions.core.search.text_index import TextIndex, open_text_index

from tests.helpers.checks import known
from tests.helpers.corpus import FIXTURES
from tests.helpers.sessions import assistant, header, jsonl, user, write


def _store(root: Path, cache: Path) -> SessionStore:
    store = SessionStore(root, cache_dir=cache, keep_text=True)
    store.scan()
    return store


def _both(root: Path, cache: Path) -> tuple[SearchIndex[SessionText], IndexedSearchIndex, SessionStore]:
    store = _store(root, cache)
    summaries = store.listing().summaries
    text_index = TextIndex(open_index(str(root), base=cache))
    assert text_index.usable
    assert text_index.sync(summaries, store.texts) == len(summaries)
    plain = SearchIndex(SessionText.from_summary(s, store.texts(s.path)) for s in summaries)
    indexed = IndexedSearchIndex(
        [SessionText.from_summary(s, () if text_index.rowid(s) else store.texts(s.path)) for s in summaries],
        text_index,
        store.texts,
    )
    return plain, indexed, store


def _seen(results: object) -> list[tuple[object, ...]]:
    """What a user sees of each hit: the session, the score, the fields, the excerpt."""
    out: list[tuple[object, ...]] = []
    for hit in results:  # type: ignore[attr-defined]
        excerpt = hit.excerpt(60)
        out.append((hit.item.path, hit.score, hit.fields, hit.field, hit.segment, excerpt))
    return out


def _queries(store: SessionStore, paths: list[str]) -> list[str]:
    """Words and pieces of words of every length from the corpus texts, phrases across
    messages, several words at once, scattered letters, patterns, a time filter."""
    words: set[str] = set()
    for path in paths:
        for text in store.texts(path):
            words.update(w for w in re.split(r"\s+", text) if w)
    picked = sorted(words)[::7][:150]
    queries = ["a", "e ", "th", "is", "the", "tion", "xyz", "zzzq", "hello world", '"of the"']
    queries += picked
    queries += [w[:2] for w in picked[:20]] + [w[1:4] for w in picked[:20] if len(w) > 3]
    queries += [f"{a} {b}" for a, b in zip(picked[:30], picked[30:60], strict=False)]
    queries += [f'"{a} {b}"' for a, b in zip(picked[60:80], picked[80:100], strict=False)]
    queries += ["re:fix(ed|es)", "re:^\\w+ing", "re:\\d{3}", "@30d the", "hmp", "prja", "srvapi"]
    for summary in store.listing().summaries:  # the other fields: ids, names, cwds
        queries += [str(summary.id)[:5], str(summary.id)[3:9], summary.cwd[-6:]]
        queries += (summary.name or "").split()[:2]
    return queries


def test_the_index_answers_exactly_what_the_texts_in_memory_answer(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    shutil.copytree(FIXTURES / "sessions", root)
    plain, indexed, store = _both(root, tmp_path / "cache")
    assert indexed.indexed == len(plain) > 50
    queries = _queries(store, [item.path for item in plain.items])
    found = 0
    for query in queries:
        for order in ("recent", "relevance"):
            want = _seen(plain.search(query, order, now_ms=1.9e12))
            got = _seen(indexed.search(query, order, now_ms=1.9e12))
            assert got == want, query
            found += len(want)
    assert found > 1000  # (the queries do find things)


def test_a_file_grown_since_the_index_was_written_is_found_by_its_new_text(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path = write(root / "--p--" / "a.jsonl", header(id="s1"), user("u1", None, "about a parser"))
    write(root / "--p--" / "b.jsonl", header(id="s2"), user("u1", None, "about a lexer"))
    cache = tmp_path / "cache"
    store = _store(root, cache)
    text_index = TextIndex(open_index(str(root), base=cache))
    text_index.sync(store.listing().summaries, store.texts)
    with path.open("ab") as f:
        f.write(jsonl(assistant("a1", "u1", "now with a tokenizer", n=1)))
    store.scan()
    search = SidebarSearch(store.texts, text_index)
    summaries = store.listing().summaries
    assert list(search.search("tokenizer", summaries).paths) == [str(path)]
    assert list(search.search("lexer", summaries).paths) != []
    # brought up to date, the index answers the same
    assert text_index.sync(summaries, store.texts) == 1
    search.attach(text_index)
    assert list(search.search("tokenizer", summaries).paths) == [str(path)]


def test_a_damaged_index_file_is_built_again_with_a_notice(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path = write(root / "--p--" / "a.jsonl", header(id="s1"), user("u1", None, "about a parser"))
    cache = tmp_path / "cache"
    file = index_file_path(str(root), cache)
    file.parent.mkdir(parents=True)
    file.write_bytes(b"SQLite format 3\x00" + b"\xff" * 5000)
    db = open_index(str(root), base=cache)
    assert db.notice is not None and "rebuilt" in db.notice
    store = _store(root, cache)
    text_index = TextIndex(db)
    assert text_index.sync(store.listing().summaries, store.texts) == 1
    search = SidebarSearch(store.texts, text_index)
    assert list(search.search("parser", store.listing().summaries).paths) == [str(path)]


def test_opening_the_search_reads_no_text_the_index_holds(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    for n in range(20):
        write(
            root / "--p--" / f"{n:02d}.jsonl", header(id=f"s{n}"), user("u1", None, f"text number {n} here")
        )
    cache = tmp_path / "cache"
    store = _store(root, cache)
    text_index = TextIndex(open_index(str(root), base=cache))
    summaries = store.listing().summaries
    text_index.sync(summaries, store.texts)
    read: list[str] = []

    def texts_of(path: str) -> list[str]:
        read.append(path)
        return store.texts(path)

    search = SidebarSearch(texts_of, text_index)
    search.build(summaries)
    assert read == []
    results = search.search('"number 7 here"', summaries)
    assert len(results) == 1 and read == []  # matched in the index
    hit = results.hit(str(root / "--p--" / "07.jsonl"))
    assert hit is not None and known(hit.excerpt(40)).text == "text number 7 here"
    assert read == [str(root / "--p--" / "07.jsonl")]  # the hit's text only, when shown


def test_the_search_command_answers_the_same_with_the_texts_partly_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first run writes only a few seconds' worth of texts; the others are matched from
    memory, with the same answer."""
    from pi_sessions.app.subcommands import search as search_command

    from tests.helpers.cli import cli

    root = tmp_path / "sessions"
    shutil.copytree(FIXTURES / "sessions", root)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    query = ["search", "--session-dir", str(root), "--json", "the"]
    monkeypatch.setattr(search_command, "SYNC_SECONDS", -1.0)  # (no time at all: none written)
    partly = cli(*query)
    written = sqlite3.connect(next((tmp_path / "cache").rglob("index-*.sqlite3")))
    assert written.execute("SELECT count(*) FROM text_files").fetchone()[0] == 0
    monkeypatch.setattr(search_command, "SYNC_SECONDS", 60.0)
    whole = cli(*query)
    assert written.execute("SELECT count(*) FROM text_files").fetchone()[0] > 50
    memory = cli(*query, "--no-cache")
    assert partly.code == whole.code == memory.code == 0
    assert partly.stdout == whole.stdout == memory.stdout
    assert len(memory.stdout.splitlines()) > 20


def test_a_query_before_the_index_is_attached_still_answers_from_it(tmp_path: Path) -> None:
    """The first query may come before the worker that opens the index: it opens it then,
    rather than reading every text into memory."""
    root = tmp_path / "sessions"
    for n in range(5):
        write(root / "--p--" / f"{n}.jsonl", header(id=f"s{n}"), user("u1", None, f"note {n} kept"))
    cache = tmp_path / "cache"
    store = _store(root, cache)
    summaries = store.listing().summaries
    TextIndex(open_index(str(root), base=cache)).sync(summaries, store.texts)
    read: list[str] = []

    def texts_of(path: str) -> list[str]:
        read.append(path)
        return store.texts(path)

    search = SidebarSearch(texts_of, open_texts=lambda: TextIndex(open_index(str(root), base=cache)))
    assert list(search.search('"note 3 kept"', summaries).paths) == [str(root / "--p--" / "3.jsonl")]
    assert read == []


def test_an_index_damaged_inside_is_built_again_with_a_notice(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path = write(root / "--p--" / "a.jsonl", header(id="s1"), user("u1", None, "about a parser"))
    cache = tmp_path / "cache"
    store = _store(root, cache)
    texts, notice = open_text_index(str(root), cache)
    assert texts is not None and notice is None
    texts.sync(store.listing().summaries, store.texts)
    texts.db.close()
    file = index_file_path(str(root), cache)
    data = bytearray(file.read_bytes())
    page = 4096
    data[page:] = b"\x5a" * (len(data) - page)  # every page but the first (the header, the schema)
    file.write_bytes(bytes(data))
    texts, notice = open_text_index(str(root), cache)
    assert texts is not None and notice is not None and "rebuilt" in notice
    assert texts.sync(store.listing().summaries, store.texts) == 1
    search = SidebarSearch(store.texts, texts)
    assert list(search.search("parser", store.listing().summaries).paths) == [str(path)]
