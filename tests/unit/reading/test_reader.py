"""Reading rules on small hand-made files: nothing here may crash, hang or lose data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pi_sessions.core.common.jsvalues import date_ms, iso_from_ms, js_string
from pi_sessions.core.common.problems import ProblemKind, SessionError, UnknownEntryError
from pi_sessions.core.projection.context import project
from pi_sessions.core.reading.lines import CHUNK_SIZE, BytesSource, read_lines
from pi_sessions.core.reading.records import decode_record
from pi_sessions.core.session.session import Session

from tests.helpers.checks import known
from tests.helpers.sessions import assistant, chain, entry, header, jsonl, ts, user, write


def kinds(session: Session) -> list[ProblemKind]:
    return [p.kind for p in session.problems]


def test_malformed_lines_are_skipped_and_reported_with_their_line(tmp_path: Path) -> None:
    data = (
        jsonl(header(), user("a", None, "hi"))
        + b'{"type": "message", broken\n'
        + jsonl(assistant("b", "a", "yo"))
    )
    session = Session.open(write_raw(tmp_path / "s.jsonl", data))
    assert session.entry_ids() == ["a", "b"]
    [problem] = session.problems
    assert problem.kind is ProblemKind.MALFORMED_LINE and problem.line == 3


def write_raw(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_crlf_and_blank_lines(tmp_path: Path) -> None:
    data = jsonl(header(), user("a", None, "hi"), assistant("b", "a", "yo")).replace(b"\n", b"\r\n\r\n")
    session = Session.open(write_raw(tmp_path / "s.jsonl", data))
    assert session.entry_ids() == ["a", "b"]
    assert session.problems == []
    assert [r.line for r in session.records] == [3, 5]


def test_blank_lines_at_the_end_are_read_once_and_counted(tmp_path: Path) -> None:
    path = write_raw(tmp_path / "s.jsonl", jsonl(header(), user("a", None, "hi")) + b"\n\r\n")
    session = Session.open(path)
    assert session.end_offset == path.stat().st_size and session.end_line == 5
    with open(path, "ab") as f:
        f.write(jsonl(assistant("b", "a", "yo")))
    change = session.refresh()
    assert [(r.id, r.line) for r in change.new_records] == [("b", 5)]  # its physical line
    assert [r.line for r in Session.open(path).records] == [2, 5]


def test_partial_last_line_is_held_back_until_its_newline(tmp_path: Path) -> None:
    full = jsonl(header(), user("a", None, "hi"))
    tail = json.dumps(assistant("b", "a", "yo")).encode()
    path = write_raw(tmp_path / "s.jsonl", full + tail[:40])
    session = Session.open(path)
    assert session.entry_ids() == ["a"]
    assert kinds(session) == [ProblemKind.PARTIAL_LAST_LINE]
    assert session.end_offset == len(full)
    with open(path, "ab") as f:
        f.write(tail[40:] + b"\n")
    change = session.refresh()
    assert not change.reloaded
    assert [r.id for r in change.new_records] == ["b"]
    assert session.entry_ids() == ["a", "b"] and session.problems == []


def test_complete_last_line_without_newline_is_read_like_pi(tmp_path: Path) -> None:
    data = jsonl(header(), user("a", None, "hi")) + json.dumps(assistant("b", "a", "yo")).encode()
    path = write_raw(tmp_path / "s.jsonl", data)
    session = Session.open(path)
    assert session.entry_ids() == ["a", "b"]
    assert path.read_bytes() == data  # pi would append the newline; we never write


def test_invalid_utf8_survives_as_replacement_characters(tmp_path: Path) -> None:
    line = (
        json.dumps(user("a", None, "caf\u00e9 ok"), ensure_ascii=False)
        .encode()
        .replace("\u00e9".encode(), b"\xff\xfe")
    )
    session = Session.open(write_raw(tmp_path / "s.jsonl", jsonl(header()) + line + b"\n"))
    assert session.entry_ids() == ["a"]
    text = session.entry_dict(session.get("a"))["message"]["content"]
    assert text == "caf\ufffd\ufffd ok"


def test_lone_surrogates_and_huge_numbers_are_read(tmp_path: Path) -> None:
    line = b'{"type":"message","id":"a","parentId":null,"timestamp":"x","message":{"role":"user","content":"\\ud800 x","n":1e400}}'
    session = Session.open(write_raw(tmp_path / "s.jsonl", jsonl(header()) + line + b"\n"))
    assert session.entry_ids() == ["a"]
    assert session.entry_dict(session.get("a"))["message"]["content"] == "\ud800 x"


def test_no_header_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", user("a", None, "hi"))
    with pytest.raises(SessionError, match="not a pi session"):
        Session.open(path)


def test_header_after_a_non_session_line_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", user("a", None, "hi"), header())
    with pytest.raises(SessionError, match="first entry"):
        Session.open(path)


def test_malformed_line_before_the_header_is_skipped_like_pi(tmp_path: Path) -> None:
    path = write_raw(tmp_path / "s.jsonl", b"garbage\n" + jsonl(header(), user("a", None, "hi")))
    session = Session.open(path)
    assert session.entry_ids() == ["a"]
    assert session.header_line == 2


def test_non_json_file_is_refused(tmp_path: Path) -> None:
    path = write_raw(tmp_path / "notes.jsonl", b"hello\nworld\n")
    with pytest.raises(SessionError, match="no line"):
        Session.open(path)


def test_empty_file_is_an_empty_session_and_stays_empty_on_disk(tmp_path: Path) -> None:
    path = write_raw(tmp_path / "s.jsonl", b"")
    session = Session.open(path)
    assert session.is_empty and session.entry_ids() == [] and session.default_leaf is None
    assert path.read_bytes() == b""
    path.write_bytes(jsonl(header(), user("a", None, "hi")))
    change = session.refresh()
    assert change.header_appeared and session.entry_ids() == ["a"]


def test_header_only_file(tmp_path: Path) -> None:
    session = Session.open(write(tmp_path / "s.jsonl", header()))
    assert session.header is not None and session.session_id == header()["id"]
    assert session.entry_ids() == [] and session.default_leaf is None and session.roots == []


def test_missing_file_and_folder_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(SessionError, match="no such file"):
        Session.open(tmp_path / "nope.jsonl")
    with pytest.raises(SessionError, match="folder"):
        Session.open(tmp_path)


def test_unknown_entry_types_and_extra_fields_are_kept(tmp_path: Path) -> None:
    odd = entry("future_thing", "b", "a", 1, payload={"x": [1, 2]}, extra="kept")
    session = Session.open(
        write(tmp_path / "s.jsonl", header(), user("a", None, "hi"), odd, assistant("c", "b", "ok", 2))
    )
    assert session.entry_ids() == ["a", "b", "c"]
    assert session.entry_dict(session.get("b"))["payload"] == {"x": [1, 2]}
    projection = project(session, "c")
    assert [r.id for r in projection.context] == ["a", "b", "c"]
    assert projection.counts == [1, 0, 1]


def test_content_null_becomes_empty_content_like_pi(tmp_path: Path) -> None:
    bad_user = entry("message", "a", None, 0, message={"role": "user", "content": None})
    bad_system = entry("message", "b", "a", 1, message={"role": "system"})
    session = Session.open(write(tmp_path / "s.jsonl", header(), bad_user, bad_system))
    messages = project(session, "b").messages(session)
    assert messages == [{"role": "user", "content": []}, {"role": "system", "content": ""}]


def test_message_entry_without_message_is_reported_not_fatal(tmp_path: Path) -> None:
    session = Session.open(
        write(tmp_path / "s.jsonl", header(), entry("message", "a", None, 0, message=None))
    )
    assert ProblemKind.BAD_MESSAGE in kinds(session)
    assert project(session, "a").messages(session) == []


def test_parent_cycle_is_detected_and_broken(tmp_path: Path) -> None:
    session = Session.open(
        write(
            tmp_path / "s.jsonl",
            header(),
            user("r", None, "root"),
            entry("message", "a", "b", 1, message={"role": "user", "content": "a"}),
            entry("message", "b", "a", 2, message={"role": "user", "content": "b"}),
        )
    )
    assert ProblemKind.PARENT_CYCLE in kinds(session)
    assert session.roots == ["r", "a"]  # the cycle's first entry in file order becomes a root
    assert list(session.children_of("a")) == ["b"]
    assert sorted(session.preorder()) == ["a", "b", "r"]
    assert [r.id for r in session.path_to("b")] == ["a", "b"]
    assert [r.id for r in session.path_to("a")] == ["a"]


def test_children_kept_through_forks_cuts_and_appends_read_as_a_fresh_read_does(tmp_path: Path) -> None:
    def message(entry_id: str, parent: str | None, n: int) -> dict:
        return entry("message", entry_id, parent, n, message={"role": "user", "content": entry_id})

    lines = [
        user("r", None, "root", 0),
        message("a", "r", 5),
        message("x", "y", 1),  # a cycle: cut at x (a parent's only child goes)
        message("y", "x", 2),
        message("b", "a", 6),
        message("c", "r", 3),  # r forks, its children sorted by time: c before a
        message("o", "gone", 4),  # an orphan root
        message("z", "x", 7),
    ]
    appended = [message("d", "b", 8), message("e", "r", 9), message("f", "y", 10), message("g", "o", 11)]
    path = write(tmp_path / "s.jsonl", header(), *lines)
    session = Session.open(path)
    for line in appended:  # one at a time: each taken in by the tree without a build
        with open(path, "ab") as f:
            f.write(jsonl(line))
        assert not session.refresh().tree_rebuilt
    fresh = Session.open(path)
    for read in (session, fresh):
        children = {"r": ["c", "a", "e"], "y": ["f"], "x": ["y", "z"], "a": ["b"], "b": ["d"], "o": ["g"]}
        assert read.children_lists() == children
        assert list(read.children_lists()) == ["r", "y", "x", "a", "b", "o"]  # by each's first child
        assert read.preorder() == ["r", "c", "a", "b", "d", "e", "x", "y", "f", "z", "o", "g"]
        assert read.count_below(["r"]) == 6 and read.child_count("y") == 1 and read.child_count("f") == 0
    assert session.roots == fresh.roots == ["r", "x", "o"]


def test_self_parent_is_a_root(tmp_path: Path) -> None:
    session = Session.open(
        write(
            tmp_path / "s.jsonl",
            header(),
            entry("message", "a", "a", 0, message={"role": "user", "content": "x"}),
        )
    )
    assert session.roots == ["a"]
    assert ProblemKind.SELF_PARENT in kinds(session)
    assert [r.id for r in session.path_to("a")] == ["a"]


def test_dangling_parent_makes_an_orphan_root(tmp_path: Path) -> None:
    session = Session.open(
        write(tmp_path / "s.jsonl", header(), user("a", None, "x"), user("b", "gone", "y", 1))
    )
    assert session.roots == ["a", "b"]
    assert ProblemKind.MISSING_PARENT in kinds(session)
    assert [r.id for r in session.path_to("b")] == ["b"]


def test_duplicate_ids_later_entry_wins(tmp_path: Path) -> None:
    session = Session.open(
        write(
            tmp_path / "s.jsonl",
            header(),
            user("a", None, "first"),
            user("a", None, "second", 1),
            assistant("b", "a", "x", 2),
        )
    )
    assert session.entry_ids() == ["a", "a", "b"]
    assert session.entry_dict(session.get("a"))["message"]["content"] == "second"
    assert session.roots == ["a"] and session.preorder() == ["a", "b"]
    assert ProblemKind.DUPLICATE_ID in kinds(session)


def test_unknown_leaf_is_an_error(tmp_path: Path) -> None:
    session = Session.open(write(tmp_path / "s.jsonl", header(), user("a", None, "x")))
    with pytest.raises(UnknownEntryError):
        project(session, "nope")


def test_default_leaf_is_the_last_entry_whatever_its_type(tmp_path: Path) -> None:
    session = Session.open(
        write(
            tmp_path / "s.jsonl",
            header(),
            user("a", None, "x"),
            assistant("b", "a", "y", 1),
            entry("label", "c", "b", 2, targetId="a", label="start"),
        )
    )
    assert session.default_leaf == "c"


def test_children_sorted_by_timestamp_stable_roots_in_file_order(tmp_path: Path) -> None:
    session = Session.open(
        write(
            tmp_path / "s.jsonl",
            header(),
            user("r2", None, "second root", 50),
            user("r1", None, "first root", 0),
            assistant("late", "r1", "x", 30),
            assistant("early", "r1", "y", 10),
            assistant("tie1", "r1", "z", 20),
            assistant("tie2", "r1", "w", 20),
        )
    )
    assert session.roots == ["r2", "r1"]
    assert list(session.children_of("r1")) == ["early", "tie1", "tie2", "late"]


def test_labels_resolve_globally_in_file_order(tmp_path: Path) -> None:
    session = Session.open(
        write(
            tmp_path / "s.jsonl",
            header(),
            user("a", None, "x"),
            entry("label", "l1", "a", 1, targetId="a", label="start"),
            entry("label", "l2", "l1", 2, targetId="a", label="renamed"),
            assistant("b", "a", "other branch", 3),
            entry("label", "l3", "b", 4, targetId="b", label="b-label"),
            entry("label", "l4", "l3", 5, targetId="b", label=""),
            entry("label", "l5", "l4", 6, targetId="a"),
            entry("label", "l6", "l5", 7, targetId="l2", label="on a label"),
        )
    )
    assert session.labels == {"l2": "on a label"}
    assert session.label_timestamps == {"l2": ts(7)}


def test_session_name_latest_in_file_order_trimmed_and_clearable(tmp_path: Path) -> None:
    rows = [header(), user("a", None, "x"), entry("session_info", "n1", "a", 1, name="  first\n")]
    session = Session.open(write(tmp_path / "s.jsonl", *rows))
    assert session.name == "first"
    session = Session.open(
        write(tmp_path / "t.jsonl", *rows, entry("session_info", "n2", "n1", 2, name="   "))
    )
    assert session.name is None


def test_hundred_thousand_entry_chain(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", header(), *chain(100_000))
    session = Session.open(path)
    assert len(session.records) == 100_000
    assert session.default_leaf == "e99999"
    assert len(session.path_to("e99999")) == 100_000
    assert len(session.preorder()) == 100_000
    projection = project(session, "e99999")
    assert projection.message_count == 100_000


def test_ten_thousand_children_of_one_entry(tmp_path: Path) -> None:
    kids = [assistant(f"k{i}", "root", f"reply {i}", (10_000 - i) % 3600) for i in range(10_000)]
    session = Session.open(write(tmp_path / "s.jsonl", header(), user("root", None, "q"), *kids))
    order = list(session.children_of("root"))
    assert len(order) == 10_000
    stamps = [known(session.ts_ms(session.get(k))) for k in order]
    assert stamps == sorted(stamps)
    assert len(session.preorder()) == 10_001


def test_fifty_megabyte_line(tmp_path: Path) -> None:
    big_output = "x" * (50 * 1024 * 1024)
    tool = entry(
        "message",
        "t",
        "a",
        1,
        message={"role": "toolResult", "toolName": "bash", "content": [{"type": "text", "text": big_output}]},
    )
    done = assistant("b", "t", "done", 2)
    path = write(tmp_path / "s.jsonl", header(), user("a", None, "run"), tool, done)
    session = Session.open(path)
    assert session.entry_ids() == ["a", "t", "b"]
    assert session.get("t").content_size > 50 * 1024 * 1024
    assert project(session, "b").counts == [1, 1, 1]
    assert session.entry_dict(session.get("t"))["message"]["content"][0]["text"] == big_output
    assert session.entry_dict(session.get("b")) == done


AT_BOUNDARY = assistant("b", "t", "the reply right at the boundary", 2)
AFTER_IT = user("c", "b", "and one more", 3)
B_LENGTH = len(jsonl(AT_BOUNDARY)) - 1  # without its newline
# Where the reader's chunk boundary falls, as bytes of b's line before it.
BOUNDARY_IN_B = {
    "after-its-first-byte": 1,
    "in-its-middle": B_LENGTH // 2,
    "before-its-newline": B_LENGTH,
    "after-its-newline": B_LENGTH + 1,
    "at-its-start": 0,
    "before-the-newline-ahead-of-it": -1,
}


def _around_a_chunk_boundary(ahead: int, into: int) -> tuple[bytes, list[dict]]:
    """A big tool output, then b and c, laid out so that b's line starts `into` bytes before
    the reader's first chunk boundary, for a reader that meets `ahead` bytes before them."""
    tool = entry(
        "message",
        "t",
        "a",
        1,
        message={"role": "toolResult", "toolName": "bash", "content": [{"type": "text", "text": ""}]},
    )
    padding = CHUNK_SIZE - ahead - into - len(jsonl(tool))
    tool["message"]["content"][0]["text"] = "o" * padding
    return jsonl(tool, AT_BOUNDARY, AFTER_IT), [tool, AT_BOUNDARY, AFTER_IT]


