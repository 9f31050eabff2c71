"""What a push sends of one file, given what the store holds of it."""

from __future__ import annotations

from pi_sessions.core.store_pg.pushplan import Stored, digest_of, lines_from, plan_push

FILE = b'{"type":"session"}\n{"a":1}\n{"b":2}\n'


def stored(data: bytes) -> Stored:
    return Stored(1, len(data), digest_of(data))


def test_a_new_file_is_sent_whole() -> None:
    plan = plan_push(FILE, None)
    assert (plan.start, plan.replace, plan.size) == (0, False, len(FILE))
    assert [raw for _, raw in lines_from(FILE, plan.start)] == FILE.splitlines(keepends=True)


def test_an_unchanged_file_sends_nothing() -> None:
    assert plan_push(FILE, stored(FILE)).sends_nothing


def test_only_the_appended_lines_travel() -> None:
    grown = FILE + b'{"c":3}\n'
    plan = plan_push(grown, stored(FILE))
    assert (plan.start, plan.replace) == (len(FILE), False)
    assert list(lines_from(grown, plan.start)) == [(len(FILE), b'{"c":3}\n')]
    assert plan.digest == digest_of(grown)


def test_a_half_written_last_line_is_sent_again_whole() -> None:
    half = FILE + b'{"c":'
    plan = plan_push(FILE + b'{"c":3}\n', stored(half))
    assert (plan.start, plan.replace) == (len(FILE), False)
    assert plan_push(half, stored(half)).sends_nothing


def test_a_rewritten_or_truncated_file_is_sent_again() -> None:
    rewritten = FILE.replace(b"1", b"9")
    assert plan_push(rewritten, stored(FILE)).replace
    assert plan_push(rewritten, stored(FILE)).start == 0
    assert plan_push(FILE[:10], stored(FILE)).replace


def test_the_last_line_without_newline_is_kept_as_it_is() -> None:
    assert [raw for _, raw in lines_from(b"a\nb", 0)] == [b"a\n", b"b"]
