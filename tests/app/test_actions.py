"""Acting on sessions: fork, clone, rename, label, delete, export, copy and resume."""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from pi_sessions.app.screens import ConfirmScreen, ForkScreen, MenuScreen, PromptScreen
from pi_sessions.core.common.locations import encode_cwd_folder
from pi_sessions.core.common.problems import SessionError
from pi_sessions.core.projection.context import project
from pi_sessions.core.session.session import Session
from pi_sessions.core.writing.append import append_label, append_session_name
from pi_sessions.core.writing.export import export_context, export_tree
from pi_sessions.core.writing.fork import plan_fork, write_fork
from pi_sessions.core.writing.trash import move_to_trash

from tests.helpers.app import loaded, make_app, static_text, until
from tests.helpers.checks import known
from tests.helpers.corpus import expected_files, load_expected, session_path_for
from tests.helpers.sessions import assistant, calls, entry, header, system, user, write


def small_session(folder: Path, name: str = "2025-03-01T10-00-00-000Z_src.jsonl") -> Path:
    return write(
        folder / name,
        header(id="src", cwd="/home/u/proj"),
        user("u1", None, "first", 1),
        assistant("a1", "u1", "reply", 2),
        entry("label", "l1", "a1", 3, targetId="u1", label="start"),
        user("u2", "l1", "second", 4),
        assistant("a2", "u2", "another reply", 5),
        user("b1", "a1", "a branch", 6),
    )


# ---------------------------------------------------------------------- fork
@pytest.mark.parametrize("expected_path", expected_files(), ids=lambda p: p.name[:30])
def test_forked_file_has_the_same_context_at_its_leaf(expected_path: Path, tmp_path: Path) -> None:
    exp = load_expected(expected_path)
    if exp.get("open_error") or exp.get("leaves_mode") in (None, "entries-without-ids"):
        return
    source = Session.open(session_path_for(expected_path, exp))
    ids = source.entry_ids()
    pi_ids = exp["entry_ids"]
    to_ours = dict(zip(pi_ids, ids, strict=True)) if exp.get("ids_are_random") else {}
    for branch in exp.get("branch_files") or []:
        if not branch.get("written"):
            continue
        leaf = to_ours.get(branch["leaf"], branch["leaf"])
        plan = plan_fork(source, leaf, folder=str(tmp_path))
        written = Session.open(write_fork(plan))
        assert known(written.header)["parentSession"] == source.path
        before, after = project(source, leaf), project(written, known(written.default_leaf))
        assert after.messages(written) == before.messages(source)
        assert (after.model, after.thinking_level) == (before.model, before.thinking_level)
        assert written.labels == {
            t: label for t, label in source.labels.items() if t in {r.id for r in before.path}
        }


def test_fork_into_another_cwd_uses_pis_folder_encoding(tmp_path: Path) -> None:
    source = Session.open(small_session(tmp_path / "sessions" / "--home-u-proj--"))
    target_cwd = tmp_path / "other project"
    folder = tmp_path / "sessions" / encode_cwd_folder(str(target_cwd))
    plan = plan_fork(source, "a2", cwd=str(target_cwd), folder=str(folder))
    path = write_fork(plan)
    assert Path(path).parent.name == "--" + str(target_cwd).lstrip("/").replace("/", "-") + "--"
    forked = Session.open(path)
    assert forked.cwd == str(target_cwd)
    assert forked.entry_ids()[:4] == ["u1", "a1", "u2", "a2"] and forked.labels == {"u1": "start"}


def test_fork_never_overwrites_and_leaves_nothing_behind(tmp_path: Path) -> None:
    source = Session.open(small_session(tmp_path / "s"))
    plan = plan_fork(source, "a2", folder=str(tmp_path / "out"))
    first = write_fork(plan)
    original = Path(first).read_bytes()
    with pytest.raises(SessionError, match="already exists"):
        write_fork(plan)
    assert Path(first).read_bytes() == original
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [Path(first).name]


def test_fork_into_an_unusable_folder_is_a_clear_error(tmp_path: Path) -> None:
    source = Session.open(small_session(tmp_path / "s"))
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    for folder in (blocker, blocker / "sub"):
        with pytest.raises(SessionError, match=f"cannot create the folder {folder}: "):
            write_fork(plan_fork(source, "a2", folder=str(folder)))
    assert blocker.read_text() == "x"


