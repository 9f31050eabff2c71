"""Search at 2,000 and 30,000 sessions: per keystroke (default scope) and per deep query.

  keystroke: a query typed letter by letter into one index (as the sidebar does: each
             keystroke narrows the previous result), plus the excerpts of 40 visible rows
                                                      target: median <= 30 ms (2k), <= 60 ms (30k)
  deep:      one deep query over every file (page cache warm), and the time to its first hit
  labels:    every label of every session
  locate:    placing 40 default hits on their entries (reads their files)

The 2,000-session tree is the benchmarks' shared one (pi's `gen.mjs --big`, or our look-alike);
the 30,000-session tree is built here once with tests/bench/bigtree.py (about 2 GB, a minute):

    .venv/bin/python -m tests.bench.bench_search [--skip-30k]
"""

from __future__ import annotations

import os
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from .trees import ensure_tree_2k as ensure_big_tree

BIG_30K = Path(os.environ.get("PI_BIG30K_DIR", "/tmp/pi-sessions-big-30k"))
VISIBLE_ROWS = 40
EXCERPT_WIDTH = 80


def ensure_30k_tree() -> Path:
    sessions = BIG_30K / "sessions"
    if sessions.is_dir() and any(sessions.iterdir()):
        return BIG_30K
    from .bigtree import generate

    print(f"generating {BIG_30K} (30,000 sessions) with tests/bench/bigtree.py ...", flush=True)
    generate(sessions, count=30_000, cwd_count=200)
    return BIG_30K


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def _queries(texts: list[list[str]], rng: random.Random) -> list[str]:
    """Queries made of words the tree holds, a phrase, two words, and one that matches nothing."""
    words = [w.strip(".,?!:;()").lower() for t in texts for s in t[:5] for w in s.split()]
    words = sorted({w for w in words if len(w) >= 5 and w.isalpha()})
    picked = rng.sample(words, min(4, len(words)))
    phrase_source = rng.choice([s for t in texts for s in t[:3] if len(s.split()) >= 3])
    phrase = '"' + " ".join(phrase_source.split()[:3]) + '"'
    return [*picked, phrase, f"{picked[0]} {picked[-1]}", "qzxjvw"]


