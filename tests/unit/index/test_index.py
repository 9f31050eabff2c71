"""The SQLite index: every file touch and agent command of hand-made sessions whose answer is
known, kept current as files grow, vanish, or the index itself is lost or damaged."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from pi_sessions.core.index.db import index_file_path, open_index
from pi_sessions.core.index.queries import changed_files, commands_run, file_history
from pi_sessions.core.index.refresh import refresh_index, updated_index

from tests.helpers.index_work import CWD, work_entries, work_folder
from tests.helpers.sessions import header, jsonl, ts, user, write
from tests.helpers.tools import call, tool_result, tool_use, user_bash


def _index(tmp_path: Path, folder: Path):
    db, _ = updated_index(str(folder), base=tmp_path / "cache")
    return db


def _history(db, path: str) -> list[tuple]:
    return [
        (r.entry_id, r.action, r.verb, r.timestamp, r.on_active_path, r.in_context)
        for r in file_history(db.conn, path)
    ]


def test_history_holds_every_touch_with_its_fate_newest_first(tmp_path: Path) -> None:
    db = _index(tmp_path, work_folder(tmp_path))
    # read and edited, both summarized by the compaction: on the active path, out of context
    assert _history(db, f"{CWD}/src/a.py") == [
        ("e3", "changed", "edit", ts(3), True, False),
        ("e2", "read", "read", ts(2), True, False),
    ]
    # `cat` in the kept range: read and still in context; `ls` only names the folder
    assert _history(db, f"{CWD}/notes.md") == [("e6", "read", "cat", ts(6), True, True)]
    assert _history(db, f"{CWD}/docs") == [("e6", "named", "ls", ts(6), True, True)]
    # the abandoned branch's change: off the active path, never in context
    assert _history(db, f"{CWD}/old.txt") == [("b1", "changed", "rm", ts(20), False, False)]
    assert _history(db, f"{CWD}/./src/../src/a.py")[0][0] == "e3"  # the path is normalised
    assert _history(db, f"{CWD}/nothing") == []


def test_a_relative_path_in_each_sessions_cwd(tmp_path: Path) -> None:
    folder = work_folder(tmp_path)
    other = [user("o0", None, "hi", 0), *work_entries()[1:3]]
    other[1]["parentId"] = "o0"
    write(
        folder / "--srv--" / "t.jsonl", header(cwd="/srv", id="0195aaaa-0000-7000-8000-000000000002"), *other
    )
    db = _index(tmp_path, folder)
    found = file_history(db.conn, "src/a.py", each_cwd=True)
    assert sorted((r.cwd, r.entry_id) for r in found) == [
        ("/home/u/proj", "e2"),
        ("/home/u/proj", "e3"),
        ("/srv", "e2"),
    ]
    assert file_history(db.conn, "src/a.py") == []  # without it, a relative path is only itself


def test_edits_are_the_agents_changes_newest_first(tmp_path: Path) -> None:
    entries = [
        *work_entries(),
        tool_use("f1", "u", 40, call("write", "c6", path="locked.txt", content="z")),
        tool_result("f2", "f1", 41, "c6", "write", "EACCES", error=True),  # failed: nothing changed
        user_bash("f3", "f2", 42, "echo hi > by-hand.txt", ""),  # the user's, not the agent's
    ]
    db = _index(tmp_path, work_folder(tmp_path, *entries))
    rows = [(r.path, r.entry_id, r.on_active_path) for r in changed_files(db.conn)]
    assert rows == [
        (f"{CWD}/old.txt", "b1", False),
        (f"{CWD}/out.txt", "e7", True),
        (f"{CWD}/src/a.py", "e3", True),
    ]
    assert [r.entry_id for r in changed_files(db.conn, since_ms=_ms(ts(7)))] == ["b1", "e7"]
    assert _history(db, f"{CWD}/locked.txt") == [("f1", "named", "write", ts(40), True, False)]
    assert [(r.action, r.tool) for r in file_history(db.conn, f"{CWD}/by-hand.txt")] == [
        ("changed", "user-bash")
    ]


def _ms(stamp: str) -> float:
    from pi_sessions.core.common.jsvalues import date_ms

    value = date_ms(stamp)
    assert value is not None
    return value


def test_commands_are_every_bash_call_on_any_branch(tmp_path: Path) -> None:
    db = _index(tmp_path, work_folder(tmp_path))
    rows = [(r.command, r.entry_id, r.timestamp, r.on_active_path) for r in commands_run(db.conn)]
    assert rows == [("rm old.txt", "b1", ts(20), False), ("cat notes.md && ls docs", "e5", ts(5), True)]
    assert [r.entry_id for r in commands_run(db.conn, "CAT NOTES")] == ["e5"]  # any case
    assert list(commands_run(db.conn, "git")) == []


def test_an_appended_line_updates_the_answer_and_an_unchanged_file_is_not_read(tmp_path: Path) -> None:
    folder = work_folder(tmp_path)
    db = _index(tmp_path, folder)
    assert refresh_index(db, str(folder)).read == 0  # nothing changed: no file opened
    session = folder / "--home-u-proj--" / "s.jsonl"
    with session.open("ab") as f:
        f.write(
            jsonl(
                tool_use("g1", "u", 50, call("read", "c7", path="src/a.py")),
                tool_result("g2", "g1", 51, "c7", "read", "x = 2"),
            )
        )
    report = refresh_index(db, str(folder))
    assert (report.read, report.first_build) == (1, False)
    assert _history(db, f"{CWD}/src/a.py")[0] == ("g2", "read", "read", ts(51), True, True)
    assert len(_history(db, f"{CWD}/src/a.py")) == 3


def test_a_deleted_session_leaves_the_index(tmp_path: Path) -> None:
    folder = work_folder(tmp_path)
    db = _index(tmp_path, folder)
    (folder / "--home-u-proj--" / "s.jsonl").unlink()
    assert refresh_index(db, str(folder)).removed == 1
    assert _history(db, f"{CWD}/notes.md") == [] and list(commands_run(db.conn)) == []


def test_a_deleted_index_is_built_again_with_the_same_answer(tmp_path: Path) -> None:
    folder = work_folder(tmp_path)
    db = _index(tmp_path, folder)
    before = _history(db, f"{CWD}/src/a.py")
    db.close()
    path = index_file_path(str(folder), tmp_path / "cache")
    assert path.is_file()
    path.unlink()
    db, report = updated_index(str(folder), base=tmp_path / "cache")
    assert report.first_build and report.read == 1 and db.notice is None
    assert _history(db, f"{CWD}/src/a.py") == before


def test_a_corrupt_or_foreign_index_file_is_rebuilt_with_a_notice(tmp_path: Path) -> None:
    folder = work_folder(tmp_path)
    path = index_file_path(str(folder), tmp_path / "cache")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    db, _ = updated_index(str(folder), base=tmp_path / "cache")
    assert db.notice is not None and "rebuilt" in db.notice
    assert _history(db, f"{CWD}/notes.md")[0][0] == "e6"
    db.close()
    path.unlink()
    foreign = sqlite3.connect(path)  # someone else's database where ours belongs
    foreign.execute("CREATE TABLE sessions (x)")
    foreign.commit()
    foreign.close()
    db, _ = updated_index(str(folder), base=tmp_path / "cache")
    assert db.notice is not None and "not an index of ours" in db.notice
    assert _history(db, f"{CWD}/notes.md")[0][0] == "e6"
    db.close()
    db, _ = updated_index(str(folder), base=tmp_path / "cache")  # and then it is ours
    assert db.notice is None and _history(db, f"{CWD}/notes.md")[0][0] == "e6"


def test_the_index_of_another_folder_is_not_taken_for_this_one(tmp_path: Path) -> None:
    first = work_folder(tmp_path)
    db = _index(tmp_path, first)
    db.close()
    second = tmp_path / "elsewhere"
    write(second / "x.jsonl", header(), user("e0", None, "hi", 0))
    target = index_file_path(str(second), tmp_path / "cache")
    index_file_path(str(first), tmp_path / "cache").rename(target)  # as if two names met
    db, _ = updated_index(str(second), base=tmp_path / "cache")
    assert db.notice is not None and "another sessions folder" in db.notice
    assert _history(db, f"{CWD}/notes.md") == []


def test_the_index_file_is_in_wal_mode_and_versioned(tmp_path: Path) -> None:
    folder = work_folder(tmp_path)
    db = _index(tmp_path, folder)
    assert db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.conn.execute("PRAGMA user_version").fetchone()[0] >= 1
    db.close()
    memory = open_index(str(folder), use_file=False)
    assert memory.path is None
    assert refresh_index(memory, str(folder)).read == 1
    assert json.dumps(_history(memory, f"{CWD}/docs"))


def test_a_command_pi_did_not_run_is_not_listed(tmp_path: Path) -> None:
    entries = [
        *work_entries(),
        tool_use("h1", "u", 60, call("bash", "c8", command="make deploy"), stop="aborted"),
        tool_use("h2", "h1", 61, call("bash", "c9", command="make clean"), stop="length"),
    ]
    db = _index(tmp_path, work_folder(tmp_path, *entries))
    assert [r.command for r in commands_run(db.conn, "make")] == []


def test_an_empty_file_is_filled_in_not_replaced(tmp_path: Path) -> None:
    folder = work_folder(tmp_path)
    path = index_file_path(str(folder), tmp_path / "cache")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"")  # as another process leaves it between creating it and its schema
    inode = path.stat().st_ino
    db, _ = updated_index(str(folder), base=tmp_path / "cache")
    assert db.notice is None and path.stat().st_ino == inode
    assert _history(db, f"{CWD}/notes.md")[0][0] == "e6"


def test_an_unusable_cache_folder_means_an_index_in_memory(tmp_path: Path) -> None:
    folder = work_folder(tmp_path)
    (tmp_path / "cache").write_text("a file where the folder belongs")
    db, _ = updated_index(str(folder), base=tmp_path / "cache")
    assert db.path is None and db.notice is not None and "not usable" in db.notice
    assert _history(db, f"{CWD}/notes.md")[0][0] == "e6"


def test_text_sqlite_cannot_hold_as_it_is_comes_back_unchanged(tmp_path: Path) -> None:
    odd = "odd\ud800name"  # a lone surrogate: JSON allows it, SQLite's UTF-8 text does not
    entries = [
        user("e0", None, "go", 0),
        tool_use("e1", "e0", 1, call("bash", "c1", command=f"cat {odd}.txt")),
        tool_result("e2", "e1", 2, "c1", "bash", "x"),
    ]
    folder = tmp_path / "sessions"
    write(folder / "s.jsonl", header(cwd=f"/home/{odd}"), *entries)
    db = _index(tmp_path, folder)
    assert [r.command for r in commands_run(db.conn, odd)] == [f"cat {odd}.txt"]
    assert [(r.cwd, r.action) for r in file_history(db.conn, f"/home/{odd}/{odd}.txt")] == [
        (f"/home/{odd}", "read")
    ]
    assert refresh_index(db, str(folder)).read == 0  # and its stamp is found again
