"""What the model knew of each file at a leaf, and the paths shell commands name."""

from __future__ import annotations

from pathlib import Path

import pytest
from pi_sessions.core.common.problems import UnknownEntryError
from pi_sessions.core.projection.bashpaths import Access, named_paths
from pi_sessions.core.projection.file_knowledge import (
    FileState,
    FileTracker,
    files_at,
    normalise_path,
    seen_text,
)
from pi_sessions.core.session.session import Session

from tests.helpers.checks import known
from tests.helpers.sessions import assistant, header, user, write
from tests.helpers.tools import call, compaction, context_edit, tool_result, tool_use, user_bash

CWD = "/home/u/proj"  # helpers.header's cwd


def _open(tmp_path: Path, *entries: dict) -> Session:
    return Session.open(write(tmp_path / "s.jsonl", header(), *entries))


def _work() -> list[dict]:
    """Reads, an edit, a shell command and a failed write, up to e8."""
    return [
        user("e0", None, "fix the pool", 0),
        tool_use("e1", "e0", 1, call("read", "c1", path="src/pool.ts", offset=10, limit=20)),
        tool_result("e2", "e1", 2, "c1", "read", "10\tconst size = 5;"),
        tool_use(
            "e3",
            "e2",
            3,
            call("edit", "c2", path="./src/pool.ts", edits=[{"oldText": "size = 5", "newText": "size = 9"}]),
        ),
        tool_result("e4", "e3", 4, "c2", "edit", "Successfully replaced 1 block(s) in ./src/pool.ts."),
        tool_use("e5", "e4", 5, call("bash", "c3", command="cat README.md && rm -f old.txt")),
        tool_result("e6", "e5", 6, "c3", "bash", "# Project\n"),
        tool_use("e7", "e6", 7, call("write", "c4", path="/home/u/proj/notes.md", content="x")),
        tool_result("e8", "e7", 8, "c4", "write", "EACCES", error=True),
        assistant("e9", "e8", "done", 9),
    ]


def _by_path(session: Session, leaf: str) -> dict:
    return {f.display: f for f in files_at(session, leaf).files}


def test_every_touched_file_with_its_last_read_and_edit(tmp_path: Path) -> None:
    session = _open(tmp_path, *_work())
    report = files_at(session, "e9")
    assert [f.display for f in report.files] == ["src/pool.ts", "README.md", "old.txt", "notes.md"]
    files = _by_path(session, "e9")
    pool = files["src/pool.ts"]
    assert pool.path == f"{CWD}/src/pool.ts"  # `./src/pool.ts` and `src/pool.ts` are one file
    assert (pool.last_read.entry.id, pool.last_edit.entry.id) == ("e2", "e3")  # the result; the call
    assert pool.last_read.detail == "lines 10-29"
    assert pool.state is FileState.IN_CONTEXT and pool.in_context
    readme = files["README.md"]
    assert (readme.last_read.entry.id, readme.last_read.verb, readme.last_edit) == ("e6", "cat", None)
    old = files["old.txt"]
    assert (old.last_edit.entry.id, old.last_edit.verb, old.last_read) == ("e5", "rm", None)
    # a failed write tells nothing: the file is named, never seen
    notes = files["notes.md"]
    assert notes.state is FileState.NEVER_SEEN and not notes.in_context
    assert notes.last_edit is None and [t.error for t in notes.touches] == [True]


def test_a_file_in_a_sibling_folder_sharing_the_cwds_prefix_is_shown_whole(tmp_path: Path) -> None:
    """`/home/u/proj-b/x.ts` is not inside `/home/u/proj`: shown as it is, not as `-b/x.ts`."""
    session = _open(
        tmp_path,
        user("u1", None, "look", 1),
        tool_use(
            "a1", "u1", 2, call("read", "c1", path=f"{CWD}-b/x.ts"), call("read", "c2", path=f"{CWD}/y.ts")
        ),
        tool_result("r1", "a1", 3, "c1", "read", "x"),
        tool_result("r2", "r1", 4, "c2", "read", "y"),
    )
    assert [f.display for f in files_at(session, "r2").files] == [f"{CWD}-b/x.ts", "y.ts"]


def test_a_tool_call_whose_result_lies_beyond_the_leaf_did_not_happen(tmp_path: Path) -> None:
    session = _open(tmp_path, *_work())
    assert files_at(session, "e1").files == []
    assert [f.display for f in files_at(session, "e2").files] == ["src/pool.ts"]


def test_states_across_a_compaction(tmp_path: Path) -> None:
    session = _open(
        tmp_path, *_work(), compaction("k", "e9", 20, first_kept="e5"), user("u", "k", "go on", 21)
    )
    files = _by_path(session, "u")
    pool = files["src/pool.ts"]
    assert pool.state is FileState.SUMMARIZED and pool.by == "k" and not pool.in_context
    assert pool.visible is None
    assert files["README.md"].state is FileState.IN_CONTEXT  # e6 is in the kept range
    assert files["old.txt"].state is FileState.IN_CONTEXT


