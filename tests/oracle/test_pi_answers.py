"""Hand-made cases the corpus does not hold, with the answers pi 1.6.0 gave for them.

Each expected value here was checked against pi 1.6.0 itself (SessionManager.open +
createBranchedSession, buildSessionContext from dist/core/session-manager.js, run with
Node 22 on the same lines), not worked out by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pi_sessions.core.projection.context import project
from pi_sessions.core.session.session import Session
from pi_sessions.core.writing.fork import plan_fork, write_fork

from tests.helpers.checks import known
from tests.helpers.sessions import assistant, entry, header, user, write


def compaction(entry_id: str, parent: str, n: int, kept: str) -> dict[str, Any]:
    return entry("compaction", entry_id, parent, n, summary="S", firstKeptEntryId=kept, tokensBefore=100)


def label(entry_id: str, parent: str, n: int, target: str, text: str) -> dict[str, Any]:
    return entry("label", entry_id, parent, n, targetId=target, label=text)


# name: (the path, the leaf, the fork pi wrote: (type, id, parentId, firstKeptEntryId) per
# entry, then the re-created labels as (targetId, label))
FORKS_OF_A_COMPACTION_KEEPING_FROM_A_LABEL = {
    # the kept label is dropped: the compaction keeps from the entry after it
    "kept-label": (
        [
            user("u1", None, "one", 1),
            assistant("a1", "u1", "two", 2),
            label("l1", "a1", 3, "u1", "start"),
            user("u2", "l1", "three", 4),
            compaction("c", "u2", 5, "l1"),
            user("u3", "c", "four", 6),
        ],
        "u3",
        [
            ("message", "u1", None, None),
            ("message", "a1", "u1", None),
            ("message", "u2", "a1", None),
            ("compaction", "c", "u2", "u2"),
            ("message", "u3", "c", None),
        ],
        [("u1", "start")],
    ),
    # two labels in a row: both stand for the next entry that is kept
    "kept-label-run": (
        [
            user("u1", None, "one", 1),
            label("l1", "u1", 2, "u1", "x"),
            label("l2", "l1", 3, "u1", "y"),
            assistant("a1", "l2", "two", 4),
            compaction("c", "a1", 5, "l1"),
            user("u2", "c", "three", 6),
        ],
        "u2",
        [
            ("message", "u1", None, None),
            ("message", "a1", "u1", None),
            ("compaction", "c", "a1", "a1"),
            ("message", "u2", "c", None),
        ],
        [("u1", "y")],
    ),
    # the label right before the compaction: the next kept entry is the compaction itself
    "kept-label-before-the-compaction": (
        [
            user("u1", None, "one", 1),
            assistant("a1", "u1", "two", 2),
            label("l1", "a1", 3, "a1", "x"),
            compaction("c", "l1", 4, "l1"),
            user("u2", "c", "three", 5),
        ],
        "u2",
        [
            ("message", "u1", None, None),
            ("message", "a1", "u1", None),
            ("compaction", "c", "a1", "c"),
            ("message", "u2", "c", None),
        ],
        [("a1", "x")],
    ),
    # a label on another branch is not on the path: the id is kept as it is
    "kept-label-on-another-branch": (
        [
            user("u1", None, "one", 1),
            assistant("a1", "u1", "two", 2),
            label("lx", "u1", 3, "u1", "x"),
            user("u2", "a1", "three", 4),
            compaction("c", "u2", 5, "lx"),
            user("u3", "c", "four", 6),
        ],
        "u3",
        [
            ("message", "u1", None, None),
            ("message", "a1", "u1", None),
            ("message", "u2", "a1", None),
            ("compaction", "c", "u2", "lx"),
            ("message", "u3", "c", None),
        ],
        [("u1", "x")],
    ),
}


@pytest.mark.parametrize(
    "case",
    FORKS_OF_A_COMPACTION_KEEPING_FROM_A_LABEL.values(),
    ids=FORKS_OF_A_COMPACTION_KEEPING_FROM_A_LABEL,
)
def test_fork_remaps_a_compaction_that_keeps_from_a_dropped_label(tmp_path: Path, case: tuple) -> None:
    rows, leaf, pi_entries, pi_labels = case
    source = Session.open(write(tmp_path / "src.jsonl", header(), *rows))
    plan = plan_fork(source, leaf, folder=str(tmp_path / "out"))
    entries = [line for line in plan.lines[1:] if line["type"] != "label"]
    assert [(e["type"], e["id"], e["parentId"], e.get("firstKeptEntryId")) for e in entries] == pi_entries
    labels = plan.lines[1 + len(entries) :]
    assert [(line["targetId"], line["label"]) for line in labels] == pi_labels
    assert [line["parentId"] for line in labels] == [pi_entries[-1][1]]
    # pi: the fork's context at its leaf is the source's, message for message
    forked = Session.open(write_fork(plan))
    assert project(forked, known(forked.default_leaf)).messages(forked) == project(source, leaf).messages(
        source
    )


def test_context_edits_with_a_string_by_role(tmp_path: Path) -> None:
    """A string replacement becomes one text block for a tool result (and an assistant
    reply), and stays a string for a user message and an extension message."""
    call = {"type": "toolCall", "id": "call1", "name": "bash", "arguments": {"command": "ls"}}
    result = {
        "role": "toolResult",
        "toolCallId": "call1",
        "toolName": "bash",
        "content": [{"type": "text", "text": "a very long output"}],
        "isError": False,
        "timestamp": 3,
    }
    session = Session.open(
        write(
            tmp_path / "s.jsonl",
            header(),
            user("u1", None, "q", 1),
            assistant("a1", "u1", "", 2, content=[call], stopReason="toolUse"),
            entry("message", "t1", "a1", 3, message=result),
            entry("custom_message", "m1", "t1", 4, customType="ext", content="original note", display=True),
            entry("context_edit", "e1", "m1", 5, targetId="t1", replacement={"content": "(trimmed)"}),
            entry("context_edit", "e2", "e1", 6, targetId="m1", replacement={"content": "edited note"}),
            entry("context_edit", "e3", "e2", 7, targetId="u1", replacement={"content": "edited question"}),
            user("u2", "e3", "next", 8),
        )
    )
    messages = project(session, "u2").messages(session)
    assert [(m["role"], m["content"]) for m in messages] == [
        ("user", "edited question"),
        ("assistant", [call]),
        ("toolResult", [{"type": "text", "text": "(trimmed)"}]),
        ("custom", "edited note"),
        ("user", "next"),
    ]
    assert messages[2] == {**result, "content": [{"type": "text", "text": "(trimmed)"}]}  # the rest kept


# User and assistant messages (the tool result does not count) whose `message.timestamp` is a
# number (used) or not (the entry's timestamp is used); each line also has a `usage` of a
# shape the listing's fast decoder refuses, so it takes the slow path.
ODD_LINES = [
    header(id="odd", cwd="/home/u/proj"),
    entry("message", "u1", None, 1, message={"role": "user", "content": "first", "timestamp": 1740823201000}),
    entry(
        "message",
        "a1",
        "u1",
        30,
        message={
            "role": "assistant",
            "content": [{"type": "text", "text": "odd"}],
            "usage": "lots",
            "timestamp": 1740823205000,
        },
    ),
    entry(
        "message",
        "t1",
        "a1",
        50,
        message={"role": "toolResult", "content": [], "usage": "x", "timestamp": 1740823250000},
    ),
    entry(
        "message",
        "u2",
        "t1",
        7,
        message={"role": "user", "content": "later", "usage": [1], "timestamp": "soon"},
    ),
    entry(
        "message",
        "u3",
        "u2",
        59,
        message={"role": "user", "content": "stamped", "usage": [2], "timestamp": 1740823203000},
    ),
    # no content: counted as a message, but not as activity
    entry("message", "u4", "u3", 58, message={"role": "user", "usage": [3], "timestamp": 1740823245000}),
]
# pi 1.6.0's SessionManager.list() for these lines:
PI_LISTS_ODD_LINES = {"modified": "2025-03-01T10:00:07.000Z", "messageCount": 6, "firstMessage": "first"}


@pytest.mark.parametrize("odd", [True, False], ids=["slow-path", "fast-path"])
def test_listing_takes_modified_from_message_times_on_either_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], odd: bool
) -> None:
    from pi_sessions.app.cli import main as cli

    rows = json.loads(json.dumps(ODD_LINES))
    if not odd:
        for row in rows[1:]:
            row["message"].pop("usage", None)  # every line plain: the fast path
    write(tmp_path / "sessions" / "--home-u-proj--" / "s.jsonl", *rows)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cli(["list", "--session-dir", str(tmp_path / "sessions"), "--json", "--no-cache"]) == 0
    [listed] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {key: listed[key] for key in PI_LISTS_ODD_LINES} == PI_LISTS_ODD_LINES


def _list(root: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    from pi_sessions.app.cli import main as cli

    assert cli(["list", "--session-dir", str(root), "--json", "--no-cache"]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


HEADER_LINE = json.dumps(header(id="h", cwd="/home/u/proj"))
FIRST = json.dumps(
    entry("message", "u1", None, 1, message={"role": "user", "content": "first", "timestamp": 1740823201000})
)


@pytest.mark.parametrize(
    ("text", "malformed"),
    [
        (f"not json at all\n\n{HEADER_LINE}\n{{broken\n{FIRST}\n", 2),
        (f'null\n0\n""\n{HEADER_LINE}\n{FIRST}\n', 0),  # JSON.parse gives falsy values: skipped
    ],
    ids=["malformed", "falsy"],
)
def test_lines_before_the_header_that_pi_skips(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, malformed: int
) -> None:
    """pi 1.6.0 lists both files: {"messageCount": 1, "firstMessage": "first",
    "modified": "2025-03-01T10:00:01.000Z"}."""
    path = tmp_path / "sessions" / "s.jsonl"
    path.parent.mkdir()
    path.write_text(text)
    [listed] = _list(tmp_path / "sessions", capsys)
    pi = {"id": "h", "messageCount": 1, "firstMessage": "first", "modified": "2025-03-01T10:00:01.000Z"}
    assert {key: listed[key] for key in pi} == pi
    assert listed["problems"] == ([f"{malformed} malformed line(s) skipped"] if malformed else [])


@pytest.mark.parametrize("message", [None, "absent"], ids=["null", "absent"])
def test_a_message_entry_without_a_message_drops_the_session_from_pis_list(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], message: Any
) -> None:
    """pi 1.6.0's list() leaves the file out (reading `.role` of it throws); we list it and
    say why."""
    odd = entry("message", "x", "u1", 2, message=message)
    if message == "absent":
        del odd["message"]
    write(tmp_path / "sessions" / "s.jsonl", header(id="h"), json.loads(FIRST), odd)
    [listed] = _list(tmp_path / "sessions", capsys)
    assert not listed["piListsIt"]
    assert listed["problems"] == [
        "pi leaves this session out of its list: a message entry has no message object"
    ]
    assert (listed["messageCount"], listed["firstMessage"]) == (2, "first")


def _v1(version: Any = "absent", kept_index: Any = "absent") -> list[dict[str, Any]]:
    head = {"type": "session", "id": "legacy", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/old"}
    if version != "absent":
        head["version"] = version
    rows: list[dict[str, Any]] = [
        head,
        {
            "type": "message",
            "timestamp": "2025-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": "a"},
        },
        {
            "type": "message",
            "timestamp": "2025-01-01T00:00:02.000Z",
            "message": {"role": "assistant", "content": "b"},
        },
    ]
    if kept_index != "absent":
        compaction = {"type": "compaction", "summary": "S", "timestamp": "2025-01-01T00:00:03.000Z"}
        rows.append({**compaction, "firstKeptEntryIndex": kept_index})
    return rows


# firstKeptEntryIndex -> (the kept entry, as its position counting the header as 0, or None;
# whether the key stays), from pi 1.6.0's migrateSessionEntries: only numbers are indexes
# (3.0 is 3), and only numbers are deleted.
PI_KEPT_INDEX = {
    "2": (2, 2, False),
    "'2'": ("2", None, True),
    "2.5": (2.5, None, False),
    "3.0": (3.0, 3, False),
    "'x'": ("x", None, True),
    "null": (None, None, True),
    "-1": (-1, None, False),
    "true": (True, None, True),
}


@pytest.mark.parametrize("case", PI_KEPT_INDEX.values(), ids=PI_KEPT_INDEX)
def test_v1_kept_indexes_of_every_shape(tmp_path: Path, case: tuple[Any, int | None, bool]) -> None:
    index, kept, stays = case
    session = Session.open(write(tmp_path / "old.jsonl", *_v1(kept_index=index)))
    ids = session.entry_ids()
    compaction = session.entry_dict(session.records[-1])
    got = compaction.get("firstKeptEntryId")
    assert (None if got is None else ids.index(got) + 1) == kept
    assert ("firstKeptEntryIndex" in compaction) is stays


# header version -> (migrated as v1, the version after reading), from pi 1.6.0: the version
# is compared with numbers as JavaScript compares (`"" < 2`, `true < 2`), NaN never migrates.
PI_VERSIONS = {
    '""': ("", True, 3),
    '" 3 "': (" 3 ", False, " 3 "),
    '"2"': ("2", False, 3),
    '"abc"': ("abc", False, "abc"),
    "null": (None, True, 3),
    '"1"': ("1", True, 3),
    "true": (True, True, 3),
    "false": (False, True, 3),
    "3": (3, False, 3),
}


@pytest.mark.parametrize("case", PI_VERSIONS.values(), ids=PI_VERSIONS)
def test_header_versions_of_every_shape(tmp_path: Path, case: tuple[Any, bool, Any]) -> None:
    version, migrated, after = case
    rows = _v1(version=version)
    for row in rows[1:]:
        row.update(id=f"kept-{row['timestamp'][-6:-5]}", parentId=None)  # ids a v1 migration replaces
    session = Session.open(write(tmp_path / "s.jsonl", *rows))
    assert session.is_v1 is migrated
    assert session.header is not None and session.header["version"] == after


ARRAY_CONTENT = [
    {"type": "image", "data": "x"},
    {"type": "text", "text": "first"},
    {"type": "thinking", "thinking": "no"},
    {"type": "text", "text": "part"},
]
# file -> what pi 1.6.0's list() says of it
PI_LISTS = {
    "array-content": (
        [
            entry(
                "message",
                "u1",
                None,
                1,
                message={"role": "user", "content": ARRAY_CONTENT, "timestamp": 1740823201000},
            )
        ],
        {"messageCount": 1, "firstMessage": "first part", "modified": "2025-03-01T10:00:01.000Z"},
    ),
    "only-a-system-message": (
        [
            entry(
                "message",
                "s1",
                None,
                5,
                message={"role": "system", "content": "be brief", "timestamp": 1740823205000},
            )
        ],
        {"messageCount": 1, "firstMessage": "(no messages)", "modified": "2025-03-01T10:00:00.000Z"},
    ),
    "header-only": (
        [],
        {"messageCount": 0, "firstMessage": "(no messages)", "modified": "2025-03-01T10:00:00.000Z"},
    ),
}


@pytest.mark.parametrize("odd", [False, True], ids=["fast-path", "slow-path"])
@pytest.mark.parametrize("case", PI_LISTS.values(), ids=PI_LISTS)
def test_listing_of_texts_and_sessions_without_conversation(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    case: tuple[list[dict[str, Any]], dict[str, Any]],
    odd: bool,
) -> None:
    rows, pi = case
    if odd:
        rows = [{**row, "note": "\ud800"} for row in rows]  # the fast decoder refuses these lines
    write(tmp_path / "sessions" / "s.jsonl", header(id="h"), *rows)
    [listed] = _list(tmp_path / "sessions", capsys)
    assert {key: listed[key] for key in pi} == pi
    assert listed["hasCompaction"] is False
