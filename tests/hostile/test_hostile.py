"""Regressions for damaged and hostile files, and for the live paths that must agree with a
fresh read of the same bytes (found by a review that tried hard to break them)."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pi_sessions.core.common.problems import ProblemKind, SessionError, StaleFileError
from pi_sessions.core.listing.store import SessionStore, read_file_state
from pi_sessions.core.live.watch import EventKind, SessionWatcher
from pi_sessions.core.projection.context import extend_projection, project
from pi_sessions.core.session.session import Session
from pi_sessions.core.writing.append import append_label, append_session_name
from pi_sessions.core.writing.fork import plan_fork, write_fork

from tests.helpers.checks import known
from tests.helpers.sessions import assistant, chain, entry, header, jsonl, user, write

BIG = "1" + "0" * 400  # JSON.parse reads it as Infinity; float() would overflow


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pi_sessions.app.cli", *args], capture_output=True, text=True
    )


@pytest.mark.parametrize(
    "tail",
    [
        # 1,000 levels of nesting: skipped as a malformed line, never a crash
        b'{"type":"message","id":"t","parentId":"u","timestamp":"2025-03-01T10:00:02.000Z","message":{"role":"toolResult","content":[],"details":'
        + b"[" * 1000
        + b"]" * 1000
        + b"}}\n",
        b"[" * 1000 + b"]" * 1000 + b"\n",
        (
            '{"type":"message","id":"a","parentId":"u","timestamp":"x","message":{"role":"assistant","content":[],"usage":{"totalTokens":'
            + BIG
            + "}}}\n"
        ).encode(),
        ('{"type":"custom","id":"c","parentId":"u","timestamp":' + BIG + "}\n").encode(),
        b'{"type":{"a":1},"id":"b","parentId":"u","timestamp":"2025-03-01T10:00:02.000Z"}\n',
        b'{"type":"message","id":"r","parentId":"u","timestamp":"2025-03-01T10:00:03.000Z","message":{"role":["user"],"content":"x"}}\n',
    ],
    ids=["deep-entry", "deep-junk", "huge-tokens", "huge-timestamp", "object-type", "array-role"],
)
def test_hostile_lines_never_break_the_commands(tmp_path: Path, tail: bytes) -> None:
    folder = tmp_path / "sessions" / "--p--"
    path = folder / "s.jsonl"
    folder.mkdir(parents=True)
    path.write_bytes(jsonl(header(), user("u", None, "hi")) + tail)
    for args in (
        ("tree", str(path), "--json"),
        ("tree", str(path)),
        ("context", str(path), "--all", "--json"),
    ):
        out = run(*args)
        assert out.returncode == 0, (args, out.stderr)
    out = run("list", "--session-dir", str(tmp_path / "sessions"), "--json")
    assert out.returncode == 0 and json.loads(out.stdout.splitlines()[0])["firstMessage"] == "hi"


def test_huge_header_version_is_read_like_javascript(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        json.dumps(header()).replace('"version": 3', '"version": ' + BIG).encode()
        + b"\n"
        + jsonl(user("u", None, "hi"))
    )
    assert Session.open(path).entry_ids() == ["u"]


def test_lone_surrogates_keep_ids_and_the_cache_works(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    folder = root / "--p--"
    folder.mkdir(parents=True)
    lines = [
        json.dumps(header()),
        '{"type":"message","id":"a\\ud800","parentId":null,"timestamp":"2025-03-01T10:00:01.000Z","message":{"role":"user","content":"half \\ud83d emoji"}}',
        '{"type":"message","id":"a\\udfff","parentId":"a\\ud800","timestamp":"2025-03-01T10:00:02.000Z","message":{"role":"assistant","content":[],"usage":{"totalTokens":15,"cost":{"total":0.01}}}}',
    ]
    path = folder / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    session = Session.open(path)
    assert session.entry_ids() == ["a\ud800", "a\udfff"] and session.problems == []
    assert list(session.children_of("a\ud800")) == ["a\udfff"]
    assert session.entry_dict(session.get("a\udfff"))["id"] == "a\udfff"
    entry, _ = read_file_state(str(path))
    summary = entry.summary if entry is not None else None
    assert summary is not None and summary.tokens == session.totals.tokens == 15
    store = SessionStore(root, cache_dir=tmp_path / "cache", keep_text=True)
    report = store.scan()
    assert report is not None and report.read == 1 and report.cache_problem is None
    [listed] = store.listing().summaries
    assert (listed.first_message, listed.tokens) == ("half \ud83d emoji", 15)
    assert store.texts(str(path)) == ["half \ud83d emoji"]
    # The cache cannot hold this file (msgpack has no lone surrogates): it is read again,
    # to the same result, while the cache itself still loads.
    again = SessionStore(root, cache_dir=tmp_path / "cache", keep_text=True)
    report = again.scan()
    assert report is not None and report.cache_loaded and report.read == 1
    assert again.listing().summaries == [listed] and again.texts(str(path)) == ["half \ud83d emoji"]


def test_children_without_dates_keep_a_fresh_reads_order_when_appended(tmp_path: Path) -> None:
    def child(entry_id: str, n: int) -> dict:
        return entry("message", entry_id, "r", n, message={"role": "user", "content": entry_id})

    late = child("B", 0)
    late["timestamp"] = "not a date"
    path = write(tmp_path / "s.jsonl", header(), user("r", None, "root", 0), child("A", 3))
    session = Session.open(path)
    for line in (child("C", 1), late, child("D", 2)):
        with open(path, "ab") as f:
            f.write(jsonl(line))
        session.refresh()
    assert list(session.children_of("r")) == list(Session.open(path).children_of("r"))


def test_a_file_rewritten_in_place_with_the_same_end_is_read_again(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path = write(root / "--p--" / "s.jsonl", header(cwd="/home/u/proj"), *chain(4))
    session = Session.open(path)
    store = SessionStore(root, use_cache=False)
    store.scan()
    rewritten = chain(4)
    rewritten[0] = user("e0", None, "QUESTION 0", 0)
    with open(path, "r+b") as f:  # same inode, bigger, different only near the start
        f.write(jsonl(header(cwd="/home/u/PROJ"), *rewritten, user("e4", "e3", "more", 9)))
        f.truncate()
    assert session.refresh().reloaded and session.cwd == "/home/u/PROJ"
    store.update(str(path))
    assert known(store.summary(str(path))).first_message == "QUESTION 0"


def test_rename_and_append_in_one_batch_refreshes_the_open_session(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    old = write(root / "--p--" / "a.jsonl", header(), *chain(2))
    store = SessionStore(root, use_cache=False)
    store.scan()
    watcher = SessionWatcher(store)
    session = Session.open(old)
    watcher.track(session)
    new = old.with_name("b.jsonl")
    os.rename(old, new)
    with open(new, "ab") as f:
        f.write(jsonl(user("e2", "e1", "after the rename", 5)))
    [event] = watcher.apply([str(old), str(new)])
    assert event.kind is EventKind.RENAMED and event.session is session
    assert session.entry_ids() == ["e0", "e1", "e2"] and session.path == str(new)


def test_a_new_file_on_a_reused_inode_is_not_a_rename(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    a = write(root / "--p--" / "a.jsonl", header(id="session-a"), *chain(2))
    store = SessionStore(root, use_cache=False)
    store.scan()
    watcher = SessionWatcher(store)
    session = Session.open(a)
    watcher.track(session)
    a.unlink()
    c = write(root / "--p--" / "c.jsonl", header(id="session-c"), user("zz", None, "unrelated"))
    events = {e.kind: e for e in watcher.apply([str(a), str(c)])}
    assert EventKind.RENAMED not in events  # whatever inode c got
    assert set(events) == {EventKind.APPEARED, EventKind.VANISHED}
    assert session.path == str(a)
    with pytest.raises(SessionError):
        append_session_name(session, "meant for a")  # never written into c
    assert b"meant for a" not in c.read_bytes()


def test_fork_by_copy_writes_everything_or_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = Session.open(write(tmp_path / "s.jsonl", header(), *chain(40)))
    plan = plan_fork(source, "e39", folder=str(tmp_path / "out"))

    def no_links(src: str, dst: str) -> None:
        raise OSError(errno.EPERM, "hard links not supported")

    real_write = os.write

    def short_writes(fd: int, data: bytes) -> int:
        return real_write(fd, bytes(data)[:100])  # a filesystem that writes a little at a time

    monkeypatch.setattr(os, "link", no_links)
    monkeypatch.setattr(os, "write", short_writes)
    path = write_fork(plan)
    forked = Session.open(path)
    assert forked.entry_ids() == source.entry_ids()
    assert Path(path).read_bytes().endswith(b"\n")


def test_labels_are_refused_on_version_1_files(tmp_path: Path) -> None:
    v1 = {"type": "session", "id": "legacy", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/old"}
    path = write(
        tmp_path / "old.jsonl",
        v1,
        {"type": "message", "timestamp": "t", "message": {"role": "user", "content": "q"}},
    )
    session = Session.open(path)
    before = path.read_bytes()
    with pytest.raises(SessionError, match="version 1"):
        append_label(session, session.entry_ids()[0], "important")
    assert path.read_bytes() == before


def test_many_children_and_many_cycles_stay_linear_and_correct(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", header(), user("root", None, "q"))
    session = Session.open(path)
    with open(path, "ab") as f:
        f.write(jsonl(*[assistant(f"k{i}", "root", "x", i % 3000) for i in range(6000)]))
    session.refresh()
    assert list(session.children_of("root")) == list(Session.open(path).children_of("root"))
    cycles = [header()]
    for i in range(3000):
        cycles.append(entry("custom", f"x{i}", f"y{i}", 1))
        cycles.append(entry("custom", f"y{i}", f"x{i}", 2))
    session = Session.open(write(tmp_path / "cycles.jsonl", *cycles))
    assert len(session.roots) == 3000 and session.roots[:2] == ["x0", "x1"]
    assert len(session.preorder()) == 6000


def test_a_parent_that_arrives_late_moves_totals_and_contexts_with_it(tmp_path: Path) -> None:
    """x is written before its parent p (a writer out of order): when p arrives, what was
    derived from x's old path (spent totals, a context to grow live) is not reused."""
    path = write(
        tmp_path / "late.jsonl",
        header(),
        assistant("x", "p", "child first", 1, usage={"input": 1, "output": 0, "totalTokens": 1}),
    )
    session = Session.open(path)
    before = project(session, "x")
    assert before.path_totals(session).tokens == 1
    with open(path, "ab") as f:
        f.write(
            jsonl(
                assistant("p", None, "parent late", 0, usage={"input": 100, "output": 0, "totalTokens": 100}),
                user("y", "x", "and then", 2),
            )
        )
    assert session.refresh().tree_rebuilt
    fresh = Session.open(path)
    assert project(session, "x").path_totals(session).tokens == 101
    assert project(session, "x").path_totals(session) == project(fresh, "x").path_totals(fresh)
    assert extend_projection(before, session, "y") is None
    assert [r.id for r in project(session, "y").context] == ["p", "x", "y"]


