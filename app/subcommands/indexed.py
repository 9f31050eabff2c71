"""What `history`, `edits` and `commands` share: the index of the sessions folder, brought up
to date first (a progress line on stderr while a first build runs on a terminal), and the
options every one of them takes."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...core.index.db import IndexDb

_PROGRESS_EVERY = 25  # files between two progress lines


def add_index_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--session-dir", metavar="DIR")
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="build the index in memory for this run (reads every file; the cached index is left as it is)",
    )


def current_index(ns: argparse.Namespace) -> IndexDb:
    """The index of the sessions folder `ns` names, current with its files."""
    from ...core.common.locations import resolve_sessions_root
    from ...core.index.refresh import updated_index
    from .output import progress, stderr_is_terminal, warn

    root = resolve_sessions_root(ns.session_dir)
    shown = False

    def report(done: int, total: int, first_build: bool) -> None:
        nonlocal shown
        if not first_build or (done % _PROGRESS_EVERY and done != total):
            return
        if done == total:
            if shown:
                progress(None)
            return
        shown = True
        progress(f"pi-sessions: indexing {root.path}: {done}/{total} sessions")

    db, _ = updated_index(
        root.path, use_file=not ns.no_cache, progress=report if stderr_is_terminal() else None
    )
    if db.notice:
        warn(f"pi-sessions: {db.notice}")
    return db
