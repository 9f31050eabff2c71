"""The store: where sessions are, pi's listing, and the index cache that reads only new bytes."""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

import pytest
from pi_sessions.app.subcommands.listing import cmd_list
from pi_sessions.core.common.locations import resolve_sessions_root
from pi_sessions.core.listing.store import FileChange, ScanReport, SessionStore
from pi_sessions.core.reading.growth import read_growth
from pi_sessions.core.session.session import Session

from tests.helpers.checks import known
from tests.helpers.sessions import (
    assistant,
    entry,
    header,
    jsonl,
    rewrite_keeping_size_and_mtime,
    user,
    write,
)


def make_tree(root: Path) -> dict[str, Path]:
    a = root / "--home-u-a--"
    b = root / "--home-u-b--"
    a.mkdir(parents=True)
    b.mkdir()
    files = {
        "old": write(
            a / "2025-01-01_old.jsonl", header(id="old", cwd="/home/u/a"), user("u", None, "old question")
        ),
        "new": write(
            b / "2025-02-01_new.jsonl",
            header(id="new", cwd="/home/u/b", timestamp="2025-02-01T00:00:00.000Z"),
            user("u", None, "new question", 5),
        ),
    }
    (a / "notes.jsonl").write_text("not json\n")
    (a / "readme.txt").write_text("ignored")
    return files


