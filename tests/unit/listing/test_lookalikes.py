"""Rows that would read alike are told apart by the shortest part that differs
(core/listing/lookalikes.py)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest
from pi_sessions.core.common.glyphs import ASCII
from pi_sessions.core.listing.lookalikes import Row, differing_words, started_words, told_apart


@pytest.fixture(autouse=True)
def utc() -> Iterator[None]:
    old = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if old is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = old
    time.tzset()


def test_where_two_titles_part() -> None:
    assert differing_words("The login form accepts empty passwords", ["The login form accepts a name"]) == (
        "empty passwords"
    )
    assert differing_words("a b c", ["A B C"]) == ""  # the same words (case aside)


def test_the_shortest_start_that_differs() -> None:
    me = Row("t", "2025-03-01T09:15:00.000Z", "0195aaaa")
    assert started_words(me, [Row("t", "2025-03-02T09:15:00.000Z", "0195bbbb")]) == "Mar 01"
    assert started_words(me, [Row("t", "2025-03-01T10:40:00.000Z", "0195bbbb")]) == "09:15"
    assert started_words(me, [Row("t", "2025-03-01T09:15:30.000Z", "0195bbbb")]) == "0195a"
    assert started_words(Row("t", None, "abcdef"), [Row("t", None, "abxyz")]) == "abcd"


def test_told_apart_in_the_room_there_is() -> None:
    title = "The login form accepts empty passwords"
    same = Row(title, "2025-03-02T09:15:00.000Z", "b")
    me = Row(title, "2025-03-01T09:15:00.000Z", "a")
    assert told_apart(me, [same], 16) == "The… Mar 01"  # a word is not cut
    assert told_apart(me, [same], 17) == "The login… Mar 01"
    other = Row("The login form accepts empty usernames", None, "c")
    assert told_apart(other, [me], 40) == "The login form accepts empty usernames"  # fits: no twin
    assert told_apart(other, [me], 20) == "The login…usernames"
    assert told_apart(other, [me], 20, glyphs=ASCII) == "The...usernames"
    assert told_apart(me, [], 16) == "The login form…"
    for room in range(1, 40):
        assert len(told_apart(other, [me], room)) <= room
        assert len(told_apart(me, [same], room)) <= room
