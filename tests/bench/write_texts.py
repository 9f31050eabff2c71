"""Bring the search texts of a sessions folder's SQLite index up to date, as the browser does the
first time its search line opens (the benchmarks' warm state; without the index, as on a
checkout before it, only the store's cache is warmed).

    python -m tests.bench.write_texts SESSIONS_DIR
"""

from __future__ import annotations

import sys


def main() -> None:
    from pi_sessions.core.listing.store import SessionStore

    root = sys.argv[1]
    store = SessionStore(root, keep_text=True)
    store.scan()
    try:
        from pi_sessions.core.search.text_index import open_text_index
    except ImportError:
        return
    texts, _ = open_text_index(store.root)
    written = texts.sync(store.listing().summaries, store.texts) if texts is not None else 0
    print(f"{written} texts written", file=sys.stderr)


if __name__ == "__main__":
    main()
