"""The hand-inlined fast paths give what the general paths give, on every corpus line and on
damaged copies of them: `decode_entries` vs `decode_entry_at`, a session read in one go vs
one grown a line at a time, a summary built from a whole file vs fed line by line."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from pi_sessions.core.listing.summary import NotASession, SummaryBuilder
from pi_sessions.core.reading.lines import LineDecodeError
from pi_sessions.core.reading.records import HeaderLine, decode_entries, decode_entry_at
from pi_sessions.core.session.session import Session

from tests.helpers.corpus import FIXTURES, session_files

FILES = session_files()


def _name(path: Path) -> str:
    for root in (FIXTURES, FIXTURES.parent):
        if path.is_relative_to(root):
            return str(path.relative_to(root))
    return path.name


# ------------------------------------------------------------------ damaged copies
# Each damage sends a line off the fast path somewhere: not JSON at all, a type the tagged
# decoder reads as another, a type or id of the wrong JSON type, a lone surrogate (msgspec
# refuses it: the lenient decoder takes it), a carriage return before the newline, a message's
# time as a string.
_OTHER_TYPE = {b'"type":"message"': b'"type":"label"', b'"type":"label"': b'"type":"message"'}


def _truncated(line: bytes) -> bytes:
    return line[: max(1, len(line) // 2)]


def _swapped_type(line: bytes) -> bytes:
    for old, new in _OTHER_TYPE.items():
        if old in line:
            return line.replace(old, new, 1)
    return line.replace(b'"type":"', b'"type":"message","_was":"', 1)


def _numeric_type(line: bytes) -> bytes:
    return line.replace(b'"type":"', b'"type":7,"_was":"', 1)


def _numeric_id(line: bytes) -> bytes:
    return line.replace(b'"id":"', b'"id":12,"_id":"', 1)


def _lone_surrogate(line: bytes) -> bytes:
    return line.replace(b'"timestamp":"', b'"timestamp":"\\ud800', 1)


def _carriage_return(line: bytes) -> bytes:
    return line + b"\r"


def _string_message_time(line: bytes) -> bytes:
    """A message's time as a string: pi's listing falls back to the entry's timestamp."""
    return re.sub(rb'"timestamp":(\d+)', rb'"timestamp":"\1"', line, count=1)


DAMAGES: tuple[Callable[[bytes], bytes], ...] = (
    _truncated,
    _swapped_type,
    _numeric_type,
    _numeric_id,
    _lone_surrogate,
    _carriage_return,
    _string_message_time,
)


