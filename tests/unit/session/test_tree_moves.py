"""pi's branch-segment moves (core/session/tree_moves.py) on the rows of the branch tree, checked
against pi 1.6.0's own tree selector driven with the same keys over the same file."""

from __future__ import annotations

from pathlib import Path

from pi_sessions.core.session.outline import SETTINGS_TYPES, RowFilter, outline_rows
from pi_sessions.core.session.session import Session
from pi_sessions.core.session.tree_moves import can_fold, segment_start_above, segment_start_below

from tests.helpers.sessions import two_fork_session


class Tree:
    """The rows and the cursor, with pi's two keys: what the tree widget does with them."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.folded: set[str] = set()
        self.at = "a7"

    def rows(self):
        view = RowFilter(hidden_types=SETTINGS_TYPES).with_always({self.session.default_leaf or ""})
        return outline_rows(self.session, folded=self.folded, view=view)

    def ids(self) -> list[str]:
        return [row.record.id for row in self.rows()]

    def fold_or_up(self) -> None:
        rows = self.rows()
        index = self.ids().index(self.at)
        if can_fold(rows, index):
            self.folded.add(self.at)
        else:
            self.at = rows[segment_start_above(rows, index)].record.id

    def unfold_or_down(self) -> None:
        rows = self.rows()
        index = self.ids().index(self.at)
        if self.at in self.folded:
            self.folded.discard(self.at)
        else:
            self.at = rows[segment_start_below(rows, index)].record.id


def test_rows_are_in_pis_order(tmp_path: Path) -> None:
    tree = Tree(Session.open(str(two_fork_session(tmp_path / "s.jsonl"))))
    assert tree.ids() == [
        "u1",
        "a1",
        "u2",
        "a2",
        "u4",
        "a4",
        "u7",
        "a7",
        "u6",
        "u3",
        "a3",
        "u5",
    ]  # as pi lists them


def test_fold_or_up_and_unfold_or_down_as_pi(tmp_path: Path) -> None:
    tree = Tree(Session.open(str(two_fork_session(tmp_path / "s.jsonl"))))
    # pi: a7 -> u7, fold u7, -> u4, fold u4, -> u1; then down -> u4, unfold u4.
    seen = []
    for move in ("up", "up", "up", "up", "up", "down", "down"):
        tree.fold_or_up() if move == "up" else tree.unfold_or_down()
        seen.append((tree.at, sorted(tree.folded)))
    assert seen == [
        ("u7", []),
        ("u7", ["u7"]),
        ("u4", ["u7"]),
        ("u4", ["u4", "u7"]),
        ("u1", ["u4", "u7"]),
        ("u4", ["u4", "u7"]),
        ("u4", ["u7"]),
    ]


def test_down_goes_to_each_next_segment_start_then_the_branch_end(tmp_path: Path) -> None:
    tree = Tree(Session.open(str(two_fork_session(tmp_path / "s.jsonl"))))
    tree.at = "u1"
    seen = []
    for _ in range(4):
        tree.unfold_or_down()
        seen.append(tree.at)
    assert seen == ["u4", "u7", "a7", "a7"]  # pi's answers


def test_mid_chain_up_goes_to_the_root_which_folds_and_stays(tmp_path: Path) -> None:
    tree = Tree(Session.open(str(two_fork_session(tmp_path / "s.jsonl"))))
    tree.at = "a2"
    tree.fold_or_up()
    assert tree.at == "u1" and not tree.folded
    tree.fold_or_up()
    assert tree.folded == {"u1"} and tree.ids() == ["u1"]
    tree.fold_or_up()
    assert tree.at == "u1" and tree.ids() == ["u1"]
