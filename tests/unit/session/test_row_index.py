"""The tree's entry -> row index stays exact while rows are inserted (a live session growing):
every shown entry is found at its row, every other one is not, across the index's renumbering."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from pi_sessions.core.session.outline import RowIndex, outline_rows
from pi_sessions.core.session.session import Session

from tests.helpers.sessions import chain, header, write


@pytest.mark.parametrize("seed", range(4))
def test_rows_inserted_anywhere_are_found_where_they_are(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    session = Session.open(write(tmp_path / "s.jsonl", header(), *chain(300)))
    every = outline_rows(session)
    rng.shuffle(every)
    shown, waiting = every[:60], every[60:]
    index = RowIndex(session, shown)
    while waiting:
        count = rng.randint(1, 4)
        new, waiting = waiting[:count], waiting[count:]
        start = rng.randint(0, len(shown))
        shown[start:start] = new
        index.inserted(start, len(new))
        for position, row in enumerate(shown):
            assert index.get(row.record.id) == position
        for row in waiting:
            assert row.record.id not in index