def measure(tree: Path, label: str) -> list[str]:
    from pi_sessions.core.listing.store import SessionStore
    from pi_sessions.core.search.deep import deep_search
    from pi_sessions.core.search.in_session import locate_hit
    from pi_sessions.core.search.labels import all_labels
    from pi_sessions.core.search.picker import SearchIndex, SessionText
    from pi_sessions.core.search.query import parse_query
    from pi_sessions.core.session.session import Session

    rows: list[str] = []
    root = tree / "sessions"
    cache = Path(tempfile.gettempdir()) / "pi-sessions-bench-search-cache"
    store = SessionStore(root, cache_dir=cache, keep_text=True)
    t0 = time.perf_counter()
    store.scan()
    summaries = store.listing().summaries
    scanned = time.perf_counter() - t0
    t0 = time.perf_counter()
    items = [SessionText.from_summary(s, store.texts(s.path)) for s in summaries]
    index = SearchIndex(items)
    built = time.perf_counter() - t0
    text_mb = sum(len(t) for i in items for t in i.message_texts) / 1e6
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rows.append(
        f"{label}: {len(summaries)} sessions, {text_mb:.0f} MB of message text; store scan {_ms(scanned)}, "
        f"index build {_ms(built)}, peak RSS {rss:.0f} MiB"
    )

    rng = random.Random(11)
    queries = _queries([list(i.message_texts) for i in items[:: max(1, len(items) // 200)]], rng)
    keystrokes: list[float] = []
    first_letters: list[float] = []
    for query in queries:
        index.search("")  # the box is cleared between queries
        for i in range(1, len(query) + 1):
            t0 = time.perf_counter()
            hits = index.search(query[:i])
            for hit in hits[:VISIBLE_ROWS]:
                hit.excerpt(EXCERPT_WIDTH)
            elapsed = time.perf_counter() - t0
            keystrokes.append(elapsed)
            if i == 1:
                first_letters.append(elapsed)
        rows.append(f"  typed {query!r:28} {len(hits):6} hits")
    target = 0.030 if len(summaries) <= 5000 else 0.060
    median = statistics.median(keystrokes)
    p90 = statistics.quantiles(keystrokes, n=10)[-1]
    verdict = "ok" if median <= target else f"OVER target {target * 1000:.0f} ms"
    rows.append(
        f"  per keystroke ({len(keystrokes)} keys): median {_ms(median)}, p90 {_ms(p90)}, "
        f"max {_ms(max(keystrokes))}, first letters median {_ms(statistics.median(first_letters))}  {verdict}"
    )

    rows += _indexed_keystrokes(root, cache, store, summaries, queries, keystrokes)

    visible = index.search(queries[0])[:VISIBLE_ROWS]
    t0 = time.perf_counter()
    parsed = parse_query(queries[0])
    for hit in visible:
        if hit.in_text:
            locate_hit(Session.open(hit.item.path), hit, parsed)
    rows.append(f"  locate {len(visible)} hits on their entries: {_ms(time.perf_counter() - t0)}")

    for query in (queries[0], queries[-1], queries[4], f"re:\\b{queries[1][:4]}\\w*\\s+\\w+ing\\b"):
        t0 = time.perf_counter()
        first = None
        count = 0
        for _ in deep_search(summaries, parse_query(query)):
            count += 1
            if first is None:
                first = time.perf_counter() - t0
        total = time.perf_counter() - t0
        shown = "none" if first is None else _ms(first).strip()
        rows.append(f"  deep {query!r:30} {count:6} hits in {_ms(total)} (first hit after {shown})")

    t0 = time.perf_counter()
    labels = sum(1 for _ in all_labels(summaries))
    rows.append(f"  labels: {labels} in {_ms(time.perf_counter() - t0)}")
    return rows


def _indexed_keystrokes(
    root: Path, cache: Path, store: object, summaries: list, queries: list[str], in_memory: list[float]
) -> list[str]:
    """The same keystrokes answered from the SQLite index's texts (written first if needed)."""
    from pi_sessions.core.index.db import open_index
    from pi_sessions.core.search.indexed import IndexedSearchIndex
    from pi_sessions.core.search.picker import SessionText
    from pi_sessions.core.search.text_index import TextIndex

    texts_of = store.texts  # type: ignore[attr-defined]
    text_index = TextIndex(open_index(str(root), base=cache))
    t0 = time.perf_counter()
    written = text_index.sync(summaries, texts_of)
    synced = time.perf_counter() - t0
    t0 = time.perf_counter()
    items = [SessionText.from_summary(s, () if text_index.rowid(s) else texts_of(s.path)) for s in summaries]
    index = IndexedSearchIndex(items, text_index, texts_of)
    built = time.perf_counter() - t0
    keystrokes: list[float] = []
    for query in queries:
        index.search("")
        for i in range(1, len(query) + 1):
            t0 = time.perf_counter()
            hits = index.search(query[:i])
            for hit in hits[:VISIBLE_ROWS]:
                hit.excerpt(EXCERPT_WIDTH)
            keystrokes.append(time.perf_counter() - t0)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    ratio = statistics.median(keystrokes) / statistics.median(in_memory)
    return [
        f"  from the SQLite index: {written} texts written in {_ms(synced)}, index made in {_ms(built)}; "
        f"per keystroke median {_ms(statistics.median(keystrokes))}, max {_ms(max(keystrokes))} "
        f"({ratio:.2f}x the in-memory median), peak RSS so far {rss:.0f} MiB"
    ]


def main() -> None:
    trees = [(ensure_big_tree(), "2k tree")]
    if "--skip-30k" not in sys.argv:
        trees.append((ensure_30k_tree(), "30k tree"))
    for tree, label in trees:
        for row in measure(tree, label):
            print(row, flush=True)


if __name__ == "__main__":
    main()