@pytest.mark.parametrize("into", BOUNDARY_IN_B.values(), ids=BOUNDARY_IN_B.keys())
def test_lines_across_the_reader_chunk_boundary_read_back_whole(tmp_path: Path, into: int) -> None:
    start = jsonl(header(), user("a", None, "run"))
    body, rows = _around_a_chunk_boundary(len(start), into)
    path = tmp_path / "s.jsonl"
    path.write_bytes(start + body)
    assert (start + body).index(json.dumps(AT_BOUNDARY).encode()) == CHUNK_SIZE - into  # as meant
    session = Session.open(path)
    assert session.entry_ids() == ["a", "t", "b", "c"] and session.problems == []
    assert [r.line for r in session.records] == [2, 3, 4, 5]
    for record, following in zip(session.records, session.records[1:], strict=False):
        assert following.offset == record.offset + record.length + 1  # each line, without its newline
    for record, want in zip(session.records[1:], rows, strict=True):
        assert session.entry_dict(record) == want
    assert project(session, "c").messages(session)[-2:] == [AT_BOUNDARY["message"], AFTER_IT["message"]]


@pytest.mark.parametrize(
    "into", [1, B_LENGTH, 0], ids=["after-its-first-byte", "before-its-newline", "at-its-start"]
)
def test_appended_lines_across_the_chunk_boundary_read_back_whole(tmp_path: Path, into: int) -> None:
    start = jsonl(header(), user("a", None, "run"))
    path = tmp_path / "s.jsonl"
    path.write_bytes(start)
    session = Session.open(path)
    body, rows = _around_a_chunk_boundary(0, into)  # a refresh reads from where it stopped
    assert body.index(json.dumps(AT_BOUNDARY).encode()) == CHUNK_SIZE - into
    with open(path, "ab") as f:
        f.write(body)
    change = session.refresh()
    assert [r.id for r in change.new_records] == ["t", "b", "c"] and not change.reloaded
    assert [r.line for r in session.records] == [2, 3, 4, 5]
    for record, want in zip(session.records[1:], rows, strict=True):
        assert session.entry_dict(record) == want
    assert session.end_offset == path.stat().st_size


