"""The sidebar's branch count (a listing's tips: entries no other entry names as parent) is the
same however the file's lines reach the listing: a whole file at once, in pieces (a big file,
a grown one) or line after line, whatever the shape."""

from __future__ import annotations

import json
import random
from itertools import pairwise
from typing import Any

import pytest
from pi_sessions.core.listing.summary import SummaryBuilder

from tests.helpers.sessions import header, user


def _shapes(rng: random.Random) -> list[dict[str, Any]]:
    """Entries of a random shape: chains, forks, children written before their parent,
    ids used twice, parents that never appear, ids that are not strings."""
    rows: list[dict[str, Any]] = []
    ids: list[Any] = []
    for n in range(rng.randint(1, 40)):
        roll = rng.random()
        entry_id: Any = f"e{n}"
        if roll < 0.05 and ids:
            entry_id = rng.choice(ids)  # an id used twice
        elif roll < 0.08:
            entry_id = n  # not a string
        parent: Any = ids[-1] if ids else None
        roll = rng.random()
        if roll < 0.15 and ids:
            parent = rng.choice(ids)  # a fork
        elif roll < 0.2:
            parent = f"e{n + rng.randint(1, 5)}"  # a child written before its parent
        elif roll < 0.23:
            parent = "nowhere"
        rows.append(user(entry_id, parent, f"message {n}", n))
        ids.append(entry_id)
    return rows


def _chain(rng: random.Random) -> list[dict[str, Any]]:
    """One chain, maybe with its first entry's parent one of its own (a cycle), maybe after a
    line naming one of its entries (a child before its parent) or using one of its ids."""
    count = rng.randint(2, 30)
    rows = [user(f"e{n}", f"e{n - 1}" if n else None, f"message {n}", n) for n in range(count)]
    if rng.random() < 0.4:
        rows[0]["parentId"] = f"e{rng.randrange(count)}"
    roll = rng.random()
    if roll < 0.3:
        rows.insert(0, user("early", f"e{rng.randrange(count)}", "a child first", 0))
    elif roll < 0.6:
        again = f"e{rng.randrange(count)}"
        if rng.random() < 0.5:
            rows[0]["parentId"] = again
        rows.insert(0, user(again, None, "an id used again below", 0))
    return rows


def _tips_after(lines: list[bytes], cuts: list[int] | None) -> tuple[set[str], set[str]]:
    """The tips and remembered parents after the lines are fed in pieces cut at `cuts`
    (None: line after line)."""
    builder = SummaryBuilder()
    if cuts is None:
        for line in lines:
            builder.feed_bytes(line, final=False)
    else:
        bounds = [0, *cuts, len(lines)]
        for start, stop in pairwise(bounds):
            builder.feed_bytes(b"".join(lines[start:stop]), final=stop == len(lines))
    return builder.tips, builder.referenced


def _lines(rows: list[dict[str, Any]]) -> list[bytes]:
    return [(json.dumps(row) + "\n").encode() for row in [header(), *rows]]


@pytest.mark.parametrize("seed", range(300))
def test_the_tips_are_the_same_fed_whole_in_pieces_or_line_after_line(seed: int) -> None:
    rng = random.Random(seed)
    lines = _lines(_chain(rng) if seed % 2 else _shapes(rng))
    one_by_one = _tips_after(lines, None)
    assert _tips_after(lines, []) == one_by_one
    assert _tips_after(lines, [2]) == one_by_one  # (the header and a first line, then the rest)
    assert _tips_after(lines, sorted(rng.sample(range(1, len(lines)), 1))) == one_by_one


def test_a_chain_has_one_tip_and_its_first_parent_is_remembered() -> None:
    rows = [user(f"e{n}", f"e{n - 1}" if n else "before", "hi", n) for n in range(50)]
    tips, referenced = _tips_after(_lines(rows), [])
    assert (tips, referenced) == ({"e49"}, {"before"})
    # then the remembered parent shows up: it is no tip (it has a child)
    late = _lines([user("before", None, "the first", 0)])[1:]
    assert _tips_after(_lines(rows) + late, []) == ({"e49"}, set())
