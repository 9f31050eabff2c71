"""At 80 columns the sidebar cuts titles to a word or two: sessions of one folder whose rows
would read the same are told apart (where their titles part, or when each started). A
context line cut to fit says so with an ellipsis."""

from __future__ import annotations

from pathlib import Path

import pytest
from pi_sessions.app.demo import prepare_demo

from tests.helpers.app import lines_of, loaded, make_app
from tests.helpers.sessions import assistant, header, user, write


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    return prepare_demo(tmp_path / "demo")


SAME = "The login form accepts empty passwords and nobody noticed"


def session(root: Path, n: int, text: str, created: str) -> None:
    write(
        root / "p" / f"2025-03-0{n}T10-00-00-000Z_s{n}.jsonl",
        header(id=f"019{n}aaaa-0000-7000-8000-00000000000{n}", timestamp=created),
        user("u1", None, text, 1),
        assistant("a1", "u1", "an answer", 2),
    )


async def test_rows_that_would_read_the_same_are_told_apart(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    session(root, 1, SAME, "2025-03-01T09:15:00.000Z")
    session(root, 2, SAME, "2025-03-02T09:15:00.000Z")  # the same message, another day
    session(root, 3, "The login form accepts empty usernames too", "2025-03-02T10:40:00.000Z")
    session(root, 4, "Summarize what this repository does", "2025-03-02T11:00:00.000Z")
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(pilot)
        rows = lines_of(screen.sidebar.session_list)[1:5]  # (under the folder's header)
        assert len(set(rows)) == 4, rows
        titles = [row.split("  ")[0].strip(" ●") for row in rows]
        assert len(set(titles)) == 4, titles  # the titles themselves differ, not only the figures
        login = [t for t in titles if t.startswith("The")]
        assert len(login) == 3, titles
        assert any("usernames" in t for t in login)
        assert any("Mar 01" in t for t in login) and any("Mar 02" in t for t in login)
        assert "Summarize" in titles[0]  # a row like no other keeps its plain cut


async def test_context_lines_cut_to_fit_end_with_an_ellipsis(demo: Path, tmp_path: Path) -> None:
    app = make_app(demo, tmp_path / "cache")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await loaded(pilot)
        body = screen.context_view.body
        lines = [line.rstrip() for line in lines_of(body)]
        was = [line for line in lines if line.strip().startswith("was:")]
        assert was, lines  # the demo's edited message shows what it replaced, on one line
        assert all(line.endswith("…") for line in was), was