def test_a_record_from_before_a_reload_never_reads_another_entry(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", header(), user("a", None, "first"))
    session = Session.open(path)
    old_a = session.records[0]
    session.entry_dict(old_a)
    write(path, header(), user("b", None, "something else entirely"))
    assert session.refresh().reloaded
    session.entry_dict(session.records[0])  # b now sits in the cache at a's index
    with pytest.raises(StaleFileError):
        session.entry_dict(old_a)


def test_a_file_of_blank_lines_is_not_read_again_on_every_refresh(tmp_path: Path) -> None:
    path = tmp_path / "blank.jsonl"
    path.write_bytes(b"\n\n")
    session = Session.open(path)
    assert not session.refresh().reloaded
    with open(path, "ab") as f:
        f.write(jsonl(header()))
    result = session.refresh()
    assert not result.reloaded and result.header_appeared


def test_a_parent_that_is_not_a_string_is_reported_read_or_appended(tmp_path: Path) -> None:
    odd = entry("message", "o", None, 1, message={"role": "user", "content": "q", "timestamp": 1})
    odd["parentId"] = 5
    path = write(tmp_path / "s.jsonl", header(), user("a", None, "first"), odd)
    read = [(p.kind, p.entry_id) for p in Session.open(path).problems]
    grown = Session.open(write(tmp_path / "t.jsonl", header(), user("a", None, "first")))
    with open(grown.path or "", "ab") as f:
        f.write(jsonl(odd, user("5", "a", "an id that looks like that parent", 2)))
    result = grown.refresh()
    assert not result.tree_rebuilt  # "5" is not the number 5: nothing waited for it
    assert [(p.kind, p.entry_id) for p in grown.problems] == read == [(ProblemKind.MISSING_PARENT, "o")]


def test_usage_of_odd_shapes_is_counted_where_it_can_be(tmp_path: Path) -> None:
    """A usage that is not an object, a cost that is not one, a line with a lone surrogate:
    reading goes on, and the totals count exactly the numbers that are there."""
    path = tmp_path / "sessions" / "--p--" / "s.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(
        jsonl(
            header(),
            user("u", None, "hi"),
            entry("usage", "w", "u", 1, kind="k", usage="lots"),
            assistant("a", "w", "x", 2, usage={"input": 1, "cost": 5}),
            entry("usage", "v", "a", 3, kind="k", usage={"input": 7, "output": 1, "cost": "free"}),
        )
        + b'{"type":"usage","id":"z","parentId":"v","timestamp":"x","usage":{"input":3,"output":0},"note":"\\ud800"}\n'
    )
    session = Session.open(path)
    assert session.entry_ids() == ["u", "w", "a", "v", "z"] and session.problems == []
    assert (session.totals.tokens, session.totals.cost) == (12, 0)
    out = run("list", "--session-dir", str(tmp_path / "sessions"), "--json", "--no-cache")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["tokens"] == 12
