"""A line too long for its place gives up a path's middle before its end, and a shorter
wording of it is chosen before any cut (core/common/shorten.py)."""

from __future__ import annotations

import pytest
from pi_sessions.core.common.glyphs import ASCII
from pi_sessions.core.common.shorten import fit_first, fit_paths, is_path, shorten_middle
from rich.cells import cell_len

MOVED = (
    "moved /home/u/.pi/agent/sessions/--home-u-work-monorepo--/2025-03-01T10-00-00-000Z_0f3c.jsonl"
    " to /home/u/.local/share/Trash/files/2025-03-01T10-00-00-000Z_0f3c.jsonl"
)


@pytest.mark.parametrize("width", [160, 120, 100, 80, 60, 50])
def test_a_status_with_paths_keeps_its_words_and_the_file_names(width: int) -> None:
    line = fit_paths(MOVED, width)
    assert len(line) <= width
    assert line.startswith("moved /") and " to /" in line
    assert line.endswith("0f3c.jsonl") and line.split(" to ")[0].endswith("0f3c.jsonl")


def test_a_line_that_fits_is_untouched_and_words_are_not_paths() -> None:
    assert fit_paths(MOVED, len(MOVED)) == MOVED
    assert fit_paths("Sessions 29/69 · all folders and more words", 20) == "Sessions 29/69…"
    assert not is_path("29/69") and not is_path("and/or") and is_path("~/proj") and is_path("src/db/pool.ts")
    assert not is_path("[link=http://x]L[/link]") and not is_path("https://example.com/a/b")
    assert is_path("/tmp/x.jsonl:")  # (before a colon: still a path)


def test_middle_shortening_keeps_more_of_the_end() -> None:
    assert shorten_middle("/home/u/projects/app/src/main.py", 20) == "/home/u…/src/main.py"
    assert shorten_middle("/a/b", 10) == "/a/b"
    assert shorten_middle("/home/u/projects/app/src/main.py", 20, glyphs=ASCII) == "/home/...src/main.py"
    wide = shorten_middle("/home/日本語/日本語/テキスト.txt", 16, cell_len)
    assert cell_len(wide) <= 16 and wide.endswith(".txt")


def test_the_first_wording_that_fits() -> None:
    wordings = ["Sessions 29/69 · all folders · deep search · 29 found", "29/69 · deep · 29 found"]
    assert fit_first(wordings, 60) == wordings[0]
    assert fit_first(wordings, 40) == wordings[1]
    assert fit_first(wordings, 15) == "29/69 · deep…"