def test_states_across_omitting_and_replacing_context_edits(tmp_path: Path) -> None:
    session = _open(
        tmp_path,
        *_work(),
        context_edit("x1", "e9", 20, "e6", None),  # the cat output goes
        context_edit("x2", "x1", 21, "e3", None),  # so does the edit call
        user("u", "x2", "go on", 22),
        context_edit("r1", "e9", 30, "e2", {"content": "[read elided]"}),
        user("v", "r1", "go on", 31),
    )
    files = _by_path(session, "u")
    readme = files["README.md"]
    assert readme.state is FileState.OMITTED and readme.by == "x1" and not readme.in_context
    pool = files["src/pool.ts"]
    # the latest touch (the edit) is omitted; the earlier read is still what the model sees
    assert pool.state is FileState.OMITTED and pool.by == "x2"
    assert pool.visible is not None and pool.visible.entry.id == "e2"
    assert str(pool.edit_fate.reason) == "omitted" and str(pool.read_fate.reason) == "sent"
    replaced = _by_path(session, "v")["src/pool.ts"]
    assert replaced.state is FileState.IN_CONTEXT  # the latest touch, the edit, is sent as it was
    assert str(replaced.read_fate.reason) == "replaced" and replaced.read_fate.by == "r1"
    assert replaced.visible.entry.id == "e3"


def test_a_replaced_latest_read_is_not_in_context(tmp_path: Path) -> None:
    session = _open(
        tmp_path,
        *_work()[:3],
        context_edit("r1", "e2", 5, "e2", {"content": "[elided]"}),
    )
    [pool] = files_at(session, "r1").files
    assert pool.state is FileState.REPLACED and pool.by == "r1" and not pool.in_context


def test_the_exact_text_the_model_saw(tmp_path: Path) -> None:
    session = _open(tmp_path, *_work(), user_bash("b1", "e9", 10, "head -n 3 Makefile", "all:\n\tmake"))
    files = _by_path(session, "b1")
    read = seen_text(session, files["src/pool.ts"].last_read)
    assert (read.entry_id, read.source, read.text) == ("e2", "tool-result", "10\tconst size = 5;")
    edit = seen_text(session, files["src/pool.ts"].last_edit)
    assert edit.entry_id == "e3" and edit.source == "tool-call"
    assert edit.arguments["edits"] == [{"oldText": "size = 5", "newText": "size = 9"}]
    assert "size = 5" in edit.text and "size = 9" in edit.text
    assert seen_text(session, files["README.md"].last_read).text == "# Project\n"
    assert seen_text(session, files["old.txt"].last_edit).text == "cat README.md && rm -f old.txt"
    make = files["Makefile"].last_read
    assert make.tool == "user-bash" and make.verb == "head"
    assert seen_text(session, make).text == "all:\n\tmake"


def test_user_commands_excluded_from_context_tell_nothing(tmp_path: Path) -> None:
    session = _open(
        tmp_path,
        user("u0", None, "hi", 0),
        user_bash("b1", "u0", 1, "cat secret.txt", "s3cr3t", exclude=True),
        user_bash("b2", "b1", 2, "cat shown.txt", "hello"),
    )
    files = _by_path(session, "b2")
    assert files["secret.txt"].state is FileState.NEVER_SEEN and files["secret.txt"].touches[0].hidden
    assert files["shown.txt"].state is FileState.IN_CONTEXT


def test_calls_are_found_without_a_tool_use_stop_and_edits_in_pis_legacy_shape(tmp_path: Path) -> None:
    session = _open(
        tmp_path,
        user("u0", None, "hi", 0),
        tool_use("a1", "u0", 1, call("edit", "c1", path="@lib/x.py", oldText="a", newText="b"), stop="stop"),
        tool_result("r1", "a1", 2, "c1", "edit", "ok"),
        tool_use(
            "a2", "r1", 3, call("ls", "c2", path="lib"), call("grep", "c3", pattern="x", path="lib/x.py")
        ),
        tool_result("r2", "a2", 4, "c2", "ls", "x.py"),
        tool_result("r3", "r2", 5, "c3", "grep", "x.py:1: a"),
    )
    files = _by_path(session, "r3")
    assert list(files) == ["lib/x.py", "lib"]  # pi strips a leading `@` from tool paths
    x = files["lib/x.py"]
    assert x.last_edit.entry.id == "a1" and [t.verb for t in x.touches] == ["edit", "grep"]
    assert seen_text(session, x.last_edit).text == "--- old\na\n+++ new\nb"
    assert files["lib"].state is FileState.NEVER_SEEN


def test_a_tracker_follows_the_leaf_and_refuses_unknown_ids(tmp_path: Path) -> None:
    session = _open(tmp_path, *_work(), compaction("k", "e9", 20, first_kept="e5"))
    tracker = FileTracker(session)
    assert known(tracker.files_at("e9").get(f"{CWD}/src/pool.ts")).state is FileState.IN_CONTEXT
    assert known(tracker.files_at("k").get(f"{CWD}/src/pool.ts")).state is FileState.SUMMARIZED
    # a projection of another leaf handed in is not taken for this one
    other = tracker.files_at("e9").projection
    assert known(tracker.files_at("k", other).get(f"{CWD}/src/pool.ts")).state is FileState.SUMMARIZED
    with pytest.raises(UnknownEntryError):
        tracker.files_at("nope")


