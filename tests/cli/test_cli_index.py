"""`pi-sessions history`, `edits` and `commands`: the contract's JSON fields, the notice for a
damaged index, and `history` agreeing with `files --json` of every corpus session."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest

from tests.helpers.cli import cli
from tests.helpers.corpus import FIXTURES
from tests.helpers.index_work import CWD, work_folder
from tests.helpers.sessions import jsonl, user

CORPUS = FIXTURES / "sessions"


def _json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def test_history_json_has_the_contract_fields(tmp_path: Path) -> None:
    folder = work_folder(tmp_path)
    out = cli("history", f"{CWD}/src/a.py", "--session-dir", str(folder), "--json")
    assert out.code == 0, out.stderr
    rows = _json_lines(out.stdout)
    session = str(folder / "--home-u-proj--" / "s.jsonl")
    assert [
        {
            k: r[k]
            for k in (
                "path",
                "session_path",
                "session_id",
                "entry_id",
                "action",
                "on_active_path",
                "in_context",
                "host",
            )
        }
        for r in rows
    ] == [
        {
            "path": f"{CWD}/src/a.py",
            "session_path": session,
            "session_id": "0195aaaa-0000-7000-8000-000000000001",
            "entry_id": entry,
            "action": action,
            "on_active_path": True,
            "in_context": False,
            "host": None,
        }
        for entry, action in (("e3", "changed"), ("e2", "read"))
    ]
    assert rows[0]["timestamp"] == "2025-03-01T10:00:03.000Z"


def test_history_takes_a_relative_path_from_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = work_folder(tmp_path)
    project = tmp_path / "home-u-proj"
    project.mkdir()
    monkeypatch.chdir(project)
    assert cli("history", "src/a.py", "--session-dir", str(folder), "--json").stdout == ""
    out = cli("history", "src/a.py", "--each-cwd", "--session-dir", str(folder), "--json")
    assert [r["entry_id"] for r in _json_lines(out.stdout)] == ["e3", "e2"]
    readable = cli("history", "src/a.py", "--session-dir", str(folder))
    assert readable.code == 0 and "no session touched" in readable.stdout


def test_edits_and_commands_json(tmp_path: Path) -> None:
    folder = work_folder(tmp_path)
    session = str(folder / "--home-u-proj--" / "s.jsonl")
    edits = _json_lines(cli("edits", "--session-dir", str(folder), "--json").stdout)
    assert [{k: e[k] for k in ("session_path", "entry_id", "on_active_path", "path")} for e in edits] == [
        {"session_path": session, "entry_id": "b1", "on_active_path": False, "path": f"{CWD}/old.txt"},
        {"session_path": session, "entry_id": "e7", "on_active_path": True, "path": f"{CWD}/out.txt"},
        {"session_path": session, "entry_id": "e3", "on_active_path": True, "path": f"{CWD}/src/a.py"},
    ]
    assert all(e["timestamp"].startswith("2025-03-01T10:00:") for e in edits)
    assert cli("edits", "--since", "1d", "--session-dir", str(folder), "--json").stdout == ""  # all of 2025
    commands = _json_lines(cli("commands", "rm", "--session-dir", str(folder), "--json").stdout)
    assert [
        {k: c[k] for k in ("session_path", "entry_id", "timestamp", "on_active_path", "command")}
        for c in commands
    ] == [
        {
            "session_path": session,
            "entry_id": "b1",
            "timestamp": "2025-03-01T10:00:20.000Z",
            "on_active_path": False,
            "command": "rm old.txt",
        }
    ]
    bad = cli("edits", "--since", "soon", "--session-dir", str(folder))
    assert bad.code == 2 and "--since" in bad.stderr


def test_a_corrupt_index_is_rebuilt_with_a_notice_on_stderr(tmp_path: Path) -> None:
    folder = work_folder(tmp_path)
    assert cli("commands", "--session-dir", str(folder)).code == 0
    cache = Path(os.environ["XDG_CACHE_HOME"]) / "pi-sessions"
    (index,) = cache.glob("index-*.sqlite3")
    index.write_bytes(b"\x00garbage" * 100)
    out = cli("commands", "--session-dir", str(folder), "--json")
    assert out.code == 0
    assert "rebuilt" in out.stderr and str(index) in out.stderr
    assert [c["entry_id"] for c in _json_lines(out.stdout)] == ["b1", "e5"]
    again = cli("commands", "--session-dir", str(folder), "--json")
    assert again.stderr == "" and again.stdout == out.stdout


def test_no_cache_leaves_no_index_file(tmp_path: Path) -> None:
    folder = work_folder(tmp_path)
    out = cli("edits", "--no-cache", "--session-dir", str(folder), "--json")
    assert out.code == 0 and len(_json_lines(out.stdout)) == 3
    assert not list((Path(os.environ["XDG_CACHE_HOME"]) / "pi-sessions").glob("index-*.sqlite3"))


def _files_of_every_session() -> dict[str, list[dict]]:
    files: dict[str, list[dict]] = {}
    for path in sorted(CORPUS.rglob("*.jsonl")):
        out = cli("files", str(path), "--json")
        if out.code == 0:  # (an empty file has no leaf)
            files[str(path)] = _json_lines(out.stdout)
    return files


def test_history_agrees_with_files_of_every_corpus_session() -> None:
    files = _files_of_every_session()
    paths = sorted({f["path"] for known in files.values() for f in known})
    assert len(paths) > 20
    history: dict[tuple[str, str], list[dict]] = defaultdict(list)  # (session, file) -> touches
    for path in paths:
        out = cli("history", path, "--session-dir", str(CORPUS), "--json")
        assert out.code == 0, out.stderr
        for row in _json_lines(out.stdout):
            assert row["path"] == path
            history[(row["session_path"], path)].append(row)
    for session, known in files.items():
        for file in known:
            rows = [r for r in history[(session, file["path"])] if r["on_active_path"]]
            assert {r["entry_id"] for r in rows} == {t["entry"] for t in file["touches"]}, (
                session,
                file["path"],
            )
            actions = {(r["entry_id"], r["action"]) for r in rows}
            if file["last_read_entry"]:
                assert (file["last_read_entry"], "read") in actions
            if file["last_edit_entry"]:
                assert (file["last_edit_entry"], "changed") in actions
            # in file order, the last read or change still in context is what `files` calls visible
            shown = {r["entry_id"] for r in rows if r["in_context"] and r["action"] != "named"}
            visible = [t["entry"] for t in file["touches"] if t["entry"] in shown]
            assert (visible[-1] if visible else None) == file["visible_entry"], (session, file["path"])
            latest = file["last_read_entry"] or file["last_edit_entry"]
            if latest is not None and file["in_context"]:
                assert file["visible_entry"] in (file["last_read_entry"], file["last_edit_entry"])
    # and nothing on an active path that `files` does not list
    listed = {(s, f["path"]) for s, known in files.items() for f in known}
    for key, rows in history.items():
        if any(r["on_active_path"] for r in rows):
            assert key in listed, key


def test_a_first_build_shows_progress_only_on_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pi_sessions.app.subcommands import output

    folder = work_folder(tmp_path)
    quiet = cli("commands", "--session-dir", str(folder))
    assert quiet.code == 0 and quiet.stderr == ""  # not a terminal: nothing on stderr
    monkeypatch.setattr(output, "stderr_is_terminal", lambda: True)
    session = folder / "--home-u-proj--" / "s.jsonl"
    session.write_bytes(session.read_bytes() + jsonl(user("v", "u", "more", 70)))
    assert cli("commands", "--session-dir", str(folder)).stderr == ""  # not a first build: no progress
    shown = cli("commands", "--no-cache", "--session-dir", str(folder))
    assert "indexing" in shown.stderr and "0/1 sessions" in shown.stderr