def _damaged(data: bytes, shift: int) -> bytes:
    """Every third line after the header damaged, the damage rotating (from `shift` on)."""
    lines = data.split(b"\n")
    for i in range(1, len(lines)):
        if i % 3 == 0 and lines[i].strip():
            lines[i] = DAMAGES[(i // 3 + shift) % len(DAMAGES)](lines[i])
    return b"\n".join(lines)


def _variants() -> Iterator[Any]:
    for path in FILES:
        data = path.read_bytes()
        yield pytest.param(data, id=_name(path))
        yield pytest.param(_damaged(data, 0), id=_name(path) + "~damaged-a")
        yield pytest.param(_damaged(data, 3), id=_name(path) + "~damaged-b")


VARIANTS = list(_variants())


def _complete_lines(data: bytes) -> list[tuple[bytes, int, int]]:
    """(line, offset, number) of each complete non-blank line."""
    out: list[tuple[bytes, int, int]] = []
    offset = 0
    for number, line in enumerate(data.split(b"\n")[:-1], start=1):
        if line.strip():
            out.append((line, offset, number))
        offset += len(line) + 1
    return out


# ------------------------------------------------------------------ decode_entries
def _decoded(value: Any) -> Any:
    if isinstance(value, HeaderLine):
        return ("header", value.value, value.offset, value.length, value.line)
    return value  # (a msgspec struct: compared field by field)


def _one_by_one(line: bytes, offset: int, number: int) -> Any:
    try:
        return _decoded(decode_entry_at(line, offset, number))
    except LineDecodeError as e:
        return ("problem", str(e))


def test_the_corpus_has_lines_for_every_path() -> None:
    assert len(FILES) >= 50
    lenient = fast = 0
    for param in VARIANTS:
        for line, offset, number in _complete_lines(param.values[0]):
            try:
                decode_entries([line], offset, number)
                fast += 1
            except (ValueError, RecursionError):
                lenient += 1
    assert fast > 1000 and lenient > 300, (fast, lenient)


@pytest.mark.parametrize("data", VARIANTS)
def test_decode_entries_gives_what_decode_entry_at_gives(data: bytes) -> None:
    lines = _complete_lines(data)
    general = [_one_by_one(*place) for place in lines]
    # The batch path over runs of lines: the whole file when it can, else the runs between
    # the lines it refuses (each of those must be one the lenient path reads or reports).
    fast: list[Any] = []
    run: list[tuple[bytes, int, int]] = []

    def flush() -> None:
        if run:
            fast.extend(map(_decoded, decode_entries([r[0] for r in run], run[0][1], run[0][2])))
            run.clear()

    for place in lines:
        try:
            decode_entries([place[0]], place[1], place[2])
        except (ValueError, RecursionError):
            flush()
            fast.append(_one_by_one(*place))
            continue
        if run and run[-1][2] + 1 != place[2]:  # (a blank line between: a run is contiguous)
            flush()
        run.append(place)
    flush()
    assert len(fast) == len(general)
    for (_, _, number), a, b in zip(lines, fast, general, strict=True):
        assert a == b, f"line {number}"


# ------------------------------------------------------------------ Session
def _session_state(session: Session) -> dict[str, Any]:
    tree = session.tree
    records = [
        (
            r.index,
            r.parsed_index,
            r.id,
            r.parentId,
            r.type,
            r.offset,
            r.length,
            r.line,
            session.timestamp_of(r),
            r.tokens,
            r.cost,
            r.reported,
            r.content_kind,
            r.content_size,
            r.message,
        )
        for r in session.records
    ]
    return {
        "header": session.header,
        "header_line": session.header_line,
        "records": records,
        "by_id": {k: v.index for k, v in session.by_id.items()},
        "children": tree.children_lists(),
        "preorder": session.preorder(),
        "default_leaf": session.default_leaf,
        "labels": session.labels,
        "label_timestamps": session.label_timestamps,
        "edit_counts": session.edit_counts,
        "name": session.name,
        "totals": (session.totals.tokens, session.totals.cost),
        "type_counts": session.type_counts,
        "system_prompt_entries": session.system_prompt_entries,
        "parsed_count": session.parsed_count,
        "end": (session.end_offset, session.end_line, session.pending_bytes),
        "migrated": session.migrated,
        "problems": sorted((p.line or 0, str(p.kind), p.message) for p in session.problems),
    }


def _grown_line_by_line(data: bytes, path: Path) -> Session:
    """The file written a line at a time, the session refreshed after each."""
    pieces = data.split(b"\n")
    path.write_bytes(pieces[0] + b"\n")
    session = Session.open(path)
    with path.open("ab") as f:
        for i, piece in enumerate(pieces[1:], start=1):
            f.write(piece + (b"\n" if i < len(pieces) - 1 else b""))
            f.flush()
            session.refresh()
    return session


@pytest.mark.parametrize("data", VARIANTS)
def test_a_session_read_at_once_is_the_one_grown_line_by_line(data: bytes, tmp_path: Path) -> None:
    whole = Session.from_bytes(data)
    grown = _grown_line_by_line(data, tmp_path / "s.jsonl")
    a, b = _session_state(whole), _session_state(grown)
    for key in a:
        assert a[key] == b[key], key
    # Totals along the default path (the status bar's) agree too.
    if whole.default_leaf is not None:
        path_a, path_b = whole.path_to(whole.default_leaf), grown.path_to(whole.default_leaf)
        assert [r.id for r in path_a] == [r.id for r in path_b]
        ta, tb = whole.totals_along(path_a), grown.totals_along(path_b)
        assert (ta.tokens, ta.cost) == (tb.tokens, tb.cost)


# ------------------------------------------------------------------ SummaryBuilder
def _summary_state(builder: SummaryBuilder) -> tuple[dict[str, Any], dict[str, Any]]:
    state = msgspec.structs.asdict(builder)
    summary = builder.summary("s.jsonl", builder.offset, 0, 0).to_json()
    return state, summary


def _builder(keep_texts: bool) -> SummaryBuilder:
    return SummaryBuilder(texts=[] if keep_texts else None)


def _fed_at_once(data: bytes, keep_texts: bool) -> SummaryBuilder | str:
    builder = _builder(keep_texts)
    try:
        builder.feed_bytes(data)
    except NotASession as e:
        return str(e)
    return builder


def _fed_line_by_line(data: bytes, keep_texts: bool) -> SummaryBuilder | str:
    builder = _builder(keep_texts)
    pieces = data.split(b"\n")
    try:
        for i, piece in enumerate(pieces):
            last = i == len(pieces) - 1
            builder.feed_bytes(piece if last else piece + b"\n", final=last)
    except NotASession as e:
        return str(e)
    return builder


def _fed_slowly(data: bytes, keep_texts: bool, monkeypatch: pytest.MonkeyPatch) -> SummaryBuilder | str:
    """The whole file through the general path (`read_lines`, then one value at a time)."""
    with monkeypatch.context() as m:
        m.setattr(SummaryBuilder, "_feed_fast", lambda self, data, start, stop: False)
        return _fed_at_once(data, keep_texts)


def _comparable(built: SummaryBuilder | str) -> Any:
    return built if isinstance(built, str) else _summary_state(built)


@pytest.mark.parametrize("keep_texts", [False, True], ids=["list", "search"])
@pytest.mark.parametrize("data", VARIANTS)
def test_a_summary_of_a_whole_file_is_the_one_fed_line_by_line(
    data: bytes, keep_texts: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    at_once = _comparable(_fed_at_once(data, keep_texts))
    assert _comparable(_fed_line_by_line(data, keep_texts)) == at_once
    assert _comparable(_fed_slowly(data, keep_texts, monkeypatch)) == at_once


def test_the_summaries_compared_are_not_empty() -> None:
    """(The agreement above would hold for builders that read nothing.)"""
    data = FILES[0].read_bytes()
    built = _fed_at_once(data, keep_texts=True)
    assert isinstance(built, SummaryBuilder)
    lines = [json.loads(line) for line in data.splitlines() if line.strip()]
    assert built.entry_count == len(lines) - 1
    assert built.texts
