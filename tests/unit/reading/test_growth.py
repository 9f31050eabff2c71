"""One look at a changed file for all its readers: what each one's mark says, and what is read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pi_sessions.core.reading.growth import ReadMark, Verdict, mark_of, read_growth

from tests.helpers.sessions import rewrite_keeping_size_and_mtime

LINES = b"".join(b'{"n": %d, "pad": "%s"}\n' % (i, b"x" * 40) for i in range(20))


def reader_at(path: Path, end: int) -> ReadMark:
    """The mark of a reader that read `path` up to `end` just now."""
    look = read_growth(str(path), [None])
    return mark_of(look.data, end, look.stamp)


def test_readers_at_different_offsets_share_one_read(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(LINES)
    behind, ahead = reader_at(path, 300), reader_at(path, len(LINES))
    with open(path, "ab") as f:
        f.write(b'{"n": "new"}\n')
    look = read_growth(str(path), [behind, ahead])
    assert look.verdict(behind) is look.verdict(ahead) is Verdict.GREW
    assert look.start == 300 - len(behind.tail)  # from the earlier reader's tail on, once
    assert look.since(300) == (LINES + b'{"n": "new"}\n')[300:]
    assert look.since(len(LINES)) == b'{"n": "new"}\n'


def test_what_no_longer_holds_is_read_again_from_the_start(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(LINES)
    mark = reader_at(path, len(LINES))
    same = read_growth(str(path), [mark])
    assert same.verdict(mark) is Verdict.UNCHANGED and same.data == b""  # the stamp says so
    path.write_bytes(LINES[:100])  # cut short
    assert read_growth(str(path), [mark]).verdict(mark) is Verdict.REPLACED
    path.write_bytes(LINES.replace(b'"n": 1,', b'"n": 7,') + b"more\n")  # same inode, other bytes
    look = read_growth(str(path), [mark])
    assert look.verdict(mark) is Verdict.REPLACED and look.start == 0 and look.since(0) == path.read_bytes()
    other = tmp_path / "other.jsonl"
    other.write_bytes(LINES + b"more\n")
    os.replace(other, path)  # a new inode holding the same bytes and more
    assert read_growth(str(path), [mark]).verdict(mark) is Verdict.REPLACED


def test_a_mark_it_was_not_asked_about_is_judged_from_what_was_read(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(LINES)
    mark = reader_at(path, 500)
    with open(path, "ab") as f:
        f.write(b"more\n")
    whole = read_growth(str(path), [None])  # a reader that wants everything
    assert whole.verdict(None) is Verdict.FRESH and whole.verdict(mark) is Verdict.GREW
    tail_only = read_growth(str(path), [reader_at(path, len(LINES))])
    with pytest.raises(KeyError):
        tail_only.verdict(mark)  # its bytes were not read: the caller looks itself


@pytest.mark.parametrize("odd", ["fifo", "link to /dev/null"])
def test_what_is_not_a_regular_file_is_refused_at_once(tmp_path: Path, odd: str) -> None:
    path = tmp_path / "s.jsonl"
    if odd == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/null")
    with pytest.raises(OSError, match="not a regular file"):
        read_growth(str(path), [None])


def test_a_same_size_rewrite_with_its_mtime_put_back_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(LINES)
    mark = reader_at(path, len(LINES))
    rewrite_keeping_size_and_mtime(path, LINES.replace(b'"n": 10,', b'"n": 99,'))  # in the middle
    look = read_growth(str(path), [mark])
    assert look.verdict(mark) is Verdict.REPLACED and look.since(0) == path.read_bytes()
    again = mark_of(look.data, len(LINES), look.stamp)
    assert read_growth(str(path), [again]).verdict(again) is Verdict.UNCHANGED  # then read once