def test_read_lines_reports_offsets_and_resumes_mid_file() -> None:
    data = jsonl(header(), user("a", None, "x"), user("b", "a", "y"))
    source = BytesSource(data)
    first = read_lines(source, decode_record, end=data.index(b"\n") + 1)
    assert [line.number for line in first.lines] == [1]
    rest = read_lines(source, decode_record, first.end_offset, first.end_line)
    assert [line.number for line in rest.lines] == [2, 3]
    assert rest.lines[0].offset == first.end_offset


# What node 22 prints for these (String(x) and new Date(x).toISOString()).
JS_NUMBER_STRINGS = [
    (1e-7, "1e-7"),
    (0.000001, "0.000001"),
    (0.000001234, "0.000001234"),
    (1.5e-7, "1.5e-7"),
    (123.456, "123.456"),
    (1e21, "1e+21"),
    (1e20, "100000000000000000000"),
    (-2.5, "-2.5"),
    (5e-324, "5e-324"),
    (1.7976931348623157e308, "1.7976931348623157e+308"),
    (-0.0, "0"),
    (9007199254740994.0, "9007199254740994"),
]
JS_ISO_DATES = [
    (-1.0, "1969-12-31T23:59:59.999Z"),
    (-1.5, "1969-12-31T23:59:59.999Z"),
    (-58348765921971.0, "0121-01-01T01:27:58.029Z"),
    (-62135596800001.0, "0000-12-31T23:59:59.999Z"),
    (-3650871963073691.0, "-113722-06-22T11:08:46.309Z"),
    (253402300800000.0, "+010000-01-01T00:00:00.000Z"),
    (-8.64e15, "-271821-04-20T00:00:00.000Z"),
    (-11670912000000.0, "1600-03-01T00:00:00.000Z"),
    (253402300799999.0, "9999-12-31T23:59:59.999Z"),
    (0.0, "1970-01-01T00:00:00.000Z"),
]


