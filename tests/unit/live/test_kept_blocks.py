"""Which blocks of the context pane stay when it shows another projection, without a widget:
those of the context entries both share when a move made one from the other, never when the
replayed system prompt on top would change."""

from __future__ import annotations

from pathlib import Path

from pi_sessions.core.live.context_change import KeptBlocks, kept_blocks
from pi_sessions.core.projection.context import Projection, project
from pi_sessions.core.session.session import Session

from tests.helpers.sessions import chain, header, system, user, write


def _session(tmp_path: Path, *extra: object) -> Session:
    return Session.open(write(tmp_path / "s.jsonl", header(), *chain(6), *extra))


def _kept(
    session: Session,
    shown: Projection,
    projection: Projection,
    *,
    prompt: bool = False,
    excluded: bool = False,
) -> KeptBlocks | None:
    blocks = sum(shown.counts) + prompt  # (a block per message, the replayed prompt first)
    return kept_blocks(session, shown, projection, blocks=blocks, prompt_on_top=prompt, excluded=excluded)


def test_a_move_along_the_conversation_keeps_the_blocks_of_the_shared_entries(tmp_path: Path) -> None:
    session = _session(tmp_path)
    shown = project(session, "e3")
    further = project(session, "e5")
    kept = _kept(session, shown, further)
    assert kept is not None and kept.start == len(shown.context)  # everything shown stays
    assert kept.keep == sum(shown.counts)
    back = project(session, "e1")
    kept_back = _kept(session, further, back)
    assert kept_back is not None and kept_back.start == len(back.context)


def test_a_projection_not_made_from_the_shown_one_keeps_nothing(tmp_path: Path) -> None:
    session = _session(tmp_path)
    shown = project(session, "e3")
    project(session, "e1")  # (the next one is made from this one)
    assert _kept(session, shown, project(session, "e5")) is None


def test_with_the_excluded_entries_shown_every_block_is_made_again(tmp_path: Path) -> None:
    session = _session(tmp_path)
    shown = project(session, "e3")
    assert _kept(session, shown, project(session, "e5"), excluded=True) is None


def test_a_system_prompt_among_the_changed_entries_makes_every_block_again(tmp_path: Path) -> None:
    session = _session(tmp_path, system("p1", "e5", 20, content="new rules"), user("e7", "p1", "go", 21))
    assert session.system_prompt_entries
    shown = project(session, "e3")
    assert _kept(session, shown, project(session, "e7"), prompt=True) is None
    shown = project(session, "e1")
    assert _kept(session, shown, project(session, "e3"), prompt=True) is not None  # (no prompt moved)
    shown = project(session, "e1")
    # The prompt is not on top of what is shown, but the session has one now: it goes on top.
    assert _kept(session, shown, project(session, "e3"), prompt=False) is None