@pytest.mark.parametrize(
    "raw, cwd, tool, want",
    [
        ("src/a.ts", "/p", False, "/p/src/a.ts"),
        ("./src/../lib/a.ts", "/p", False, "/p/lib/a.ts"),
        ("/etc/hosts", "/p", False, "/etc/hosts"),
        ("~/notes.md", "/p", False, "~/notes.md"),
        ("~/a/../b.md", "/p", True, "~/b.md"),
        ("~bob/x", "/p", False, "~bob/x"),  # a shell expands it
        ("~bob/x", "/p", True, "/p/~bob/x"),  # pi's tools do not
        ("@src/a.ts", "/p", True, "/p/src/a.ts"),
        ("@src/a.ts", "/p", False, "/p/@src/a.ts"),  # `@` is only stripped by pi's tools
        ("file:///tmp/x%20y.txt", "/p", True, "/tmp/x y.txt"),
        ("a\u00a0b.txt", "/p", True, "/p/a b.txt"),
        ("src/a.ts", "", False, "src/a.ts"),
        ("src\\a.ts", "C:\\work", False, "C:\\work\\src\\a.ts"),
    ],
)
def test_paths_are_normalised_against_the_cwd(raw: str, cwd: str, tool: bool, want: str) -> None:
    assert normalise_path(raw, cwd, tool) == want


R, E, N = Access.READ, Access.EDIT, Access.OTHER  # read, edit, named only


@pytest.mark.parametrize(
    "command, want",
    [
        ("cat src/a.ts", [("src/a.ts", R, "cat")]),
        ("cat -n a.txt b.txt", [("a.txt", R, "cat"), ("b.txt", R, "cat")]),
        ("head -n 20 README.md | tail -5", [("README.md", R, "head")]),
        ("sed -n '1,20p' x.py", [("x.py", R, "sed")]),
        ("sed -i 's/a/b/' x.py y.py", [("x.py", E, "sed -i"), ("y.py", E, "sed -i")]),
        ("sed -i '' -e 's/a/b/' x.py", [("x.py", E, "sed -i")]),
        ("grep -rn 'foo bar' src/ --include=*.ts", [("src/", N, "grep")]),
        ("rg -n -g '*.ts' fetchData src", [("src", N, "rg")]),
        ("grep -e pat -e other f.txt", [("f.txt", N, "grep")]),
        ("ls -la src", [("src", N, "ls")]),
        ("rm -rf build dist", [("build", E, "rm"), ("dist", E, "rm")]),
        ("mv a.txt b.txt", [("a.txt", E, "mv"), ("b.txt", E, "mv")]),
        ("cp a.txt b.txt", [("a.txt", N, "cp"), ("b.txt", E, "cp")]),
        ("touch new.md", [("new.md", E, "touch")]),
        ("echo hi > out.txt", [("out.txt", E, ">")]),
        ("echo hi >> log.txt 2>&1", [("log.txt", E, ">>")]),
        ("npm test 2>&1 | tee test.log", [("test.log", E, "tee")]),
        ("cat src/a.ts 2>/dev/null", [("src/a.ts", R, "cat")]),
        ("cd src && cat a.ts", [("src/a.ts", R, "cat")]),
        ("(cd src && cat a.ts); cat b.ts", [("src/a.ts", R, "cat"), ("b.ts", R, "cat")]),
        ("cd $DIR && cat a.ts && cat /etc/x", [("/etc/x", R, "cat")]),  # unknown cwd: only absolute paths
        ("cat > f.py <<'EOF'\ncat not_a_command.txt\nEOF\ncat g.py", [("f.py", E, ">"), ("g.py", R, "cat")]),
        ("python3 -u scripts/run.py --fast out.txt", [("scripts/run.py", N, "python3")]),
        ("python -m pytest tests/test_a.py", []),
        ("sudo -u root FOO=1 cat /etc/shadow", [("/etc/shadow", R, "cat")]),
        ('cat "my file.txt" $HOME/x *.py `pwd`/y', [("my file.txt", R, "cat")]),
        ("cat a.txt # cat b.txt", [("a.txt", R, "cat")]),
        ("git status --short", []),
        ("npm test", []),
        ("grep '>' notes.txt", [("notes.txt", N, "grep")]),  # a quoted `>` is no redirection
        ("echo 'unterminated", []),
        ("for f in *.ts; do cat $f; done", []),
        ("if [ -f a.txt ]; then cat a.txt; fi", [("a.txt", R, "cat")]),
    ],
)
def test_shell_commands_name_paths_conservatively(command: str, want: list[tuple[str, Access, str]]) -> None:
    assert [(p.path, p.access, p.verb) for p in named_paths(command)] == want
