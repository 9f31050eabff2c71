"""`pi-sessions search`: the sessions that match a query, each with the entry that matched."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...core.listing.store import SessionStore
    from ...core.listing.summary import SessionSummary
    from ...core.search.excerpt import Excerpt
    from ...core.search.in_session import HitPlace
    from ...core.search.picker import SearchIndex, SessionText
    from ...core.search.query import ParsedQuery

    Found = Iterator[tuple[SessionSummary, HitPlace, Excerpt | None]]

HELP = "sessions matching a query (pi's picker search; --deep adds tool output, thinking, labels...)"

EXAMPLES = (
    'pi-sessions search "flaky test"',
    "pi-sessions search --deep 're:auth\\.ts' --since 7d --json",
)

JSON_EXCERPT_WIDTH = 100
SYNC_SECONDS = 2.0  # search texts written to the index per run, at most about this long


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "query",
        metavar="QUERY",
        help='words (all must match), "a phrase", re:PATTERN (JavaScript syntax), @7d (active within 7 days)',
    )
    parser.add_argument(
        "--deep",
        action="store_true",
        help="also tool results, bash commands and output, thinking, custom messages, summaries, labels",
    )
    parser.add_argument(
        "--since", metavar="DUR", help="only sessions active within DUR (12h, 7d, 2w, 3mo, 1y)"
    )
    parser.add_argument("--session-dir", metavar="DIR")
    parser.add_argument(
        "--order",
        choices=("recent", "relevance"),
        default="recent",
        help="newest first (default), or pi's relevance score (default scope only)",
    )
    parser.add_argument("--json", action="store_true", help="JSON Lines, one object per hit")
    parser.add_argument(
        "--no-cache", action="store_true", help="read every file instead of using the index cache"
    )


def run(ns: argparse.Namespace) -> int:
    from ...core.search.query import QUERY_CUT_NOTE, parse_duration, parse_query
    from .output import warn

    window = None
    if ns.since is not None:
        try:
            window = parse_duration(ns.since)
        except ValueError as e:
            warn(f"pi-sessions: --since: {e}")
            return 2
    query = parse_query(ns.query, window_ms=window)
    if query.cut:
        warn(f"pi-sessions: {QUERY_CUT_NOTE} (a longer query costs too much to match)")
    if query.error is not None:
        warn(f"pi-sessions: {query.error}")
        return 2
    if query.is_blank:
        warn("pi-sessions: the query is empty (say what to look for, or @7d for recent sessions)")
        return 2
    return cmd_search(query, ns.deep, ns.session_dir, ns.order, ns.json, use_cache=not ns.no_cache)


def cmd_search(
    query: ParsedQuery, deep: bool, session_dir: str | None, order: str, as_json: bool, use_cache: bool = True
) -> int:
    from ...core.common.locations import resolve_sessions_root
    from ...core.search.picker import PatternTooSlow
    from .output import text, warn

    root = resolve_sessions_root(session_dir)
    printed = 0
    try:
        for summary, place, excerpt in (
            _deep_hits(root.path, query, use_cache, as_json)
            if deep
            else _index_hits(root.path, query, order, use_cache, as_json)
        ):
            _print_hit(summary, place, excerpt, as_json)
            printed += 1
    except PatternTooSlow as e:
        warn(f"pi-sessions: {e}")
        return 2
    if not printed and not as_json:
        text(f"no session matches in {root.describe()}")
    return 0


def _index_hits(root: str, query: ParsedQuery, order: str, use_cache: bool, as_json: bool) -> Found:
    """Default scope: pi's search over the store's texts, each text hit placed in its file."""
    from ...core.common.problems import SessionError
    from ...core.listing.store import SessionStore
    from ...core.search.in_session import HitPlace, TreePlaces, locate_hit
    from ...core.search.picker import SearchIndex, SessionText
    from ...core.session.session import Session

    store = SessionStore(root, use_cache=use_cache, keep_text=True)
    store.scan()
    summaries = {s.path: s for s in store.listing().summaries}
    index = _text_search(store, list(summaries.values()))
    if index is None:
        index = SearchIndex(SessionText.from_summary(s, store.texts(s.path)) for s in summaries.values())
    width = JSON_EXCERPT_WIDTH if as_json else _terminal_width()
    for hit in index.search(query, "relevance" if order == "relevance" else "recent"):
        summary = summaries[hit.item.path]
        place = HitPlace(None, hit.field, None, None)
        if hit.in_text:
            try:
                session = Session.open(summary.path)
                place = locate_hit(session, hit, query, TreePlaces(session))
            except (SessionError, OSError):
                place = HitPlace(None, hit.field, None, None)
        yield summary, place, hit.excerpt(width)


def _text_search(store: SessionStore, summaries: list[SessionSummary]) -> SearchIndex[SessionText] | None:
    """The texts from the SQLite index, brought up to date (None without a cache file: every
    text is then matched in memory, as the index would only be written to be thrown away)."""
    from ...core.search.indexed import IndexedSearchIndex
    from ...core.search.picker import SessionText
    from ...core.search.text_index import open_text_index
    from .output import warn

    if not store.use_cache:
        return None
    texts, notice = open_text_index(store.root, store.cache_dir)
    if notice:
        warn(f"pi-sessions: {notice}")
    if texts is None:
        return None
    # At most a few seconds of writing per run: the first run at 30,000 sessions would
    # otherwise write every text (a minute or two) before answering. What is not written
    # yet is matched from memory, exactly as the index would.
    import sqlite3

    try:
        texts.sync(summaries, store.texts, seconds=SYNC_SECONDS)
    except sqlite3.Error as e:  # (a disk full, or damage found only now: matched from memory)
        warn(f"pi-sessions: the search texts were not written to the index ({e})")
        texts.db.close()
        return None
    items = [SessionText.from_summary(s, () if texts.rowid(s) else store.texts(s.path)) for s in summaries]
    return IndexedSearchIndex(items, texts, store.texts)


def _deep_hits(root: str, query: ParsedQuery, use_cache: bool, as_json: bool) -> Found:
    from ...core.listing.store import list_sessions
    from ...core.search.deep import deep_search

    width = JSON_EXCERPT_WIDTH if as_json else _terminal_width()
    listing = list_sessions(root, use_cache=use_cache)
    for found in deep_search(listing.summaries, query):
        yield found.summary, found.place, found.hit.excerpt(width)


def _terminal_width() -> int:
    import shutil

    return max(20, shutil.get_terminal_size((100, 24)).columns - 6)


def _print_hit(summary: SessionSummary, place: HitPlace, excerpt: Excerpt | None, as_json: bool) -> None:
    from ...core.common.jsonout import encode_json
    from .output import text, write_line

    if as_json:
        obj = {
            "path": summary.path,
            "session_id": summary.id,
            "entry_id": place.entry_id,
            "field": place.field,
            "excerpt": excerpt.text if excerpt is not None else None,
            "on_active_path": place.on_active_path,
            "branch_from": place.branch_from,
            "highlights": [list(span) for span in excerpt.spans] if excerpt is not None else [],
        }
        write_line(encode_json(obj))
        return
    where = place.field
    if place.entry_id is not None:
        branch = "active path" if place.on_active_path else f"branch from {place.branch_from or 'a root'}"
        where += f" of {place.entry_id} ({branch})"
    title = summary.title.replace("\n", " ")[:70]
    text(f"{(summary.modified or '')[:16]:16}  {title}")
    text(f"{'':16}  {where}: {excerpt.text if excerpt is not None else ''}")
    text(f"{'':16}  {summary.path}")
