"""The resume check in the browser: one line in the fork preview, a question before `r` when
pi would meet something (resume anyway, or clone first and keep the original), and the files
view's mark on a file that changed on disk since the model saw it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pi_sessions.app.files_screen import FilesScreen
from pi_sessions.app.screens import ForkScreen, MenuScreen
from pi_sessions.core.session.session import Session

from tests.helpers.app import lines_of, loaded, make_app, until
from tests.helpers.checks import known
from tests.helpers.sessions import assistant, calls, entry, header, user, write


def orphan_session(folder: Path, cwd: Path, model: str = "claude-sonnet-4-5") -> Path:
    call = {"type": "toolCall", "id": "c1", "name": "ls", "arguments": {"path": "."}}
    return write(
        folder / "2025-01-01T00-00-00-000Z_sid.jsonl",
        header(id="sid", cwd=str(cwd)),
        user("u1", None, "hello", 1),
        assistant("a1", "u1", "", 2, content=[call], stopReason="toolUse", model=model),
    )


async def test_the_fork_preview_has_the_readiness_line(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    orphan_session(root / "--p--", tmp_path)
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("f")
        await until(pilot, lambda: isinstance(app.screen, ForkScreen), "the fork preview")
        assert isinstance(app.screen, ForkScreen)
        [line] = [x for x in app.screen.lines if x.startswith("at this entry: ")]
        assert line == "at this entry: pi 1.6.0: ready with warnings: tool call without result"


async def test_resume_with_warnings_asks_first_and_can_be_cancelled(tmp_path: Path, fake_pi: Path) -> None:
    root = tmp_path / "sessions"
    orphan_session(root / "--p--", tmp_path, model="claude-imaginary-9")
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the question")
        assert isinstance(app.screen, MenuScreen)
        assert app.screen.detail.splitlines()[0] == (
            "pi 1.6.0: ready with warnings: tool call without result; model not restored"
        )
        await pilot.press("3")  # cancel
        await pilot.pause()
        assert not calls(fake_pi)
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the question again")
        await pilot.press("1")  # resume anyway
        await until(pilot, lambda: calls(fake_pi), "pi to run")


async def test_a_legacy_file_can_be_cloned_before_pi_rewrites_it(tmp_path: Path, fake_pi: Path) -> None:
    root = tmp_path / "sessions"
    folder = root / "--p--"
    source = write(
        folder / "2025-01-01T00-00-00-000Z_sid.jsonl",
        header(id="sid", cwd=str(tmp_path), version=2),
        user("u1", None, "hello", 1),
        assistant("a1", "u1", "hi", 2),
    )
    before = source.read_bytes()
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the question")
        assert isinstance(app.screen, MenuScreen)
        assert "rewritten on open" in app.screen.detail
        await pilot.press("2")  # clone, then resume the clone
        await until(pilot, lambda: calls(fake_pi), "pi to run on the clone")
        [clone] = [p for p in folder.iterdir() if p != source]
        assert calls(fake_pi) == [[str(tmp_path), "--session", str(clone)]]
        assert source.read_bytes() == before
        assert known(Session.open(clone).header)["version"] == 3


async def test_a_clean_session_resumes_without_a_question(tmp_path: Path, fake_pi: Path) -> None:
    root = tmp_path / "sessions"
    write(
        root / "--p--" / "s.jsonl",
        header(id="sid", cwd=str(tmp_path)),
        user("u1", None, "hello", 1),
        assistant("a1", "u1", "hi", 2),
        entry("label", "l1", "a1", 3, targetId="u1", label="x"),
    )
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("r")
        await until(pilot, lambda: calls(fake_pi), "pi to run")


async def test_the_files_view_marks_a_file_deleted_or_changed_since(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    for name in ("kept.txt", "gone.txt", "later.txt"):
        (work / name).write_text(name)
        os.utime(work / name, (1740819600, 1740819600))  # 09:00, before the session
    lines: list[dict[str, Any]] = [header(id="sid", cwd=str(work)), user("u1", None, "read them", 1)]
    parent = "u1"
    for n, name in ((2, "kept.txt"), (4, "gone.txt"), (6, "later.txt")):
        call = {"type": "toolCall", "id": f"c{n}", "name": "read", "arguments": {"path": name}}
        result = {
            "role": "toolResult",
            "toolCallId": f"c{n}",
            "toolName": "read",
            "isError": False,
            "content": name,
        }
        lines += [
            assistant(f"a{n}", parent, "", n, content=[call], stopReason="toolUse"),
            entry("message", f"r{n}", f"a{n}", n + 1, message=result),
        ]
        parent = f"r{n}"
    root = tmp_path / "sessions"
    write(root / "--p--" / "s.jsonl", *lines)
    (work / "gone.txt").unlink()
    os.utime(work / "later.txt", (1740830400, 1740830400))  # 12:00, after its read
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("w")
        await until(pilot, lambda: isinstance(app.screen, FilesScreen), "the files view")
        view = app.screen
        assert isinstance(view, FilesScreen)
        await until(pilot, lambda: len(view.file_list.files) == 3, "the files")
        rows = {row.split()[1]: row for row in lines_of(view.file_list) if row.strip()}
        assert rows["gone.txt"].rstrip().endswith("deleted since")
        assert rows["later.txt"].rstrip().endswith("changed on disk since")
        assert "since" not in rows["kept.txt"]
