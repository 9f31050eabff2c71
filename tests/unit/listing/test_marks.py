"""Pins, archive marks and tags as the side file holds them, and what the sidebar keeps of them."""

from __future__ import annotations

import pytest
from pi_sessions.core.listing.marks import (
    NO_MARKS,
    MarkChange,
    MarkError,
    MarkFilter,
    Marks,
    dump_marks,
    kept_summaries,
    parse_marks,
    parse_tag_changes,
    split_filter,
    with_change,
)
from pi_sessions.core.listing.sidebar_rows import SessionRow, build_rows
from pi_sessions.core.listing.summary import SessionSummary


def summary(n: int, cwd: str = "/p") -> SessionSummary:
    return SessionSummary(path=f"/s/{n}.jsonl", id=f"id-{n}", cwd=cwd, modified_ms=float(1000 - n))


def test_a_tag_change_adds_and_removes_and_the_last_word_wins() -> None:
    change = parse_tag_changes(["+Auth", "bug", "-wip", "-bug"])
    assert change.add_tags == ("auth",) and set(change.remove_tags) == {"wip", "bug"}
    marks = with_change(
        Marks({"a": with_change(NO_MARKS, "a", MarkChange(add_tags=("wip", "x"))).of("a")}), "a", change
    )
    assert marks.of("a").tags == ("auth", "x")


@pytest.mark.parametrize("word", ["", "+", "a b", "bad\x1b[2J", "x" * 65])
def test_a_word_that_cannot_be_a_tag_is_refused(word: str) -> None:
    with pytest.raises(MarkError):
        parse_tag_changes([word])


def test_an_emptied_mark_leaves_the_file_and_the_text_reads_back() -> None:
    marks = with_change(NO_MARKS, "a", MarkChange(pinned=True), "/s/a.jsonl")
    marks = with_change(marks, "b", MarkChange(add_tags=("auth",)))
    marks = with_change(marks, "b", MarkChange(remove_tags=("auth",)))
    assert set(marks.sessions) == {"a"}
    again = parse_marks(dump_marks(marks))
    assert again == marks and again.of("a").path == "/s/a.jsonl"


def test_an_id_or_path_no_utf_8_can_hold_is_written_and_read_back() -> None:
    marks = with_change(NO_MARKS, "id\ud800", MarkChange(pinned=True), "/s/\udcff.jsonl")
    text = dump_marks(marks)
    text.encode("utf-8")  # (writable)
    assert parse_marks(text) == marks


@pytest.mark.parametrize("text", ["[1]", "{", '{"version": 99}', '{"sessions": []}'])
def test_a_side_file_we_do_not_understand_is_an_error_not_empty(text: str) -> None:
    # (an update must never overwrite such a file with nothing)
    with pytest.raises(MarkError):
        parse_marks(text)


def test_mark_words_leave_the_query_and_make_the_filter() -> None:
    assert split_filter("fix tag:Auth is:archived login") == ("fix login", MarkFilter(("auth",), False, True))
    assert split_filter("is:pinned") == ("", MarkFilter((), True, False))
    assert split_filter("plain words") == ("plain words", None)
    assert split_filter("re:tag:x") == ("re:tag:x", None)  # a pattern runs to the end


def test_archived_sessions_are_kept_only_when_the_filter_asks() -> None:
    sessions = [summary(n) for n in range(4)]
    marks = with_change(NO_MARKS, "id-1", MarkChange(archived=True, add_tags=("auth",)))
    marks = with_change(marks, "id-2", MarkChange(add_tags=("auth",)))
    assert [s.id for s in kept_summaries(sessions, marks)] == ["id-0", "id-2", "id-3"]
    assert [s.id for s in kept_summaries(sessions, marks, MarkFilter(archived=True))] == ["id-1"]
    assert [s.id for s in kept_summaries(sessions, marks, MarkFilter(("auth",)))] == ["id-2"]
    assert kept_summaries(sessions, NO_MARKS) == sessions


def test_pinned_sessions_come_first_in_their_group_and_groups_keep_their_order() -> None:
    sessions = [summary(0, "/a"), summary(1, "/b"), summary(2, "/b"), summary(3, "/b")]
    rows = build_rows(sessions, pinned={"id-3"})
    order = [(r.summary.cwd, r.summary.id) for r in rows if isinstance(r, SessionRow)]
    assert order == [("/a", "id-0"), ("/b", "id-3"), ("/b", "id-1"), ("/b", "id-2")]