# What node 22 gives for new Date(x).getTime() (None: NaN). V8 takes any day up to 31 in any
# month and rolls over; a date alone is UTC, a date-time without an offset is local time.
JS_PARSED_DATES = [
    ("2023-02-29T00:00:00Z", 1677628800000),
    ("2023-02-30T00:00:00Z", 1677715200000),
    ("2023-02-31T00:00:00Z", 1677801600000),
    ("2023-02-32T00:00:00Z", None),
    ("2023-02-00T00:00:00Z", None),
    ("2023-13-01T00:00:00Z", None),
    ("2023-04-31", 1682899200000),
    ("2024-02-30T24:00:00Z", 1709337600000),
    ("2023-01-01T24:00:00Z", 1672617600000),
    ("2023-01-01T24:00:00.001Z", None),
    ("2023-01-01T10:60:00Z", None),
    ("2023-04-31T12:00:00+01:00", 1682938800000),
    ("2025-03-01T10:00:00+02:00", 1740816000000),
    ("2025-03-01T10:00:00-05:30", 1740843000000),
    ("-000001-01-01T00:00:00Z", -62198755200000),
    ("-000001-02-30T00:00:00Z", -62193571200000),
    ("-000004-02-29T00:00:00Z", -62288352000000),
    ("+010000-02-30T00:00:00Z", 253407484800000),
]
# ... and with TZ=America/New_York:
JS_LOCAL_DATES = [
    ("2025-03-01T10:00:00", 1740841200000),  # EST
    ("2025-07-01T10:00:00", 1751378400000),  # EDT
    ("2025-03-01T10:00", 1740841200000),
    ("2025-03-01", 1740787200000),  # a date alone is UTC
    ("1900-01-01T00:00:00", -2208970800000),
    ("0001-01-01T00:00:00", -62135579038000),  # local mean time: -4:56:02
    ("+200000-01-01T00:00:00", 6249223198800000),
    ("-100000-01-01T00:00:00", -3217862401438000),
]
# String(x) in node 22 (null and undefined give "", as Array.prototype.join writes them)
JS_STRINGS = [
    (False, "false"),
    (True, "true"),
    ({"a": 1}, "[object Object]"),
    ([1, [2, 3], None], "1,2,3,"),
    ([], ""),
    ([None, {}], ",[object Object]"),
    (1e21, "1e+21"),
]


