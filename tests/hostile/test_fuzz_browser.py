"""Seeded fuzzing of the browser, headless: the fuzz test's damaged sessions opened in the real
app, every screen a key opens visited, and nothing may raise or draw a raw control character.

PI_SESSIONS_FUZZ_APP_CASES=200 runs more cases (default 6); PI_SESSIONS_FUZZ_SEED picks another seed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pi_sessions.app.main_screen import MainScreen

from tests.helpers.app import make_app, screen_text, until
from tests.helpers.cli import raw_controls
from tests.helpers.damage import SEED, case_rng, damaged

CASES = int(os.environ.get("PI_SESSIONS_FUZZ_APP_CASES", "6"))
# Each screen a key opens, then back: the raw JSON, what is not in context, files, the
# compaction audit, the size doctor, labels, the help; and moves through the tree.
KEYS = ["tab", "j", "j", "end", "home", "i", "escape", "x", "x", "w", "escape", "A", "escape", "S", "escape",
        "number_sign", "escape", "question_mark", "escape", "tab", "tab", "k", "right_square_bracket", "v", "v"]  # fmt: skip


@pytest.mark.parametrize("case", range(CASES))
async def test_damaged_sessions_never_break_the_browser(case: int, tmp_path: Path) -> None:
    """One case a test: xdist spreads them over its workers (six in one test held one worker)."""
    data, name, applied = damaged(case_rng(SEED + 1, case))
    folder = tmp_path / f"case{case}" / "--home-u-fuzz--"
    folder.mkdir(parents=True)
    path = folder / name
    path.write_bytes(data)
    problems: list[str] = []
    try:
        app = make_app(folder.parent, tmp_path / f"cache{case}", open_path=path)
        async with app.run_test(size=(120, 40)) as pilot:
            await until(
                pilot,
                lambda: isinstance(pilot.app.screen, MainScreen) and pilot.app.screen.scanned,
                "the scan",
            )
            for key in KEYS:
                await pilot.press(key)
                await pilot.pause(0.01)
                problems += [f"after {key}: {c}" for c in raw_controls(screen_text(app))[:3]]
    except Exception as e:  # the app raised (run_test re-raises what crashed it)
        problems.append(f"{type(e).__name__}: {e}")
    assert not problems, ascii(
        f"seed {SEED + 1}, case {case} ({', '.join(applied)}; kept at {path}): {problems[:5]}"
    )