async def test_a_fork_that_cannot_be_written_says_so_and_the_app_goes_on(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    small_session(root / "--home-u-proj--")
    (root / "--home-u-other--").write_text("a file where that directory's sessions would go")
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("tab", "f")
        await until(pilot, lambda: isinstance(app.screen, ForkScreen), "the preview")
        await pilot.press("c")  # into another directory
        await until(pilot, lambda: isinstance(app.screen, PromptScreen), "the question")
        await pilot.press("home", "ctrl+k", *"/home/u/other", "enter")
        await until(pilot, lambda: isinstance(app.screen, ForkScreen), "the new preview")
        await pilot.press("enter")
        await until(pilot, lambda: "fork failed" in static_text(screen, "#status"), "the failure")
        assert "cannot create the folder" in static_text(screen, "#status")
        await pilot.press("k")  # still usable
        assert app.is_running and len(list((root / "--home-u-proj--").iterdir())) == 1


# Runs its command with the folder "$1" read-only, for root too: a read-only bind mount in a
# private mount namespace (a permission bit does not stop root; a read-only mount does).
READ_ONLY_MOUNT = (
    'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && echo mounted >&2 && shift && exec "$@"'
)
NAMESPACES = (
    ["unshare", "--mount", "--propagation", "private"],
    ["unshare", "--user", "--map-root-user", "--mount", "--propagation", "private"],
)


def run_with_read_only_folder(folder: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    if os.geteuid() != 0:
        files = [p for p in folder.iterdir() if p.is_file()]
        for path in files:
            path.chmod(stat.S_IRUSR)
        folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
        try:
            return subprocess.run(args, capture_output=True, text=True)
        finally:
            folder.chmod(stat.S_IRWXU)
            for path in files:
                path.chmod(stat.S_IRUSR | stat.S_IWUSR)
    if shutil.which("unshare") is not None:
        for namespace in NAMESPACES:
            out = subprocess.run(
                [*namespace, "sh", "-c", READ_ONLY_MOUNT, "sh", str(folder), *args],
                capture_output=True,
                text=True,
            )
            if out.stderr.startswith("mounted\n"):
                out.stderr = out.stderr.removeprefix("mounted\n")
                return out
    pytest.skip("running as root without a mount namespace: no way to make a folder read-only for root")


def test_fork_into_a_read_only_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "read-only"
    source = small_session(folder)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    out = run_with_read_only_folder(
        folder, [sys.executable, "-m", "pi_sessions.app.cli", "fork", str(source), "--leaf", "a2"]
    )
    assert out.returncode == 2, out
    [line] = out.stderr.splitlines()
    assert line.startswith(f"pi-sessions: cannot create a file in {folder}: "), line
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before  # nothing left behind


LABEL_IT = """
import sys
from pi_sessions.core.writing.append import append_label
from pi_sessions.core.common.problems import SessionError
from pi_sessions.core.session.session import Session
try:
    append_label(Session.open(sys.argv[1]), "u1", "important")
except SessionError as e:
    print(e)
    sys.exit(3)
"""


def test_a_label_on_a_read_only_file_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "read-only"
    path = small_session(folder)
    before = path.read_bytes()
    out = run_with_read_only_folder(folder, [sys.executable, "-c", LABEL_IT, str(path)])
    assert out.returncode == 3, out
    assert out.stdout.startswith(f"cannot open {path} for appending: "), out.stdout
    assert path.read_bytes() == before


def test_a_fork_gets_a_time_ordered_id_named_like_pi_names_files(tmp_path: Path) -> None:
    source = Session.open(small_session(tmp_path / "s"))
    now = 1740823200123  # 2025-03-01T10:00:00.123Z
    plan = plan_fork(source, "a2", now_ms=now)
    header = plan.header
    assert header["timestamp"] == "2025-03-01T10:00:00.123Z"
    sid = header["id"]
    assert len(sid) == 36 and sid.count("-") == 4
    digits = sid.replace("-", "")
    assert digits[:12] == f"{now:012x}" and digits[12] == "7" and digits[16] in "89ab"  # UUIDv7
    assert plan.file_name == f"2025-03-01T10-00-00-123Z_{sid}.jsonl"
    other = plan_fork(source, "a2", now_ms=now).header["id"].replace("-", "")
    assert other[:13] == digits[:13] and other[-12:] != digits[-12:]  # the rest is random
    [label] = [line for line in plan.lines if line["type"] == "label"]
    assert len(label["id"]) == 8 and int(label["id"], 16) >= 0 and label["id"] not in source.by_id


def test_a_copy_that_fails_where_links_are_not_allowed_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = Session.open(small_session(tmp_path / "s"))
    plan = plan_fork(source, "a2", folder=str(tmp_path / "out"))
    real_fsync = os.fsync
    synced: list[int] = []

    def no_links(src: str, dst: str) -> None:
        raise OSError(errno.EPERM, "hard links not supported")

    def full_on_the_second_file(fd: int) -> None:
        synced.append(fd)
        if len(synced) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(os, "link", no_links)
    monkeypatch.setattr(os, "fsync", full_on_the_second_file)
    with pytest.raises(SessionError, match="No space left"):
        write_fork(plan)
    assert list((tmp_path / "out").iterdir()) == []


def test_full_disk_leaves_no_half_written_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = Session.open(small_session(tmp_path / "s"))
    plan = plan_fork(source, "a2", folder=str(tmp_path / "out"))

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(SessionError, match="No space left"):
        write_fork(plan)
    assert list((tmp_path / "out").iterdir()) == []


def test_source_is_never_touched_by_a_fork(tmp_path: Path) -> None:
    path = small_session(tmp_path / "s")
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    write_fork(plan_fork(Session.open(path), "b1"))
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


# ---------------------------------------------------------------------- rename and label
def test_rename_and_label_append_lines_pi_reads_back(tmp_path: Path) -> None:
    path = small_session(tmp_path / "s")
    size = path.stat().st_size
    session = Session.open(path)
    line = append_session_name(session, "  Fix the\r\nscheduler  ")
    assert line["name"] == "Fix the scheduler" and line["parentId"] == "b1" and len(line["id"]) == 8
    appended = path.read_bytes()[size:]
    assert appended.count(b"\n") == 1 and appended.endswith(b"\n")
    reread = Session.open(path)
    assert reread.name == "Fix the scheduler" and reread.default_leaf == line["id"]
    label = append_label(reread, "a2", "good answer")
    assert label["parentId"] == line["id"]
    assert Session.open(path).labels == {"u1": "start", "a2": "good answer"}
    append_label(Session.open(path), "u1", None)
    assert Session.open(path).labels == {"a2": "good answer"}
    assert list(json.loads(path.read_text().splitlines()[-1])) == [
        "type",
        "id",
        "parentId",
        "timestamp",
        "targetId",
    ]


def test_appending_is_refused_while_a_line_is_being_written(tmp_path: Path) -> None:
    path = small_session(tmp_path / "s")
    with open(path, "ab") as f:
        f.write(b'{"type":"message","id":"half')
    before = path.read_bytes()
    with pytest.raises(SessionError, match="newline"):
        append_session_name(Session.open(path), "nope")
    assert path.read_bytes() == before


# ---------------------------------------------------------------------- delete and export
def test_delete_moves_the_file_to_the_trash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    path = small_session(tmp_path / "s")
    content = path.read_bytes()
    where = move_to_trash(path, use_command=False)
    assert not path.exists()
    assert Path(where).read_bytes() == content
    info = tmp_path / "data" / "Trash" / "info" / f"{path.name}.trashinfo"
    assert f"Path={path}" in info.read_text()


def test_exports_parse(tmp_path: Path) -> None:
    session = Session.open(small_session(tmp_path / "s"))
    md, js = export_context(session, "a2", str(tmp_path / "out"))
    data = json.loads(Path(js).read_text())
    assert data["messages"] == project(session, "a2").messages(session)
    assert data["leaf"] == "a2" and "## user · u2" in Path(md).read_text()
    md2, js2 = export_tree(session, str(tmp_path / "out"))
    tree = json.loads(Path(js2).read_text())
    assert [e["id"] for e in tree["entries"]] == session.entry_ids()
    assert "b1" in Path(md2).read_text()
    again, _ = export_context(session, "a2", str(tmp_path / "out"))
    assert again != md and Path(md).exists()  # a second export never overwrites the first


def test_context_export_shows_thinking_tool_calls_and_what_was_left_out(tmp_path: Path) -> None:
    thinking = {"type": "thinking", "thinking": "first I look\nthen I act"}
    call = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "ls -la", "timeout": 5}}
    result = {
        "role": "toolResult",
        "toolCallId": "c1",
        "toolName": "bash",
        "content": [{"type": "text", "text": "file.txt"}],
    }
    session = Session.open(
        write(
            tmp_path / "s.jsonl",
            header(id="exp"),
            system(
                "s0",
                None,
                0,
                sections={"rules": "be brief"},
                toolsAdded=[{"name": "bash", "description": "run"}],
            ),
            user("u1", "s0", "list the files", 1),
            assistant("a1", "u1", "", 2, content=[thinking, {"type": "text", "text": "Looking."}, call]),
            entry("message", "t1", "a1", 3, message=result),
            entry("context_edit", "e1", "t1", 4, targetId="u1", replacement=None),
            assistant("a2", "e1", "There is one file.", 5),
        )
    )
    md_path, js_path = export_context(session, "a2", str(tmp_path / "out"))
    md = Path(md_path).read_text()
    assert "- model: anthropic/claude-sonnet-4-5" in md and "- thinking: off" in md
    assert "## system prompt\n\nbe brief\n\nTools: bash\n" in md
    assert (
        "## assistant · a1\n\n> thinking: first I look\n> then I act\n\nLooking.\n\n**→ bash**\n```json\n"
        in md
    )
    assert '"command": "ls -la",\n  "timeout": 5' in md  # the arguments, pretty-printed
    assert "## toolResult · t1\n\nfile.txt" in md and "## user · u1" not in md and "## system ·" not in md
    assert "## Not in context\n\n- u1 (message): omitted by context edit e1" in md
    exported = json.loads(Path(js_path).read_text())
    assert exported["messages"] == project(session, "a2").messages(session)
    assert exported["excluded"] == [
        {"id": "u1", "reason": "omitted", "by": "e1", "why": "omitted by context edit e1"}
    ]
    assert exported["systemPrompt"]["sections"] == {"rules": "be brief"}


