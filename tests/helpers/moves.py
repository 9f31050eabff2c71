"""Sessions and walks that the tests of moving the selection share (core and browser)."""

from __future__ import annotations

import random
from array import array
from pathlib import Path

from pi_sessions.core.reading.records import EntryRecord
from pi_sessions.core.session.session import Session

from tests.helpers.sessions import assistant, entry, header, jsonl, system, user


def full_path(session: Session, leaf: str) -> list[EntryRecord]:
    """The path as a walk from the leaf to the root finds it (nothing remembered)."""
    tree = session.tree
    saved = tree._last_path, tree._depth
    tree._last_path, tree._depth = [], array("i")
    try:
        return session.path_to(leaf)
    finally:
        tree._last_path, tree._depth = saved


def branchy_session(path: Path) -> Session:
    """Branches full of what a projection leaves out or changes: a compaction with kept and
    folded entries, a null and a replacing context edit whose targets come later on some
    branches, empty branch summaries, message entries without a message, settings changes."""
    rng = random.Random(7)
    lines: list[dict] = [header()]
    ids: list[str] = []

    def add(item: dict) -> None:
        lines.append(item)
        ids.append(item["id"])

    add(user("r", None, "root", 0))
    for i in range(1, 400):
        parent = rng.choice(ids[-6:]) if rng.random() < 0.3 else ids[-1]
        n = i
        kind = rng.random()
        if kind < 0.05:
            add(
                entry("branch_summary", f"b{i}", parent, n, summary=rng.choice(["", "a summary"]), fromId="r")
            )
        elif kind < 0.09:
            add(entry("message", f"m{i}", parent, n))  # no message object
        elif kind < 0.12:
            add(entry("thinking_level_change", f"t{i}", parent, n, thinkingLevel=rng.choice(["low", "high"])))
        elif kind < 0.15:
            add(entry("model_change", f"c{i}", parent, n, provider="openai", modelId=f"gpt-{i}"))
        elif kind < 0.17:
            add(system(f"s{i}", parent, n, content=f"prompt {i}"))
        elif kind < 0.19 and i > 20:
            target = rng.choice([f"e{i + 3}", f"e{i + 5}", rng.choice(ids)])
            replacement = rng.choice([None, {"content": f"edited {i}"}])
            add(entry("context_edit", f"x{i}", parent, n, targetId=target, replacement=replacement))
        elif kind < 0.2 and i > 50:
            add(
                entry(
                    "compaction",
                    f"k{i}",
                    parent,
                    n,
                    summary="s",
                    firstKeptEntryId=rng.choice(ids[-30:]),
                    tokensBefore=5,
                )
            )
        elif i % 2:
            add(assistant(f"e{i}", parent, f"reply {i}", n))
        else:
            add(user(f"e{i}", parent, f"question {i}", n))
    path.write_bytes(jsonl(*lines))
    return Session.open(path)
