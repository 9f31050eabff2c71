"""The size doctor's `o` (offload): a slim copy of the path, asked first, then opened."""

from __future__ import annotations

import shutil
from pathlib import Path

from pi_sessions.app.screens import ConfirmScreen
from pi_sessions.app.size_screen import SizeDoctorScreen
from pi_sessions.core.session.session import Session

from tests.helpers.app import loaded, make_app, until

SOURCE = Path(__file__).parents[1] / "fixtures" / "resume-checks" / "with-images.jsonl"


async def test_the_size_doctor_writes_a_slim_copy_and_opens_it(tmp_path: Path) -> None:
    folder = tmp_path / "sessions" / "--p--"
    folder.mkdir(parents=True)
    source = folder / "2025-03-01T10-00-00-000Z_src.jsonl"
    shutil.copy(SOURCE, source)
    before = source.read_bytes()
    app = make_app(tmp_path / "sessions", tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("S")
        await until(pilot, lambda: isinstance(app.screen, SizeDoctorScreen), "the size doctor")
        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question.startswith("Write a slim copy? 1 moved out")  # the image (leaf b1)
        await pilot.press("y")
        await until(pilot, lambda: len(list(folder.glob("*.jsonl"))) == 2, "the slim copy")
        [copy] = [p for p in folder.glob("*.jsonl") if p != source]
        assert [p.name for p in (folder / (copy.stem + ".slim")).iterdir()] == ["u1-1.png"]
        assert "moved out by pi-sessions slim" in copy.read_text()
        assert source.read_bytes() == before
        assert Session.open(copy).default_leaf == "b1"
        await until(
            pilot, lambda: screen.session is not None and screen.session.path == str(copy), "the copy opened"
        )
