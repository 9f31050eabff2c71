"""Legacy v1/v2 files are migrated in memory exactly as pi does; the file is never touched."""

from __future__ import annotations

from pathlib import Path

from pi_sessions.core.projection.context import project
from pi_sessions.core.session.session import Session

from tests.helpers.sessions import write


def v1_header(**fields: object) -> dict:
    return {
        "type": "session",
        "id": "legacy-1",
        "timestamp": "2025-01-01T00:00:00.000Z",
        "cwd": "/old",
        **fields,
    }


def msg(role: str, text: str, n: int) -> dict:
    return {
        "type": "message",
        "timestamp": f"2025-01-01T00:00:{n:02d}.000Z",
        "message": {"role": role, "content": text},
    }


def test_v1_entries_get_stable_ids_and_a_linear_chain(tmp_path: Path) -> None:
    path = write(
        tmp_path / "old.jsonl",
        v1_header(),
        msg("user", "a", 1),
        {"type": "thinking_level_change", "thinkingLevel": "high", "timestamp": "t"},
        msg("assistant", "b", 2),
    )
    before = path.read_bytes()
    first, second = Session.open(path), Session.open(path)
    assert first.entry_ids() == second.entry_ids()  # derived, not random
    ids = first.entry_ids()
    assert len(ids) == 3 and len(set(ids)) == 3 and all(len(i) == 8 for i in ids)
    assert [first.get(i).parentId for i in ids] == [None, ids[0], ids[1]]
    assert first.header is not None and first.header["version"] == 3
    assert first.entry_dict(first.get(ids[2]))["id"] == ids[2]
    assert path.read_bytes() == before


def test_v1_first_kept_index_counts_the_header_and_parsed_lines(tmp_path: Path) -> None:
    rows = [v1_header(), msg("user", "a", 1), msg("assistant", "b", 2), msg("user", "c", 3)]
    compaction = {
        "type": "compaction",
        "summary": "S",
        "firstKeptEntryIndex": 2,
        "tokensBefore": 5,
        "timestamp": "2025-01-01T00:00:04.000Z",
    }
    session = Session.open(write(tmp_path / "old.jsonl", *rows, compaction, msg("user", "d", 5)))
    ids = session.entry_ids()
    comp = session.get(ids[3])
    assert comp.firstKeptEntryId == ids[1]  # index 2 = the second entry after the header
    entry = session.entry_dict(comp)
    assert "firstKeptEntryIndex" not in entry and entry["firstKeptEntryId"] == ids[1]
    assert [r.id for r in project(session, ids[4]).context] == [ids[3], ids[1], ids[2], ids[4]]


def test_v1_first_kept_index_at_header_or_past_the_end_keeps_nothing(tmp_path: Path) -> None:
    for index in (0, 99):
        rows = [v1_header(), msg("user", "a", 1)]
        compaction = {"type": "compaction", "summary": "S", "firstKeptEntryIndex": index, "timestamp": "t"}
        session = Session.open(write(tmp_path / f"old{index}.jsonl", *rows, compaction, msg("user", "b", 3)))
        ids = session.entry_ids()
        entry = session.entry_dict(session.get(ids[1]))
        assert "firstKeptEntryIndex" not in entry and "firstKeptEntryId" not in entry
        assert [r.id for r in project(session, ids[2]).context] == [ids[1], ids[2]]


def test_v1_malformed_lines_shift_nothing_but_extra_headers_count(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    import json

    lines = [
        json.dumps(v1_header()),
        "not json",
        json.dumps(msg("user", "a", 1)),
        json.dumps(msg("user", "b", 2)),
    ]
    lines.append(
        json.dumps({"type": "compaction", "summary": "S", "firstKeptEntryIndex": 2, "timestamp": "t"})
    )
    path.write_text("\n".join(lines) + "\n")
    session = Session.open(path)
    ids = session.entry_ids()
    assert session.get(ids[2]).firstKeptEntryId == ids[1]  # parsed index 2 = "b": the bad line is not counted


V2_HEADER = {
    "type": "session",
    "version": 2,
    "id": "v2",
    "timestamp": "2025-01-01T00:00:00.000Z",
    "cwd": "/x",
}


def test_v2_hook_message_becomes_custom(tmp_path: Path) -> None:
    hook = {
        "type": "message",
        "id": "h1",
        "parentId": None,
        "timestamp": "2025-01-01T00:00:01.000Z",
        "message": {"role": "hookMessage", "content": "from a hook", "customType": "x"},
    }
    session = Session.open(write(tmp_path / "v2.jsonl", V2_HEADER, hook))
    assert session.entry_ids() == ["h1"]  # v2 ids are kept
    assert session.get("h1").role == "custom"
    assert project(session, "h1").messages(session)[0]["role"] == "custom"


def test_v2_every_hook_message_becomes_custom_and_nothing_else_does(tmp_path: Path) -> None:
    """Message heads alike are shared in memory: migrating one must not change another
    entry's, nor leave the second of two alike unmigrated."""

    def message(entry_id: str, parent: str | None, role: str) -> dict[str, object]:
        return {
            "type": "message",
            "id": entry_id,
            "parentId": parent,
            "timestamp": "2025-01-01T00:00:01.000Z",
            "message": {"role": role, "content": "same", "customType": "x"},
        }

    lines = [
        message("h1", None, "hookMessage"),
        message("h2", "h1", "hookMessage"),
        message("u1", "h2", "user"),
    ]
    session = Session.open(write(tmp_path / "v2.jsonl", V2_HEADER, *lines))
    assert [session.get(i).role for i in ("h1", "h2", "u1")] == ["custom", "custom", "user"]
    roles = [m["role"] for m in project(session, "u1").messages(session)]
    assert roles == ["custom", "custom", "user"]
