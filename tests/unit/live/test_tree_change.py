"""What a change of the open session means for the tree pane, without a widget: rows put in
place when a conversation grows at its tip, the rows again otherwise, and where the cursor goes."""

from __future__ import annotations

from pathlib import Path

from pi_sessions.core.live.tree_change import TreeAction, TreeChange, tree_change
from pi_sessions.core.session.outline import RowIndex, outline_rows
from pi_sessions.core.session.session import Session

from tests.helpers.sessions import assistant, chain, header, jsonl, user, write


def _open(tmp_path: Path, count: int = 4) -> tuple[Path, Session]:
    path = write(tmp_path / "s.jsonl", header(), *chain(count))
    return path, Session.open(path)


def _append(path: Path, *objects: object) -> None:
    with open(path, "ab") as f:
        f.write(jsonl(*objects))


def _change(session: Session, current: str | None) -> TreeChange:
    rows = outline_rows(session)
    return tree_change(session, session.refresh(), rows, RowIndex(session, rows), None, current)


def _change_after(
    path: Path, session: Session, current: str | None, *objects: object, follow: bool = False
) -> TreeChange:
    rows = outline_rows(session)
    index = RowIndex(session, rows)
    _append(path, *objects)
    return tree_change(session, session.refresh(), rows, index, None, current, follow=follow)


def test_nothing_new_changes_nothing(tmp_path: Path) -> None:
    _, session = _open(tmp_path)
    assert _change(session, "e1").action is TreeAction.KEEP


def test_a_conversation_growing_at_its_tip_gets_rows_in_place_and_the_cursor_stays(tmp_path: Path) -> None:
    path, session = _open(tmp_path)
    change = _change_after(path, session, "e1", user("e4", "e3", "more", 9), assistant("e5", "e4", "yes", 10))
    assert change.action is TreeAction.INSERT and change.insert is not None
    assert [row.record.id for row in change.insert.rows] == ["e4", "e5"]
    assert change.insert.parent_row.record.id == "e3"
    assert change.select is None


def test_following_the_cursor_goes_to_the_newest_entry(tmp_path: Path) -> None:
    path, session = _open(tmp_path)
    change = _change_after(path, session, "e1", user("e4", "e3", "more", 9), follow=True)
    assert change.action is TreeAction.INSERT and change.select == "e4"


def test_a_new_branch_elsewhere_makes_the_rows_again(tmp_path: Path) -> None:
    path, session = _open(tmp_path)
    change = _change_after(path, session, "e3", user("b1", "e1", "another way", 9))
    assert change.action is TreeAction.REBUILD and change.select is None
    path2, other = _open(tmp_path / "again")
    followed = _change_after(path2, other, "e3", user("b1", "e1", "another way", 9), follow=True)
    assert followed.action is TreeAction.REBUILD and followed.select == "b1"


def test_a_file_rewritten_shows_the_rows_anew_on_the_same_entry_if_it_is_still_there(tmp_path: Path) -> None:
    path, session = _open(tmp_path)
    write(path, header(), *chain(3))  # cut short: e3 is gone
    change = tree_change(session, session.refresh(), [], RowIndex(None, []), None, "e1")
    assert change.action is TreeAction.RESHOW and change.select == "e1"


def test_a_file_rewritten_without_the_entry_under_the_cursor_goes_to_the_newest(tmp_path: Path) -> None:
    path, session = _open(tmp_path)
    write(path, header(), *chain(2))
    change = tree_change(session, session.refresh(), [], RowIndex(None, []), None, "e3")
    assert change.action is TreeAction.RESHOW and change.select == "e1"
    path2, other = _open(tmp_path / "again")
    write(path2, header(), *chain(3))
    followed = tree_change(other, other.refresh(), [], RowIndex(None, []), None, "e0", follow=True)
    assert followed.select == "e2"