@pytest.mark.parametrize(("text", "ms"), JS_PARSED_DATES)
def test_dates_are_read_as_javascript_reads_them(text: str, ms: int | None) -> None:
    assert date_ms(text) == ms


def test_dates_without_an_offset_are_local_time_as_in_javascript(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        assert [date_ms(text) for text, _ in JS_LOCAL_DATES] == [ms for _, ms in JS_LOCAL_DATES]
    finally:
        monkeypatch.undo()
        time.tzset()


@pytest.mark.parametrize(("value", "text"), JS_STRINGS)
def test_values_are_written_as_javascript_writes_them(value: object, text: str) -> None:
    assert js_string(value) == text


@pytest.mark.parametrize(("number", "text"), JS_NUMBER_STRINGS)
def test_numbers_are_written_as_javascript_writes_them(number: float, text: str) -> None:
    assert js_string(number) == text


@pytest.mark.parametrize(("ms", "text"), JS_ISO_DATES)
def test_dates_are_written_as_javascript_writes_them(ms: float, text: str) -> None:
    assert iso_from_ms(ms) == text


def test_pi_own_date_form_is_read_and_written_as_the_general_way_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """pi's own form (toISOString's) is read, and dates from 1970 to 9999 written, the quick
    way: every figure, also an impossible one (a 30th of February, hour 24), as the general
    way (checked against JavaScript above) gives it."""
    import random
    import re

    from pi_sessions.core.common import jsvalues

    rng = random.Random(14)
    texts = ["2024-02-29T23:59:59.999Z", "1970-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z"]
    texts += [
        "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}.{:03d}Z".format(
            *(rng.randrange(0, top) for top in (10000, 14, 33, 26, 61, 61, 1000))
        )
        for _ in range(3000)
    ]
    times = [0, 253402300799999, *(rng.randrange(0, 253402300800000) for _ in range(3000))]
    quick = [date_ms(t) for t in texts], [iso_from_ms(t) for t in times]
    monkeypatch.setattr(jsvalues, "_PI_ISO_RE", re.compile("(?!)"))  # (never matches)
    monkeypatch.setattr(jsvalues, "_YEAR_10000_MS", 0)
    assert quick == ([date_ms(t) for t in texts], [iso_from_ms(t) for t in times])


def test_timestamps_kept_apart_read_back_exactly_and_sort_siblings(tmp_path: Path) -> None:
    # pi's own form is kept in the session's column, any other stays on the record: both
    # read back as written, and siblings sort by them alike, on open and when appended.
    def line(entry_id: str, parent: str | None, stamp: object) -> str:
        message = {"role": "user", "content": entry_id}
        return json.dumps(
            {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp, "message": message},
            ensure_ascii=False,
        )

    stamps = {
        "root": "2025-03-01T10:00:00.000Z",
        "d": "2025-03-01T10:00:04.000Z",
        "b": "2025-03-01T10:00:02Z",  # shorter, still a date
        "c": "2025-03-01T10:00:03.000+00:00",
        "a": 1740823201000,  # a number: milliseconds
        "é": "2025-03-01T10:00:00.5\u00e9\u00e9\u00e9Z",  # 24 characters, not a date
    }
    parents = {"root": None, "é": "d"}
    lines = [json.dumps(header())] + [line(k, parents.get(k, "root"), v) for k, v in stamps.items()]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines[:4]) + "\n", encoding="utf-8")
    session = Session.open(path)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    session.refresh()
    fresh = Session.open(path)
    for s in (session, fresh):
        assert [s.timestamp_of(s.get(k)) for k in stamps] == list(stamps.values())
        assert [s.entry_dict(s.get(k))["timestamp"] for k in stamps] == list(stamps.values())
    assert list(fresh.children_of("root")) == ["a", "b", "c", "d"]
    assert list(session.children_of("root")) == list(fresh.children_of("root"))