def test_context_export_before_any_model_says_so(tmp_path: Path) -> None:
    session = Session.open(write(tmp_path / "s.jsonl", header(id="early"), user("u1", None, "hello", 1)))
    md_path, js_path = export_context(session, "u1", str(tmp_path / "out"))
    md = Path(md_path).read_text()
    assert "- model: no model yet\n" in md
    assert json.loads(Path(js_path).read_text())["model"] is None


def test_tree_export_keeps_the_labels_of_its_entries_only(tmp_path: Path) -> None:
    """The exported tree names the label of each labelled entry (as pi resolves it: the last
    label wins, a cleared one is gone); a label on an entry the file does not have is left out."""
    path = write(
        tmp_path / "s.jsonl",
        header(id="labelled"),
        user("u1", None, "question", 1),
        assistant("a1", "u1", "answer", 2),
        entry("label", "l1", "a1", 3, targetId="u1", label="first try"),
        entry("label", "l2", "l1", 4, targetId="u1", label="the start"),
        entry("label", "l3", "l2", 5, targetId="a1", label="gone soon"),
        entry("label", "l4", "l3", 6, targetId="a1"),
        entry("label", "l5", "l4", 7, targetId="nowhere", label="orphan"),
    )
    _, js = export_tree(Session.open(path), str(tmp_path / "out"))
    assert json.loads(Path(js).read_text())["labels"] == {"u1": "the start"}


