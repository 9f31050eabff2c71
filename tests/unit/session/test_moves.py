"""Moving the selection: `path_to` and `project` build on the last path and projection, and
give exactly what a walk over the whole path gives, in whatever order entries are visited."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from pi_sessions.core.common.problems import SessionError
from pi_sessions.core.projection.context import Projection, _project, project
from pi_sessions.core.session.session import Session

from tests.helpers.corpus import session_files
from tests.helpers.moves import branchy_session, full_path


def open_or_skip(path: Path) -> Session:
    try:
        session = Session.open(path)
    except SessionError as e:
        pytest.skip(f"not a session: {e}")
    if not session.by_id:
        pytest.skip("no entries")
    return session


def orders(session: Session, seed: int) -> dict[str, list[str]]:
    """Ways to visit every entry: file order, the tree's order and back, shuffled, and a
    random walk that mostly steps to a parent, a child or a sibling (as the cursor does)."""
    rng = random.Random(seed)
    ids = list(dict.fromkeys(session.entry_ids()))
    shuffled = ids[:]
    rng.shuffle(shuffled)
    preorder = session.preorder()
    walk: list[str] = []
    at = ids[-1]
    for _ in range(3 * len(ids)):
        walk.append(at)
        record = session.by_id[at]
        parent = session.parent_of(record)
        kids = session.children_of(at)
        choice = rng.random()
        if choice < 0.4 and parent is not None:
            at = parent.id
        elif choice < 0.8 and kids:
            at = rng.choice(kids)
        elif parent is not None and choice < 0.9:
            at = rng.choice(session.children_of(parent.id))
        else:
            at = rng.choice(ids)
    return {"file": ids, "preorder": preorder, "back": preorder[::-1], "shuffled": shuffled, "walk": walk}


def same_projection(got: Projection, want: Projection) -> None:
    assert got.leaf_id == want.leaf_id
    assert len(got.path) == len(want.path) and all(a is b for a, b in zip(got.path, want.path, strict=True))
    assert len(got.context) == len(want.context)
    assert all(a is b for a, b in zip(got.context, want.context, strict=True))
    assert got.counts == want.counts
    assert got.message_count == want.message_count
    assert got.compaction is want.compaction
    assert list(got.edits.items()) == list(want.edits.items())
    assert got.model == want.model and got.thinking_level == want.thinking_level
    assert list(got.excluded.items()) == list(want.excluded.items())
    assert list(got.dropped.items()) == list(want.dropped.items())
    assert got.estimated_bytes == want.estimated_bytes
    assert got.tree_version == want.tree_version
    assert [(f.record, f.reason, f.by, f.message_count) for f in got.fates] == [
        (f.record, f.reason, f.by, f.message_count) for f in want.fates
    ]


@pytest.mark.parametrize("path", session_files(), ids=lambda p: p.stem[-12:])
def test_paths_and_projections_on_every_move_match_a_full_walk(path: Path) -> None:
    session = open_or_skip(path)
    for name, visits in orders(session, seed=len(session.records)).items():
        for n, leaf in enumerate(visits):
            want_path = full_path(session, leaf)
            got = project(session, leaf)
            assert all(a is b for a, b in zip(got.path, want_path, strict=True)), (name, leaf)
            if name == "walk" and n % 2:
                continue  # reasons left uncomputed: the next move cannot build on them
            same_projection(got, _project(session, leaf, want_path))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_moves_through_what_a_projection_leaves_out(tmp_path: Path, seed: int) -> None:
    session = branchy_session(tmp_path / "s.jsonl")
    for visits in orders(session, seed).values():
        for leaf in visits:
            want_path = full_path(session, leaf)
            same_projection(project(session, leaf), _project(session, leaf, want_path))


def lookups(session: Session) -> list[str]:
    """The ids the session's tree looks up from now on, as it looks them up."""
    visited: list[str] = []
    real_get = session.by_id.get

    class Counting(dict):
        def get(self, key, default=None):
            visited.append(key)
            return real_get(key, default)

    session.tree.by_id = Counting(session.by_id)
    return visited


def test_a_move_walks_only_what_changed(tmp_path: Path) -> None:
    from tests.helpers.sessions import assistant, header, jsonl, user

    lines = [header()]
    parent = None
    for i in range(2000):
        make = user if i % 2 == 0 else assistant
        lines.append(make(f"e{i}", parent, f"message {i}", i))
        parent = f"e{i}"
    (tmp_path / "s.jsonl").write_bytes(jsonl(*lines))
    session = Session.open(tmp_path / "s.jsonl")
    project(session, "e1999")
    visited = lookups(session)
    moved = project(session, "e1998")
    assert len(visited) <= 2  # the new leaf, no walk up to the root
    same_projection(moved, _project(session, "e1998", full_path(session, "e1998")))


def test_a_conversation_read_from_a_file_needs_no_walk(tmp_path: Path) -> None:
    """A file that is one path (each entry's parent the entry before it): the first path to
    its last entry is found without stepping from parent to parent."""
    from tests.helpers.sessions import chain, header, jsonl

    (tmp_path / "s.jsonl").write_bytes(jsonl(header(), *chain(500)))
    session = Session.open(tmp_path / "s.jsonl")
    visited = lookups(session)
    assert [r.id for r in session.path_to("e499")] == [f"e{i}" for i in range(500)]
    assert len(visited) <= 2
    assert [r.id for r in session.path_to("e250")] == [f"e{i}" for i in range(251)]


@pytest.mark.parametrize(
    "parents",
    [
        {7: "e5"},  # a fork: e7 answers e5 again
        {0: "e9"},  # the first entry's parent comes later (a cycle through the whole file)
        {4: "e4"},  # its own parent
        {0: "e0"},  # the first entry its own parent
        {6: None},  # a second root
        {3: "nowhere"},  # a missing parent
    ],
)
def test_a_file_that_is_almost_one_path_is_walked(tmp_path: Path, parents: dict[int, str | None]) -> None:
    from tests.helpers.sessions import chain, header, jsonl

    lines = chain(10)
    for position, parent in parents.items():
        lines[position]["parentId"] = parent
    (tmp_path / "s.jsonl").write_bytes(jsonl(header(), *lines))
    for leaf in [f"e{i}" for i in range(10)]:
        session = Session.open(tmp_path / "s.jsonl")  # the first path asked for after the open
        assert session.path_to(leaf) == full_path(session, leaf)
        assert session.path_to("e9") == full_path(session, "e9")