def test_sessions_root_resolution_order(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    env = {"PI_CODING_AGENT_DIR": str(agent)}
    assert resolve_sessions_root(env=env, cwd=str(tmp_path)).path == str(agent / "sessions")
    (agent / "settings.json").write_text(json.dumps({"sessionDir": str(tmp_path / "from-settings")}))
    assert resolve_sessions_root(env=env, cwd=str(tmp_path)).path == str(tmp_path / "from-settings")
    env["PI_CODING_AGENT_SESSION_DIR"] = str(tmp_path / "from-env")
    assert resolve_sessions_root(env=env, cwd=str(tmp_path)).path == str(tmp_path / "from-env")
    assert resolve_sessions_root("~/flag", env=env).path == os.path.expanduser("~/flag")
    home = resolve_sessions_root(env={}, cwd=str(tmp_path)).path
    assert home == os.path.join(os.path.expanduser("~"), ".pi", "agent", "sessions")


def test_listing_newest_first_and_non_sessions_left_out_with_a_reason(tmp_path: Path) -> None:
    files = make_tree(tmp_path)
    store = SessionStore(tmp_path, use_cache=False)
    store.scan()
    listing = store.listing()
    assert [s.id for s in listing.summaries] == ["new", "old"]
    assert [Path(p).name for p, _ in listing.skipped] == ["notes.jsonl"]
    new = listing.summaries[0]
    assert new.first_message == "new question" and new.cwd == "/home/u/b" and new.path == str(files["new"])


def test_pi_dropped_session_is_listed_with_its_problem(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        header(),
        entry("message", "a", None, 0, message={"role": "user", "content": None}),
    )
    store = SessionStore(tmp_path, use_cache=False)
    store.scan()
    [summary] = store.listing().summaries
    assert not summary.pi_lists_it
    assert any("pi leaves this session out" in p for p in summary.problems)
    assert summary.path == str(path)


# What pi 1.6.0's SessionManager.list() does with each (checked with the real pi): it extracts
# the text of EVERY user and assistant message, so a null block anywhere drops the session,
# while a message that is not an object is only skipped.
PI_LISTS = [
    ("just a string", True),
    (5, True),
    ({"role": "assistant", "content": "fine"}, True),
    ({"role": "assistant", "content": [None]}, False),
    ({"role": "user", "content": [{"type": "text", "text": "x"}, None]}, False),
    ({"role": "user", "content": {"text": "an object"}}, False),
]


@pytest.mark.parametrize("odd_line", [False, True], ids=["typed", "plain"])
@pytest.mark.parametrize("keep_text", [False, True], ids=["list", "browser"])
@pytest.mark.parametrize(("message", "pi_lists_it"), PI_LISTS)
def test_one_rule_set_whatever_the_line_or_the_reader(
    tmp_path: Path, message: object, pi_lists_it: bool, keep_text: bool, odd_line: bool
) -> None:
    second = entry("message", "b", "a", 1, message=message)
    if odd_line:
        second["odd"] = "\ud800"  # a lone surrogate: msgspec refuses the line, the plain path reads it
    write(tmp_path / "s.jsonl", header(), user("a", None, "hello"), second)
    store = SessionStore(tmp_path, use_cache=False, keep_text=keep_text)
    store.scan()
    [summary] = store.listing().summaries
    assert summary.pi_lists_it is pi_lists_it, summary.problems
    assert (summary.message_count, summary.first_message, summary.entry_count) == (2, "hello", 2)


# Messages the typed decoders tell apart by their role (or refuse: a role they do not know,
# none, two) and what pi 1.6.0's listAll() did with each (checked with the real pi). Written
# as raw JSON: a repeated key cannot come from a dict (JavaScript keeps the last one).
ROLES = [
    ('{"role":"toolResult","content":null}', True),  # (a tool result's content is never read)
    ('{"role":"weird","content":null}', True),
    ('{"content":null}', True),
    ('{"role":"assistant","content":[5,"s"]}', True),
    ('{"role":"hookMessage","content":null}', True),
    ('{"role":"toolResult","role":"user","content":null}', False),
    ('{"role":"user","content":null,"role":"toolResult"}', True),
]


@pytest.mark.parametrize("keep_text", [False, True], ids=["list", "browser"])
@pytest.mark.parametrize(("message", "pi_lists_it"), ROLES)
def test_every_role_is_read_as_pi_reads_it(
    tmp_path: Path, message: str, pi_lists_it: bool, keep_text: bool
) -> None:
    second = b'{"type":"message","id":"b","parentId":"a","timestamp":"2025-03-01T10:00:02.000Z","message":'
    (tmp_path / "s.jsonl").write_bytes(
        jsonl(header(), user("a", None, "hello")) + second + message.encode() + b"}\n"
    )
    store = SessionStore(tmp_path, use_cache=False, keep_text=keep_text)
    store.scan()
    [summary] = store.listing().summaries
    assert summary.pi_lists_it is pi_lists_it, summary.problems
    assert (summary.message_count, summary.first_message, summary.entry_count) == (2, "hello", 2)
    assert bool(summary.problems) is not pi_lists_it


# pi's usual lines are read by the leanest decoder (`pi-sessions list`); a file with a line
# that is not usual is read with the full types instead. Either way, and by the plain path
# (a lone surrogate on each line), the figures are the same.
UNUSUAL = {
    "usual": {},
    "usage without its total": {"usage": {"input": 10, "output": 5, "cost": {"total": 0.25}}},
    "a total not a number": {"usage": {"input": 1, "output": 2, "totalTokens": "15"}},
    "a cost without its total": {"usage": {"totalTokens": 15, "cost": {}}},
    "an integer cost": {"usage": {"totalTokens": 15.5, "cost": {"total": 2}}},
    "a huge total": {"usage": {"totalTokens": 10**400}},
    "the time as a string": {"timestamp": "2025-03-01T10:00:09.000Z"},
    "no time": {"timestamp": None},
}


@pytest.mark.parametrize("change", list(UNUSUAL.values()), ids=list(UNUSUAL))
def test_usual_lines_or_not_every_decoder_gives_the_same_figures(
    tmp_path: Path, change: dict[str, object]
) -> None:
    message = {**assistant("b", "a", "reply", 2)["message"], **change}
    if message["timestamp"] is None:
        del message["timestamp"]
    rows = [header(), user("a", None, "question"), entry("message", "b", "a", 3, message=message)]
    files = {
        "list": write(tmp_path / "l" / "s.jsonl", *rows),
        "browser": write(tmp_path / "b" / "s.jsonl", *rows),
    }
    files["plain"] = write(
        tmp_path / "p" / "s.jsonl", rows[0], *[{**row, "odd": "\ud800"} for row in rows[1:]]
    )
    figures = []
    for kind, path in files.items():
        store = SessionStore(path.parent, use_cache=False, keep_text=kind == "browser")
        store.scan()
        [s] = store.listing().summaries
        figures.append((s.tokens, s.cost, s.modified, s.message_count, s.first_message, s.problems))
    assert figures[0] == figures[1] == figures[2]
    assert figures[0][3:] == (2, "question", [])


@pytest.mark.parametrize("piece", [7, 64, 300, 5000, 0], ids=[7, 64, 300, 5000, "ending-after-a-brace"])
def test_a_big_file_read_in_pieces_is_summarized_as_read_whole(
    tmp_path: Path, piece: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Pieces end anywhere: within the header, within a line (a long one spans several), right
    # after a line's closing brace with garbage behind it (pi: one malformed line), before a
    # last line still being written.
    from pi_sessions.core.listing.store import read_file_state
    from pi_sessions.core.reading import growth

    usage = {"input": 1, "output": 2, "totalTokens": 3, "cost": {"total": 0.25}}
    data = (
        jsonl(header(cwd="/home/u/" + "p" * 400), user("a", None, "first " + "x" * 900))
        + b'{"type":"message","id":"g","parentId":"a","message":{"role":"user","content":"no"}}garbage\n'
        + jsonl(*[assistant(f"b{i}", "a", "y" * (i * 37), i, usage=usage) for i in range(30)])
        + b'{"type":"message","id":"late","parentId":"b3","message":{"role":"user"'
    )
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    whole, read_whole = read_file_state(str(path))
    monkeypatch.setattr(growth, "PIECE_BYTES", piece or data.index(b"}garbage") + 1)
    pieces, read_pieces = read_file_state(str(path))
    assert whole is not None and pieces is not None and whole.summary is not None
    assert (pieces.summary, pieces.builder, read_pieces) == (whole.summary, whole.builder, read_whole)
    assert (whole.summary.message_count, whole.summary.problems) == (31, ["1 malformed line(s) skipped"])
    assert whole.builder is not None and whole.builder.offset < len(data)  # (the last line waits)


@pytest.mark.parametrize("big", [False, True], ids=["split", "viewed"])
def test_a_line_holding_two_entries_is_one_malformed_line(
    tmp_path: Path, big: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pi parses line by line: two entries on one line are not JSON, so neither counts; a blank
    # line elsewhere (which evens out a count of newlines against entries) changes nothing.
    if big:
        monkeypatch.setattr("pi_sessions.core.listing.summary.SPLIT_BYTES", 0)  # the path of files over 4 MB
    two = jsonl(user("b", "a", "second"))[:-1] + b" " + jsonl(user("c", "b", "third"))
    data = jsonl(header(), user("a", None, "first")) + two + b"\n" + jsonl(assistant("d", "a", "x", 1))
    (tmp_path / "s.jsonl").write_bytes(data)
    store = SessionStore(tmp_path, use_cache=False)
    store.scan()
    [s] = store.listing().summaries
    assert (s.entry_count, s.message_count, s.tip_count) == (2, 2, 1)
    assert s.problems == ["1 malformed line(s) skipped"]


def test_extras_branches_compaction_tokens(tmp_path: Path) -> None:
    write(
        tmp_path / "s.jsonl",
        header(),
        user("a", None, "q"),
        assistant("b", "a", "x", 1),
        assistant("c", "a", "y", 2),
        entry("compaction", "d", "c", 3, summary="s", firstKeptEntryId="c"),
    )
    store = SessionStore(tmp_path, use_cache=False)
    store.scan()
    [s] = store.listing().summaries
    assert (s.entry_count, s.tip_count, s.has_compaction, s.message_count, s.tokens) == (4, 2, True, 3, 30)


def test_warm_cache_reads_nothing_and_grown_file_reads_only_new_bytes(tmp_path: Path) -> None:
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    files = make_tree(root)
    first = SessionStore(root, cache_dir=cache)
    report = first.scan()
    assert report is not None
    assert report.read == 3 and not report.cache_loaded

    warm = SessionStore(root, cache_dir=cache)
    report = warm.scan()
    assert report is not None
    assert report.cache_loaded and report.read == 0 and report.bytes_read == 0 and report.unchanged == 3
    assert [s.id for s in warm.listing().summaries] == ["new", "old"]
    assert [s.path for s in warm.listing().summaries] == [str(files["new"]), str(files["old"])]
    assert warm.listing().summaries == first.listing().summaries  # the cache gives back what was read

    appended = jsonl(assistant("b", "u", "a reply", 9))
    with open(files["old"], "ab") as f:
        f.write(appended)
    grown = SessionStore(root, cache_dir=cache)
    report = grown.scan()
    assert report is not None
    assert report.grown == 1 and report.read == 0 and report.bytes_read == len(appended)
    old = grown.summary(str(files["old"]))
    assert old is not None and old.message_count == 2


def test_a_file_name_the_cache_cannot_hold_leaves_only_that_file_out(tmp_path: Path) -> None:
    """A session file whose name is not UTF-8 cannot be written into the cache: that file is
    read again on the next start, every other one comes from the cache, and both are listed."""
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    write(root / "--home-u-a--" / "plain.jsonl", header(id="plain", cwd="/home/u/a"), user("u", None, "hi"))
    odd = os.path.join(os.fsencode(root / "--home-u-a--"), b"\xff-odd.jsonl")
    with open(odd, "wb") as f:
        f.write(jsonl(header(id="odd", cwd="/home/u/a"), user("u", None, "hello")))
    first = SessionStore(root, cache_dir=cache)
    report = first.scan()
    assert report is not None
    assert report.read == 2 and report.cache_problem is None
    again = SessionStore(root, cache_dir=cache)
    report = again.scan()
    assert report is not None
    assert report.cache_loaded and report.read == 1 and report.unchanged == 1
    assert sorted(s.id for s in again.listing().summaries) == ["odd", "plain"]


def test_a_quick_scan_that_gives_up_leaves_its_cache_to_the_next_scan(tmp_path: Path) -> None:
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    make_tree(root)
    SessionStore(root, cache_dir=cache).scan()
    write(
        root / "--home-u-more--" / "more.jsonl", header(id="more", cwd="/home/u/more"), user("m", None, "q")
    )
    store = SessionStore(root, cache_dir=cache)
    assert store.scan(read_limit=1) is None  # the new file is more than one byte to read
    for old_cache in cache.iterdir():
        old_cache.unlink()  # the background scan does not need it again
    report = store.scan()
    assert report is not None
    assert report is not None and report.cache_loaded and report.unchanged == 3 and report.read == 1
    assert "more" in [s.id for s in store.listing().summaries]


def test_a_listing_taken_from_the_cache_first_is_checked_by_the_scan_that_follows(tmp_path: Path) -> None:
    """`load_cached` lists the sessions as the cache has them, looking at no file; `stale` says
    whether given files changed since; the scan that follows reads what changed and rewrites
    the cache only then."""
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    files = make_tree(root)
    _backdate_folders(root)  # (else they may look newer than the cache: see the next test)
    SessionStore(root, cache_dir=cache).scan()
    (cache_file,) = cache.iterdir()
    written = cache_file.stat().st_mtime_ns

    warm = SessionStore(root, cache_dir=cache)
    assert warm.load_cached() and not warm.load_cached()  # (once: it has entries then)
    assert [s.id for s in warm.listing().summaries] == ["new", "old"]
    assert not warm.stale([str(files["new"]), str(files["old"])])
    report = warm.scan()
    assert report is not None
    assert report is not None and report.cache_loaded and report.read == 0 and report.unchanged == 3
    assert cache_file.stat().st_mtime_ns == written  # nothing changed: not written again

    with open(files["old"], "ab") as f:
        f.write(jsonl(assistant("b", "u", "a reply", 9)))
    grown = SessionStore(root, cache_dir=cache)
    assert grown.load_cached()
    assert grown.stale([str(files["old"])]) and not grown.stale([str(files["new"])])
    assert grown.stale([str(root / "gone.jsonl")])  # not known, or gone: stale
    assert grown.summary(str(files["old"])).message_count == 1  # type: ignore[union-attr]
    report = grown.scan()
    assert report is not None
    assert report is not None and report.cache_loaded and report.grown == 1
    assert grown.summary(str(files["old"])).message_count == 2  # type: ignore[union-attr]
    assert cache_file.stat().st_mtime_ns != written

    assert not SessionStore(tmp_path / "empty", cache_dir=tmp_path / "no-cache").load_cached()


LONG_AGO = 1_600_000_000


def _backdate_folders(root: Path, when: int = LONG_AGO) -> None:
    """The root and its folders as if nothing was created in them since `when`."""
    for folder in (root, *(p for p in root.iterdir() if p.is_dir())):
        os.utime(folder, (when, when))


def test_a_session_created_or_deleted_since_the_cache_makes_it_stale(tmp_path: Path) -> None:
    """`stale` sees a folder changed since the cache's scan started: a file created, deleted
    or renamed there (the sessions it lists first may then be others). A change that leaves
    nothing to list (a file that is no session came and went) is recorded by the scan that
    follows: the next start trusts the cache again."""
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    files = make_tree(root)
    SessionStore(root, cache_dir=cache).scan()
    (cache_file,) = cache.iterdir()
    shown = [str(files["new"]), str(files["old"])]

    def stale() -> bool:
        store = SessionStore(root, cache_dir=cache)
        assert store.load_cached()
        return store.stale(shown)

    def scan() -> ScanReport:
        store = SessionStore(root, cache_dir=cache)
        assert store.load_cached() and store.stale(shown)
        report = store.scan()
        assert report is not None
        assert report is not None
        return report

    # (times set by hand: the kernel's clock is coarse, the slack around it not the point here)
    os.utime(cache_file, (LONG_AGO + 100, LONG_AGO + 100))  # the cache's scan
    _backdate_folders(root)  # the folders, older
    assert not stale()
    write(root / "--home-u-c--" / "newest.jsonl", header(id="c", cwd="/home/u/c"))
    _backdate_folders(root, LONG_AGO + 200)  # (a new folder: the root changed, after the cache)
    assert stale()
    assert scan().read == 1
    assert not stale()  # (the cache written by that scan, since)

    os.utime(cache_file, (LONG_AGO + 300, LONG_AGO + 300))
    scratch = root / "--home-u-a--" / "scratch.txt"
    scratch.write_text("x")
    scratch.unlink()
    _backdate_folders(root, LONG_AGO + 400)
    assert stale()
    report = scan()
    assert report is not None
    assert report.read == report.grown == report.vanished == 0
    assert not stale()  # the cache says when its scan looked, though nothing in it changed

    files["old"].unlink()
    assert stale()


def test_rewritten_prefix_is_read_again(tmp_path: Path) -> None:
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    files = make_tree(root)
    SessionStore(root, cache_dir=cache).scan()
    data = files["old"].read_bytes().replace(b"old question", b"OLD QUESTION")
    with open(files["old"], "r+b") as f:  # same inode, same size, different bytes, then one more line
        f.write(data)
        f.write(jsonl(assistant("b", "u", "x", 3)))
    store = SessionStore(root, cache_dir=cache)
    report = store.scan()
    assert report is not None
    assert report.read == 1 and report.grown == 0
    assert known(store.summary(str(files["old"]))).first_message == "OLD QUESTION"


def test_a_same_size_rewrite_with_its_mtime_put_back_is_read_again_live_and_from_the_cache(
    tmp_path: Path,
) -> None:
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    files = make_tree(root)
    store = SessionStore(root, cache_dir=cache)
    store.scan()
    data = files["old"].read_bytes().replace(b"old question", b"OLD QUESTION")
    rewrite_keeping_size_and_mtime(files["old"], data)
    warm = SessionStore(root, cache_dir=cache)  # a start after it, on the cache
    report = known(warm.scan())
    assert report.cache_loaded and report.read == 1
    assert known(warm.summary(str(files["old"]))).first_message == "OLD QUESTION"
    # While running: one look at the file (as the watcher does) reads it again.
    rewrite_keeping_size_and_mtime(files["old"], data.replace(b"OLD QUESTION", b"old QUESTION"))
    assert warm.take(
        str(files["old"]), read_growth(str(files["old"]), [warm.mark_for(str(files["old"]))])
    ) is (FileChange.REPLACED)
    assert known(warm.summary(str(files["old"]))).first_message == "old QUESTION"


def test_a_cache_written_for_another_sessions_root_is_not_used(tmp_path: Path) -> None:
    """The index cache says which root it was written for: one of another root (here a folder
    inside it, whose files have the same paths) under this root's name is rebuilt, not used."""
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    files = make_tree(root)
    SessionStore(root, cache_dir=cache).scan()
    inner = SessionStore(root / "--home-u-a--", cache_dir=cache)
    os.replace(SessionStore(root, cache_dir=cache).cache_path, inner.cache_path)
    report = known(inner.scan())
    assert not report.cache_loaded and report.read == 2  # its session and notes.jsonl
    assert "rebuilt" in (report.cache_problem or "")
    assert known(inner.summary(str(files["old"]))).first_message == "old question"


def test_texts_stay_in_the_cache_file_until_asked_and_survive_another_save(tmp_path: Path) -> None:
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    files = make_tree(root)
    SessionStore(root, cache_dir=cache, keep_text=True).scan()
    warm = SessionStore(root, cache_dir=cache, keep_text=True)
    warm.scan()
    assert warm.texts(str(files["old"])) == ["old question"]
    # Another file changes: the index is saved again, the others' states copied from the old file.
    with open(files["new"], "ab") as f:
        f.write(jsonl(assistant("b", "u", "a reply", 9)))
    report = warm.scan()
    assert report is not None
    assert report is not None and report.grown == 1
    again = SessionStore(root, cache_dir=cache, keep_text=True)
    report = again.scan()
    assert report is not None
    assert report is not None and report.cache_loaded and report.unchanged == 3
    assert again.texts(str(files["old"])) == ["old question"]
    assert again.texts(str(files["new"])) == ["new question", "a reply"]


def test_a_cache_cut_short_is_read_again(tmp_path: Path) -> None:
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    files = make_tree(root)
    store = SessionStore(root, cache_dir=cache, keep_text=True)
    store.scan()
    data = store.cache_path.read_bytes()
    store.cache_path.write_bytes(data[: len(data) - 40])  # the last state cut off
    again = SessionStore(root, cache_dir=cache, keep_text=True)
    report = again.scan()
    assert report is not None
    assert report is not None and not report.cache_loaded and report.read == 3
    assert "corrupt" in (report.cache_problem or "")
    assert again.texts(str(files["old"])) == ["old question"]


def test_a_damaged_state_reads_its_file_again_when_it_grows(tmp_path: Path) -> None:
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    files = make_tree(root)
    store = SessionStore(root, cache_dir=cache, keep_text=True)
    store.scan()
    data = store.cache_path.read_bytes()
    store.cache_path.write_bytes(data[:-60] + b"\xc1" * 60)  # bytes msgpack never holds
    with open(files["old"], "ab") as f:
        f.write(jsonl(assistant("b", "u", "a reply", 9)))
    with open(files["new"], "ab") as f:
        f.write(jsonl(assistant("b", "u", "another reply", 9)))
    again = SessionStore(root, cache_dir=cache, keep_text=True)
    report = again.scan()
    assert report is not None
    assert report is not None and report.cache_loaded and report.read + report.grown == 2
    assert {s.id: s.message_count for s in again.listing().summaries} == {"old": 2, "new": 2}
    assert again.texts(str(files["old"])) == ["old question", "a reply"]
    assert again.texts(str(files["new"])) == ["new question", "another reply"]


@pytest.mark.parametrize("damage", [b"garbage", b"\x00\x01", b""])
def test_corrupt_cache_is_ignored_and_rebuilt(tmp_path: Path, damage: bytes) -> None:
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    make_tree(root)
    store = SessionStore(root, cache_dir=cache)
    store.scan()
    store.cache_path.write_bytes(damage)
    again = SessionStore(root, cache_dir=cache)
    report = again.scan()
    assert report is not None
    assert not report.cache_loaded and report.read == 3
    assert report.cache_problem == "cache corrupt; rebuilt"  # the status line says so
    assert len(again.listing().summaries) == 2
    assert known(SessionStore(root, cache_dir=cache).scan()).cache_loaded


def test_a_vanished_file_leaves_the_listing_and_the_cache(tmp_path: Path) -> None:
    import gc

    root, cache = tmp_path / "sessions", tmp_path / "cache"
    files = make_tree(root)
    SessionStore(root, cache_dir=cache).scan()
    files["old"].unlink()
    store = SessionStore(root, cache_dir=cache)
    report = store.scan()
    assert report is not None
    assert (report.vanished, report.unchanged, report.read) == (1, 2, 0)
    assert [s.id for s in store.listing().summaries] == ["new"]
    again = SessionStore(root, cache_dir=cache)
    report = again.scan()
    assert report is not None
    assert (report.vanished, report.unchanged) == (0, 2)  # the cache was saved without it
    assert gc.isenabled()  # a scan pauses the garbage collector only while it reads


def test_unwritable_cache_is_not_fatal(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    make_tree(root)
    blocker = tmp_path / "cache-is-a-file"
    blocker.write_text("x")
    store = SessionStore(root, cache_dir=blocker)
    report = store.scan()
    assert report is not None
    assert report.cache_problem is not None and "cannot write" in report.cache_problem
    assert len(store.listing().summaries) == 2


def test_store_update_kinds(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    files = make_tree(root)
    store = SessionStore(root, use_cache=False)
    store.scan()
    path = str(files["old"])
    assert store.update(path) is FileChange.UNCHANGED
    with open(path, "ab") as f:
        f.write(jsonl(assistant("b", "u", "x", 3))[:20])
    assert store.update(path) is FileChange.UNCHANGED  # half a line: pending
    with open(path, "ab") as f:
        f.write(jsonl(assistant("b", "u", "x", 3))[20:])
    assert store.update(path) is FileChange.GREW
    assert known(store.summary(path)).message_count == 2
    with open(path, "r+b") as f:
        f.truncate(100)
    assert store.update(path) is FileChange.REPLACED
    os.unlink(path)
    assert store.update(path) is FileChange.VANISHED
    fresh = write(root / "--home-u-a--" / "fresh.jsonl", header(id="fresh"), user("u", None, "hi"))
    assert store.update(str(fresh)) is FileChange.APPEARED


def test_sessions_folder_is_never_written(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    make_tree(root)
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in root.rglob("*") if p.is_file()}
    store = SessionStore(root, cache_dir=tmp_path / "cache")
    store.scan()
    store.listing()
    after = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in root.rglob("*") if p.is_file()}
    assert before == after


def test_list_cwd_filter_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "sessions"
    make_tree(root)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cmd_list(str(root), "/home/u/a", as_json=True) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["id"] for r in rows] == ["old"]
    contract = {key: rows[0][key] for key in ("path", "id", "cwd", "name", "parentSessionPath", "created")}
    contract |= {key: rows[0][key] for key in ("modified", "messageCount", "firstMessage")}
    assert contract == {
        "path": str(root / "--home-u-a--" / "2025-01-01_old.jsonl"),
        "id": "old",
        "cwd": "/home/u/a",
        "name": None,
        "parentSessionPath": None,
        "created": "2025-03-01T10:00:00.000Z",
        "modified": "1970-01-01T00:00:00.001Z",  # pi takes the message's own time: 1 ms in helpers.user
        "messageCount": 1,
        "firstMessage": "old question",
    }


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the XDG rule is worked out on Linux only")
@pytest.mark.parametrize("xdg", [None, "", "relative/cache", "/abs/cache"])
def test_the_cache_lives_where_platformdirs_says(monkeypatch: pytest.MonkeyPatch, xdg: str | None) -> None:
    import platformdirs
    from pi_sessions.core.listing.index_cache import default_cache_dir

    if xdg is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    assert default_cache_dir() == Path(platformdirs.user_cache_path("pi-sessions"))


@pytest.mark.parametrize("odd_cache", ["fifo", "link to /dev/zero"])
def test_a_cache_that_is_not_a_regular_file_neither_hangs_list_nor_the_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, odd_cache: str
) -> None:
    root = tmp_path / "sessions"
    make_tree(root)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    cache = SessionStore(root).cache_path  # where `pi-sessions list` and the browser look
    cache.parent.mkdir(parents=True)
    if odd_cache == "fifo":
        os.mkfifo(cache)
    else:
        cache.symlink_to("/dev/zero")
    results: list[object] = []

    def run() -> None:
        results.append(SessionStore(root).scan(save=False))
        results.append(cmd_list(str(root), None, as_json=True))

    worker = threading.Thread(target=run, daemon=True)  # a hang fails the test, not the suite
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), "blocked on the cache file"
    report = results[0]
    assert isinstance(report, ScanReport) and not report.cache_loaded
    assert "not a regular file" in (report.cache_problem or "")
    assert results[1] == 0
    assert [json.loads(line)["id"] for line in capsys.readouterr().out.splitlines()] == ["new", "old"]


def _list_json(root: Path) -> list[dict]:
    """`pi-sessions list --json`, in this process (its index cache goes to XDG_CACHE_HOME)."""
    import contextlib
    import io

    from pi_sessions.app.cli import main as cli

    out = io.BytesIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8")
    with contextlib.redirect_stdout(stdout):
        assert cli(["list", "--session-dir", str(root), "--json"]) == 0
        stdout.flush()
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_a_same_size_rewrite_in_place_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    root = tmp_path / "sessions"
    rows = [header(id="s", cwd="/home/u/a"), user("u1", None, "first question")]
    rows += [
        assistant(f"a{i}", "u1" if i == 0 else f"a{i - 1}", "a long enough reply " * 5, i + 1)
        for i in range(4)
    ]
    rows += [entry("session_info", "n1", "a3", 9, name="alpha")]
    rows += [
        assistant(f"b{i}", "n1" if i == 0 else f"b{i - 1}", "more after the name " * 5, 10 + i)
        for i in range(4)
    ]
    path = write(root / "--home-u-a--" / "s.jsonl", *rows)
    assert [r["name"] for r in _list_json(root)] == ["alpha"]
    data = path.read_bytes()
    before = path.stat()
    with open(path, "r+b") as f:  # same inode, same size, a new name in the middle of the file
        f.write(data.replace(b'"alpha"', b'"omega"'))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
    assert path.stat().st_size == before.st_size and path.stat().st_ino == before.st_ino
    assert [r["name"] for r in _list_json(root)] == ["omega"]


async def test_an_index_built_by_list_does_not_serve_the_browsers_message_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`list` keeps no message texts in its index; the browser, starting on the same cache
    folder, must still find a word that only a reply holds."""
    from tests.helpers.app import lines_of, loaded, make_app, settled, until

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    root = tmp_path / "sessions"
    path = write(
        root / "--home-u-a--" / "s.jsonl",
        header(id="s", cwd="/home/u/a"),
        user("u1", None, "a plain question"),
        assistant("a1", "u1", "the answer mentions quokkas", 1),
    )
    write(root / "--home-u-b--" / "t.jsonl", header(id="t", cwd="/home/u/b"), user("u1", None, "another one"))
    assert len(_list_json(root)) == 2
    assert any((tmp_path / "xdg" / "pi-sessions").iterdir())  # list left its index there
    app = make_app(root, tmp_path / "xdg" / "pi-sessions")
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("slash", *"quokkas")
        await until(pilot, lambda: getattr(screen.sidebar.matches, "text", None) == "quokkas", "the search")
        await settled(pilot)
        session_list = screen.sidebar.session_list
        shown = [
            line
            for row, line in zip(session_list.rows, lines_of(session_list), strict=False)
            if row is not None
        ]
        assert any("quokkas" in line for line in shown), shown  # the reply's words, as a hit line
        assert any("/home/u/a" in line or "a plain question" in line for line in shown), shown
        assert not any("another one" in line for line in shown), shown
        await pilot.press("enter")
        await until(
            pilot, lambda: screen.session is not None and screen.session.path == str(path), "s opened"
        )


def test_a_big_cold_listing_read_in_two_processes_lists_every_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Past 48 MB to read, a cold listing splits the files between this process and a second
    one: every session is listed once, with the same summary as a listing of each alone."""
    from pi_sessions.app.cli import main as cli

    root = tmp_path / "sessions"
    big = "x" * (5 * 1024 * 1024)
    for i in range(10):
        tool = entry(
            "message", "t", "u", 1, message={"role": "toolResult", "content": [{"type": "text", "text": big}]}
        )
        write(
            root / f"--home-u-p{i % 3}--" / f"s{i}.jsonl",
            header(id=f"s{i}", cwd=f"/home/u/p{i % 3}", timestamp=f"2025-03-0{1 + i % 9}T10:00:00.000Z"),
            user("u", None, f"question {i}"),
            tool,
            *[assistant(f"a{k}", "t" if k == 0 else f"a{k - 1}", f"answer {k}", 2 + k) for k in range(i)],
        )
    assert sum(p.stat().st_size for p in root.rglob("*.jsonl")) > 48 * 1024 * 1024
    assert cli(["list", "--session-dir", str(root), "--json", "--no-cache"]) == 0
    listed = {row["id"]: row for row in map(json.loads, capsys.readouterr().out.splitlines())}
    assert sorted(listed) == sorted(f"s{i}" for i in range(10))
    for i in range(10):
        assert (listed[f"s{i}"]["messageCount"], listed[f"s{i}"]["firstMessage"]) == (2 + i, f"question {i}")


def test_lines_the_fast_decoder_refuses_are_summarized_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A lone surrogate anywhere in a line sends it down the listing's slow path: every
    figure of the summary must come out as for the same lines without it."""
    from pi_sessions.app.cli import main as cli

    usage = {"input": 10, "output": 5, "totalTokens": 15, "cost": {"total": 0.25}}
    rows = [
        header(id="s", cwd="/home/u/a"),
        user("u1", None, "first question", 1),
        assistant("a1", "u1", "a reply", 2, usage=usage),
        entry(
            "branch_summary",
            "b1",
            "u1",
            3,
            fromId="a1",
            summary="went elsewhere",
            usage={**usage, "totalTokens": 100},
        ),
        entry(
            "compaction",
            "c1",
            "b1",
            4,
            summary="so far",
            firstKeptEntryId="b1",
            usage={"input": 7, "output": 1},
        ),
        entry(
            "usage",
            "w1",
            "c1",
            5,
            kind="cache_warm",
            usage={"input": 1000, "output": 0, "cost": {"total": 1.5}},
        ),
        entry("session_info", "n1", "w1", 6, name="Named"),
        user("u2", "n1", "second question", 7),
    ]
    plain = write(tmp_path / "plain" / "s.jsonl", *rows)
    odd = write(tmp_path / "odd" / "s.jsonl", rows[0], *[{**row, "note": "\ud800"} for row in rows[1:]])
    assert b"\\ud800" in odd.read_bytes()
    listed = []
    for root in (plain.parent, odd.parent):
        assert cli(["list", "--session-dir", str(root), "--json", "--no-cache"]) == 0
        [row] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        listed.append({k: v for k, v in row.items() if k != "path" and k != "size"})
    assert listed[0] == listed[1]
    assert (listed[0]["tokens"], listed[0]["cost"], listed[0]["messageCount"]) == (
        15 + 100 + 8 + 1000,
        2.0,
        3,
    )
    assert (listed[0]["name"], listed[0]["branchCount"], listed[0]["hasCompaction"]) == ("Named", 2, True)


def test_copies_of_a_session_are_listed_by_file_name_however_they_came() -> None:
    # Copies tie on both times: pi orders them by file name, descending; a listing already in
    # that order (the index cache keeps it) stays as it is, one out of it is sorted.
    import random

    from pi_sessions.core.listing.store import sort_newest_first
    from pi_sessions.core.listing.summary import SessionSummary

    def summary(folder: str, name: str, modified: float, mtime: int) -> SessionSummary:
        return SessionSummary(path=f"/s/{folder}/{name}.jsonl", modified_ms=modified, mtime_ns=mtime)

    rows = [summary(f, n, m, t) for f in "ab" for n in "xyz" for m, t in ((2.0, 5), (2.0, 7), (1.0, 9))]
    expected = sorted(rows, key=lambda s: (s.modified_ms, s.mtime_ns, os.path.basename(s.path)), reverse=True)
    for seed in range(20):
        shuffled = rows[:]
        random.Random(seed).shuffle(shuffled)
        sort_newest_first(shuffled)
        names = [(s.modified_ms, s.mtime_ns, os.path.basename(s.path)) for s in shuffled]
        assert names == [(s.modified_ms, s.mtime_ns, os.path.basename(s.path)) for s in expected]
        again = shuffled[:]
        sort_newest_first(again)
        assert again == shuffled  # (in order: the same list, ties in the same order)
    swapped = expected[:]
    swapped[0], swapped[2] = swapped[2], swapped[0]  # z before x, in one tie: out of order
    sort_newest_first(swapped)
    assert [os.path.basename(s.path) for s in swapped[:4]] == ["z.jsonl", "z.jsonl", "y.jsonl", "y.jsonl"]


def test_a_reply_whose_usage_total_is_not_finite_counts_as_the_session_counts_it(tmp_path: Path) -> None:
    """JSON can hold 1e400 (no double: infinity once parsed): the listing falls back to the
    usage's parts, as the session's own totals do, instead of listing infinite tokens."""
    head = json.dumps(header())
    reply = (
        '{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z",'
        '"message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"timestamp":1,'
        '"usage":{"input":5,"output":2,"totalTokens":1e400,"cost":{"total":1e400}}}}'
    )
    path = tmp_path / "--x--" / "s.jsonl"
    path.parent.mkdir()
    path.write_text(f"{head}\n{reply}\n")
    store = SessionStore(tmp_path, use_cache=False)
    store.scan()
    [s] = store.listing().summaries
    session = Session.open(path)
    assert (s.tokens, s.cost) == (
        sum(r.tokens for r in session.records),
        sum(r.cost for r in session.records),
    )
    assert (s.tokens, s.cost) == (7, 0)