def test_tree_export_marks_the_active_path(tmp_path: Path) -> None:
    session = Session.open(small_session(tmp_path / "s"))
    md_path, _ = export_tree(session, str(tmp_path / "out"))
    rows = [line for line in Path(md_path).read_text().splitlines() if line.lstrip().startswith(("* ", "- "))]
    marks = {line.split()[1]: line.lstrip()[0] for line in rows if len(line.split()) > 1}
    assert marks["u1"] == marks["a1"] == marks["b1"] == "*" and marks["u2"] == marks["a2"] == "-"


# ---------------------------------------------------------------------- resume
async def test_resume_runs_pi_in_the_sessions_cwd_and_comes_back(tmp_path: Path, fake_pi: Path) -> None:
    project_dir = tmp_path / "project"
    project_dir.mkdir()
    root = tmp_path / "sessions"
    path = write(
        root / "--p--" / "s.jsonl", header(id="sid", cwd=str(project_dir)), user("u1", None, "hello")
    )
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("r")
        await until(pilot, lambda: calls(fake_pi), "pi to run")
        assert calls(fake_pi) == [[str(project_dir), "--session", str(path)]]
        await until(
            pilot, lambda: "back from pi" in str(screen.query_one("#status").render()), "the app back"
        )
        await pilot.press("tab", "k")  # usable again
        assert screen.active_pane == "tree"


