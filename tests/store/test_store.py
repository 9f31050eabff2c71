"""The shared store on a real PostgreSQL server: init, push from two hosts, re-push, interrupted
push, the listing and a session read back through the store, row-level security, a wrong password."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import cast

import psycopg
import pytest
from pi_sessions.core.store_pg.connect import connect
from pi_sessions.core.store_pg.push import push
from pi_sessions.core.store_pg.schema import VERSION

from tests.helpers.cli import cli
from tests.helpers.corpus import FIXTURES
from tests.helpers.postgres import Store

CORPUS = FIXTURES / "sessions"
CORPUS_FILES = sorted(CORPUS.glob("*/*.jsonl"))


def corpus_copy(tmp_path: Path) -> Path:
    root = tmp_path / "sessions"
    shutil.copytree(CORPUS, root)
    return root


def pushed(store: Store, root: Path, host: str, role: str = "alice") -> str:
    result = cli("push", store.dsn(role), "--session-dir", str(root), "--host", host)
    assert result.code == 0, result.stderr
    return result.stdout


def rows(store: Store) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """Everything a push decides (not row ids, stamps or times), in a fixed order."""
    sessions = store.sql(
        "SELECT owner, host, path, session_id, size, digest FROM pi_sessions.sessions ORDER BY host, path"
    )
    lines = store.sql(
        "SELECT s.host, s.path, l.owner, l.byte_offset, l.raw FROM pi_sessions.lines l"
        " JOIN pi_sessions.sessions s ON s.id = l.session ORDER BY s.host, s.path, l.byte_offset"
    )
    return sessions, lines


def stored_bytes(store: Store, host: str, path: Path) -> bytes:
    found = store.sql(
        "SELECT string_agg(l.raw, ''::bytea ORDER BY l.byte_offset) FROM pi_sessions.lines l"
        f" JOIN pi_sessions.sessions s ON s.id = l.session WHERE s.host = '{host}' AND s.path = '{path}'"
    )
    return bytes(cast(bytes, found[0][0])) if found and found[0][0] is not None else b""


def listed(store: Store, role: str = "alice", *extra: str) -> list[dict[str, object]]:
    result = cli("list", "--json", "--store", store.dsn(role), *extra)
    assert result.code == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


# ---------------------------------------------------------------------------------- init


def test_init_creates_the_schema_then_finds_it_current(empty_db: Store) -> None:
    first = cli("store", "init", empty_db.dsn())
    assert first.code == 0 and "created the store" in first.stdout
    assert empty_db.sql("SELECT version FROM pi_sessions.schema_version") == [(VERSION,)]
    again = cli("store", "init", empty_db.dsn())
    assert again.code == 0 and f"at schema version {VERSION} already" in again.stdout
    assert empty_db.sql("SELECT version FROM pi_sessions.schema_version") == [(VERSION,)]


def test_a_push_before_init_says_what_to_run(empty_db: Store) -> None:
    result = cli("push", empty_db.dsn("alice"), "--session-dir", str(CORPUS))
    assert result.code == 2
    assert "run `pi-sessions store init DSN` first" in result.stderr


# ---------------------------------------------------------------------------------- push


def test_two_hosts_pushed_list_every_session_with_its_host(store: Store) -> None:
    pushed(store, CORPUS, "laptop")
    pushed(store, CORPUS, "buildbox")
    local = cli("list", "--json", "--session-dir", str(CORPUS))
    assert local.code == 0
    expected = [json.loads(line) for line in local.stdout.splitlines()]
    assert len(expected) == len(CORPUS_FILES)
    got = listed(store)
    assert len(got) == 2 * len(expected)
    for host in ("laptop", "buildbox"):
        of_host = [row for row in got if row["host"] == host]
        # Same fields, same values, same order as the local listing; `host` added.
        assert [{k: v for k, v in row.items() if k != "host"} for row in of_host] == expected
        assert list(of_host[0]) == [*expected[0], "host"]
    assert listed(store, "alice", "--host", "laptop") == [r for r in got if r["host"] == "laptop"]


def test_a_second_push_sends_nothing(store: Store) -> None:
    first = pushed(store, CORPUS, "laptop")
    assert f"pushed {len(CORPUS_FILES)} sessions" in first
    before = rows(store)
    second = pushed(store, CORPUS, "laptop")
    assert second.startswith(f"nothing to push: {len(CORPUS_FILES)} sessions")
    assert rows(store) == before


def test_only_appended_bytes_travel_and_a_rewritten_file_is_sent_again(store: Store, tmp_path: Path) -> None:
    root = corpus_copy(tmp_path)
    pushed(store, root, "laptop")
    grown, rewritten = sorted(root.glob("*/*.jsonl"))[:2]
    line = b'{"type":"session_info","id":"added01","parentId":null,"timestamp":"2025-05-01T00:00:00.000Z","name":"grown"}\n'
    with grown.open("ab") as f:
        f.write(line)
    rewritten.write_bytes(rewritten.read_bytes().replace(b'"role":"user"', b'"role": "user"'))
    out = pushed(store, root, "laptop")
    assert "pushed 2 sessions" in out and "1 sent again whole" in out
    # The grown file sent one line; the rewritten one all of its lines.
    sent_lines = 1 + rewritten.read_bytes().count(b"\n")
    assert f"({sent_lines} lines, {len(line) + rewritten.stat().st_size} bytes" in out
    for path in (grown, rewritten):
        assert stored_bytes(store, "laptop", path) == path.read_bytes()


def test_a_line_pushed_half_written_is_stored_whole_once_finished(store: Store, tmp_path: Path) -> None:
    root = corpus_copy(tmp_path)
    path = sorted(root.glob("*/*.jsonl"))[0]
    whole = path.read_bytes()
    last_start = whole.rstrip(b"\n").rfind(b"\n") + 1
    path.write_bytes(whole[: last_start + 10])  # pi is in the middle of writing its last line
    pushed(store, root, "laptop")
    assert stored_bytes(store, "laptop", path) == whole[: last_start + 10]
    path.write_bytes(whole)
    pushed(store, root, "laptop")
    assert stored_bytes(store, "laptop", path) == whole
    raws = store.sql(
        "SELECT l.raw FROM pi_sessions.lines l JOIN pi_sessions.sessions s ON s.id = l.session"
        f" WHERE s.path = '{path}' ORDER BY l.byte_offset"
    )
    assert [bytes(cast(bytes, r[0])) for r in raws] == whole.splitlines(keepends=True)


def test_an_interrupted_push_then_a_push_is_one_clean_push(
    store: Store, empty_db: Store, tmp_path: Path
) -> None:
    root = corpus_copy(tmp_path)
    seen = 0

    def dies_midway(raw: bytes) -> bytes:  # (the redaction hook: called for each line, in the transaction)
        nonlocal seen
        seen += 1
        if seen == 700:
            raise KeyboardInterrupt
        return raw

    with pytest.raises(KeyboardInterrupt), connect(store.dsn("alice")) as connection:
        push(connection, str(root), "laptop", redact=dies_midway)
    sessions, _ = rows(store)
    assert 0 < len(sessions) < len(CORPUS_FILES)
    for _, host, path, *_ in sessions:  # each file stored is whole: the one cut off is not there
        assert stored_bytes(store, str(host), Path(str(path))) == Path(str(path)).read_bytes()
    pushed(store, root, "laptop")

    clean = empty_db  # (another database: one clean push)
    assert cli("store", "init", clean.dsn()).code == 0
    pushed(clean, root, "laptop")
    assert rows(store) == rows(clean)


def test_a_killed_push_process_leaves_no_half_file(store: Store, tmp_path: Path) -> None:
    """The real thing: the process is killed while it pushes (SIGKILL, no clean-up of ours)."""
    import os
    import signal
    import subprocess
    import sys

    root = corpus_copy(tmp_path)
    big = root / "--home-u-proj-a--" / "2099-01-01T00-00-00-000Z_big.jsonl"
    head = sorted(root.glob("*/*.jsonl"))[0].read_bytes()
    big.write_bytes(
        head
        + b"".join(
            b'{"type":"custom","id":"c%d","parentId":null,"pad":"%s"}\n' % (i, b"x" * 500)
            for i in range(60_000)
        )
    )
    script = (
        "import os, sys\n"
        "from pi_sessions.core.store_pg import push as p\n"
        "real = p._insert_lines\n"
        "def then_die(*a, **k):\n"
        "    n = real(*a, **k)\n"
        "    if a[2] is not None and len(a[2]) > 1_000_000:\n"  # the big file's lines are sent, not committed
        "        os.kill(os.getpid(), 9)\n"
        "    return n\n"
        "p._insert_lines = then_die\n"
        "from pi_sessions.app.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "push", store.dsn("alice"), "--session-dir", str(root), "--host", "k"],
        capture_output=True,
        env={**os.environ},
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert stored_bytes(store, "k", big) == b""
    pushed(store, root, "k")
    assert stored_bytes(store, "k", big) == big.read_bytes()


# ---------------------------------------------------------------------------------- read back


@pytest.mark.parametrize("command", ["tree", "context"])
def test_a_stored_session_reads_as_its_file(store: Store, command: str) -> None:
    pushed(store, CORPUS, "laptop")
    pushed(store, CORPUS, "buildbox")
    for path in CORPUS_FILES:
        local = cli(command, str(path), "--json")
        stored = cli(command, str(path), "--json", "--store", store.dsn("alice"), "--host", "buildbox")
        assert local.code == stored.code == 0, (path, stored.stderr)
        assert stored.out == local.out, path


def test_a_path_pushed_from_two_hosts_needs_host(store: Store) -> None:
    pushed(store, CORPUS, "laptop")
    pushed(store, CORPUS, "buildbox")
    result = cli("tree", str(CORPUS_FILES[0]), "--store", store.dsn("alice"))
    assert result.code == 2
    assert "stored from 2 hosts (buildbox, laptop): pick one with --host" in result.stderr
    missing = cli("tree", "/no/such.jsonl", "--store", store.dsn("alice"))
    assert missing.code == 2 and "no stored session at /no/such.jsonl" in missing.stderr


# ---------------------------------------------------------------------------------- security


def test_a_role_reads_only_its_own_rows_unless_granted(store: Store) -> None:
    pushed(store, CORPUS, "laptop", role="alice")
    assert listed(store, "bob") == []
    session = cli("context", str(CORPUS_FILES[0]), "--json", "--store", store.dsn("bob"))
    assert session.code == 2 and "no stored session" in session.stderr

    granted = cli("store", "grant", store.dsn(), "bob")
    assert granted.code == 0, granted.stderr
    assert len(listed(store, "bob")) == len(CORPUS_FILES)

    # A team role: each of its members reads everything.
    assert listed(store, "carol") == []
    assert cli("store", "grant", store.dsn(), "team").code == 0
    assert len(listed(store, "carol")) == len(CORPUS_FILES)
    assert cli("store", "revoke", store.dsn(), "team").code == 0
    assert listed(store, "carol") == []


def test_a_role_cannot_change_or_forge_rows_of_another(store: Store) -> None:
    pushed(store, CORPUS, "laptop", role="alice")
    assert cli("store", "grant", store.dsn(), "bob").code == 0
    with psycopg.connect(store.dsn("bob"), autocommit=True) as bob:
        assert bob.execute("DELETE FROM pi_sessions.lines").rowcount == 0
        assert bob.execute("UPDATE pi_sessions.sessions SET size = 0").rowcount == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            bob.execute("INSERT INTO pi_sessions.sessions (owner, host, path) VALUES ('alice', 'x', '/x')")
    # Nor grant itself more: only the role that made the store writes its readers.
    result = cli("store", "grant", store.dsn("bob"), "carol")
    assert result.code == 2 and "permission denied" in result.stderr
    assert len(listed(store, "alice")) == len(CORPUS_FILES)


def test_each_role_pushes_its_own_copy(store: Store) -> None:
    pushed(store, CORPUS, "laptop", role="alice")
    pushed(store, CORPUS, "laptop", role="bob")
    assert len(listed(store, "alice")) == len(listed(store, "bob")) == len(CORPUS_FILES)
    owners = store.sql("SELECT owner, count(*) FROM pi_sessions.sessions GROUP BY owner ORDER BY owner")
    assert owners == [("alice", len(CORPUS_FILES)), ("bob", len(CORPUS_FILES))]


@pytest.mark.parametrize("form", ["pairs", "uri"])
def test_a_wrong_password_is_one_line_without_it_and_writes_nothing(store: Store, form: str) -> None:
    wrong = "Wr0ng-pa55word"
    dsn = store.dsn("alice", password=wrong)
    if form == "uri":
        dsn = f"postgresql://alice:{wrong}@/{store.dbname}?host={store.cluster.folder}&port=5432"
    for args in (["push", dsn, "--session-dir", str(CORPUS)], ["list", "--json", "--store", dsn]):
        result = cli(*args)
        assert result.code == 2
        assert result.stdout == ""
        assert result.stderr.count("\n") == 1, result.stderr
        assert 'password authentication failed for user "alice"' in result.stderr
        assert wrong not in result.stderr
    assert store.sql("SELECT count(*) FROM pi_sessions.sessions") == [(0,)]


# ---------------------------------------------------------------------------------- --watch


def test_push_watch_pushes_a_line_as_pi_appends_it(store: Store, tmp_path: Path) -> None:
    import os
    import queue
    import signal
    import subprocess
    import sys
    import threading

    root = corpus_copy(tmp_path)
    path = sorted(root.glob("*/*.jsonl"))[0]
    command = [sys.executable, "-m", "pi_sessions.app.cli", "push", store.dsn("alice")]
    process = subprocess.Popen(
        [*command, "--session-dir", str(root), "--host", "w", "--watch"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ},
    )
    lines: queue.Queue[bytes] = queue.Queue()
    # (a thread reads the lines: a select() on a buffered pipe misses lines already buffered)
    threading.Thread(target=lambda: [lines.put(b) for b in process.stdout or ()], daemon=True).start()

    def next_line() -> str:
        return lines.get(timeout=20).decode()

    try:
        assert next_line().startswith(f"pushed {len(CORPUS_FILES)} sessions")
        assert next_line().startswith("watching ")
        line = b'{"type":"session_info","id":"w1","parentId":null,"timestamp":"2025-05-01T00:00:00.000Z","name":"live"}\n'
        with path.open("ab") as f:
            f.write(line)
        assert next_line().startswith("pushed 1 session (1 line, ")
        assert stored_bytes(store, "w", path) == path.read_bytes()
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
