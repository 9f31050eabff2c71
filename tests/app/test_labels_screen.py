"""The labels screen: every label of every session of the corpus (as pi's results say), filtered
as you type, and enter lands on each labelled entry with its context shown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_sessions.app.labels_screen import LabelsScreen
from pi_sessions.app.main_screen import MainScreen
from textual.pilot import Pilot

from tests.helpers.app import lines_of, loaded, make_app, static_text, until
from tests.helpers.corpus import FIXTURES
from tests.helpers.sessions import assistant, entry, header, user, write

CORPUS = FIXTURES / "sessions"


def expected_labels() -> tuple[dict[str, dict[str, Any]], dict[str, int]]:
    """rel path -> {entry id: label} where our ids are pi's, and rel path -> how many where
    they are not (v1 files: pi makes random ids)."""
    exact: dict[str, dict[str, Any]] = {}
    counts: dict[str, int] = {}
    for path in sorted((FIXTURES / "expected").rglob("*.jsonl.json")):
        expected = json.loads(path.read_text())
        labels = expected.get("labels") or {}
        if not labels:
            continue
        rel = str(path.relative_to(FIXTURES / "expected"))[: -len(".json")]
        if expected.get("ids_are_random"):
            counts[rel] = len(labels)
        else:
            exact[rel] = labels
    return exact, counts


async def open_labels(pilot: Pilot[Any]) -> LabelsScreen:
    await pilot.press("number_sign")
    await until(pilot, lambda: isinstance(pilot.app.screen, LabelsScreen), "the labels screen")
    screen = pilot.app.screen
    assert isinstance(screen, LabelsScreen)
    await until(pilot, lambda: screen.done, "every file read")
    return screen


async def test_the_labels_screen_lists_every_label_of_the_corpus_and_lands_on_each(tmp_path: Path) -> None:
    app = make_app(CORPUS, tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        main = await loaded(pilot)
        labels = await open_labels(pilot)
        rows = list(labels.label_list.rows)
        got: dict[str, dict[str, Any]] = {}
        for row in rows:
            got.setdefault(str(Path(row.path).relative_to(CORPUS)), {})[row.entry_id] = row.label
        exact, counts = expected_labels()
        assert {rel: got.get(rel) for rel in exact} == exact
        assert {rel: len(got.get(rel, {})) for rel in counts} == counts
        assert set(got) == set(exact) | set(counts)  # no label pi does not have
        assert f"{len(rows)} labels" in static_text(labels, "#labels-title")
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
        for index, row in enumerate(rows):
            labels = await open_labels(pilot)
            assert labels.label_list.rows == rows  # read again from what was remembered
            await pilot.press("down")  # from the filter line into the list
            labels.label_list.move_cursor(index)  # as a click on the row does (no 40 ms per key)
            assert labels.label_list.current() == row
            await pilot.press("enter")
            await until(pilot, lambda: app.screen is main, "back on the main screen")
            await until(
                pilot,
                lambda row=row: (  # type: ignore[misc]  # (mypy cannot infer a lambda with a default argument)
                    main.session is not None
                    and main.session.path == row.path
                    and main.branch_tree.current_id() == row.entry_id
                    and main.context_leaf == row.entry_id
                ),
                f"the landing on {row.label!r} in {row.path}",
            )
            assert main.active_pane == "tree"


async def test_the_labels_screen_filters_as_you_type_and_says_where_each_is(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    write(
        root / "p" / "s.jsonl",
        header(id="s1"),
        user("u1", None, "Fix the flaky scheduler test", 1),
        assistant("a1", "u1", "Let me look at the scheduler.", 2),
        user("u3", "a1", "No, explain why that works first", 3),
        user("u2", "a1", "Go ahead and fix it", 5),
        entry("label", "l1", "u2", 6, targetId="u3", label="maybe later"),
        entry("label", "l2", "l1", 7, targetId="u2", label="the fix"),
        entry("session_info", "n1", "l2", 8, name="scheduler work"),
    )
    write(root / "q" / "t.jsonl", header(id="s2", cwd="/home/u/q"), user("u1", None, "nothing here", 1))
    app = make_app(root, tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        main = await loaded(pilot)
        labels = await open_labels(pilot)
        shown = lines_of(labels.label_list)
        later = next(line for line in shown if "maybe later" in line)
        assert "scheduler work" in later and "explain why that works" in later and "branch from a1" in later
        fix = next(line for line in shown if "the fix" in line)
        assert "active path" in fix
        await pilot.press(*"later")
        assert [r.text for r in labels.label_list.rows] == ["maybe later"]
        assert "1/2 labels" in static_text(labels, "#labels-title")
        await pilot.press("enter")
        await until(pilot, lambda: main.branch_tree.current_id() == "u3", "the landing")
        await until(pilot, lambda: main.context_leaf == "u3", "its context")
        # n / N walk that session's labels
        await pilot.press("n")
        assert main.branch_tree.current_id() == "u2"