async def test_fork_in_the_app_then_resume_the_fork(tmp_path: Path, fake_pi: Path) -> None:
    project_dir = tmp_path / "project"
    project_dir.mkdir()
    root = tmp_path / "sessions"
    folder = root / "--p--"
    write(
        folder / "2025-01-01T00-00-00-000Z_sid.jsonl",
        header(id="sid", cwd=str(project_dir)),
        user("u1", None, "hello", 1),
        assistant("a1", "u1", "hi", 2),
        user("u2", "a1", "more", 3),
    )
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("tab", "k")
        assert screen.branch_tree.current_id() == "a1"
        await pilot.press("f")
        # The fork flow runs the resume check in a thread before its screen comes: wait (on a
        # loaded machine it came after the key's own frame, and an assertion at once failed).
        await until(pilot, lambda: isinstance(app.screen, ForkScreen), "the fork screen")
        assert isinstance(app.screen, ForkScreen)
        preview = "\n".join(app.screen.lines)
        assert "2 entries" in preview and str(folder) in preview and "first message: hello" in preview
        await pilot.press("r")  # fork and resume
        await until(pilot, lambda: calls(fake_pi), "pi to run on the fork")
        forks = [p for p in folder.iterdir() if "sid" not in p.name]
        assert len(forks) == 1
        assert calls(fake_pi) == [[str(project_dir), "--session", str(forks[0])]]
        forked = Session.open(forks[0])
        assert forked.entry_ids() == ["u1", "a1"] and known(forked.header)["parentSession"].endswith(
            "_sid.jsonl"
        )
        await until(
            pilot,
            lambda: screen.session is not None and screen.session.path == str(forks[0]),
            "the fork opened",
        )


async def test_rename_label_delete_and_copy_from_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no `trash` command: the freedesktop trash
    monkeypatch.setenv("SSH_TTY", "/dev/pts/9")  # a copy goes to the terminal, as OSC 52
    monkeypatch.delenv("TMUX", raising=False)
    root = tmp_path / "sessions"
    path = small_session(root / "--home-u-proj--")
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("M")
        assert isinstance(app.screen, PromptScreen)
        await pilot.press(*"Renamed here", "enter")
        await until(pilot, lambda: Session.open(path).name == "Renamed here", "the name in the file")
        await until(
            pilot, lambda: any(s.name == "Renamed here" for s in screen.sidebar.summaries), "the sidebar"
        )
        await pilot.press("tab", "L", *"nice", "enter")
        labelled = screen.branch_tree.current_id()
        await until(pilot, lambda: Session.open(path).labels.get(labelled) == "nice", "the label")
        await pilot.press("y")
        assert isinstance(app.screen, MenuScreen)
        await pilot.press("2")  # the session's path
        await until(pilot, lambda: app.clipboard == str(path), "the copy")
        await pilot.press("shift+tab", "D")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await until(pilot, lambda: not path.exists(), "the file trashed")
        assert (tmp_path / "data" / "Trash" / "files" / path.name).exists()
        await until(pilot, lambda: not screen.sidebar.summaries, "the sidebar emptied")


def test_resume_subcommand_runs_pi(tmp_path: Path, fake_pi: Path) -> None:
    import subprocess
    import sys

    project_dir = tmp_path / "project"
    project_dir.mkdir()
    path = write(tmp_path / "s.jsonl", header(id="sid", cwd=str(project_dir)), user("u1", None, "hello"))
    out = subprocess.run(
        [sys.executable, "-m", "pi_sessions.app.cli", "resume", str(path)], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert calls(fake_pi) == [[str(project_dir), "--session", str(path)]]
    out = subprocess.run(
        [sys.executable, "-m", "pi_sessions.app.cli", "resume", str(path), "--print"],
        capture_output=True,
        text=True,
    )
    assert out.stdout.strip() == f"cd {project_dir} && pi --session {path}"


def test_lone_surrogates_survive_labels_and_exports(tmp_path: Path) -> None:
    """A lone surrogate is valid in a JS string: pi writes it as \\udXXXX. A label on such an
    entry must land on it, and exports must not fail on its text."""
    path = tmp_path / "s" / "odd.jsonl"
    path.parent.mkdir()
    path.write_bytes(
        b'{"type":"session","version":3,"id":"odd","timestamp":"2025-03-01T10:00:00.000Z","cwd":"/p"}\n'
        b'{"type":"message","id":"a\\ud800","parentId":null,"timestamp":"2025-03-01T10:00:01.000Z",'
        b'"message":{"role":"user","content":"half \\udc00 a pair","timestamp":1}}\n'
    )
    append_label(Session.open(path), "a\ud800", "odd one")
    reread = Session.open(path)
    assert reread.labels == {"a\ud800": "odd one"} and not reread.problems
    md, js = export_context(reread, reread.default_leaf or "", str(tmp_path / "out"))
    assert "half" in Path(md).read_text() and json.loads(Path(js).read_text())["leaf"]
    md, _ = export_tree(reread, str(tmp_path / "out"))
    assert "odd one" in Path(md).read_text()
