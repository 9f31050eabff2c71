"""Comparing two leaves: the split point, what each side spent since, how the contexts differ."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from pi_sessions.core.common.problems import SessionError, UnknownEntryError
from pi_sessions.core.projection.compare import Relation, compare
from pi_sessions.core.projection.context import Reason
from pi_sessions.core.session.session import Session

from tests.helpers.corpus import deepest_common_ancestor, expected_files, load_expected, session_path_for
from tests.helpers.sessions import assistant, chain, entry, header, user, write
from tests.helpers.tools import compaction, context_edit


def _open(tmp_path: Path, *entries: dict) -> Session:
    return Session.open(write(tmp_path / "s.jsonl", header(), *entries))


def _branched(tmp_path: Path) -> Session:
    """e0..e3, then two branches from e3: b4 b5 and c4 c5 c6."""
    return _open(
        tmp_path,
        *chain(4),
        user("b4", "e3", "left", 10),
        assistant("b5", "b4", "left answer", 11),
        user("c4", "e3", "right", 20),
        assistant("c5", "c4", "right answer", 21),
        user("c6", "c5", "more", 22),
    )


def test_siblings_split_at_their_common_entry_with_totals_since_it(tmp_path: Path) -> None:
    result = compare(_branched(tmp_path), "b5", "c6")
    assert result.split_id == "e3" and result.relation is Relation.FORKED
    assert [r.id for r in result.a.since_split] == ["b4", "b5"]
    assert [r.id for r in result.b.since_split] == ["c4", "c5", "c6"]
    assert result.a.message_count == 2 and result.b.message_count == 3
    # one assistant reply on each side since the split, 15 tokens and $0.01 each (helpers.assistant)
    assert (result.a.totals.tokens, result.b.totals.tokens) == (15, 15)
    assert result.a.totals.cost == pytest.approx(0.01) and result.b.totals.cost == pytest.approx(0.01)
    assert [r.id for r in result.a.only_here] == ["b4", "b5"]
    assert [r.id for r in result.b.only_here] == ["c4", "c5", "c6"]
    assert result.different_form == [] and result.shared_count == 4
    assert (result.a.context_message_count, result.b.context_message_count) == (6, 7)


def test_an_ancestor_leaf_is_itself_the_split(tmp_path: Path) -> None:
    session = _branched(tmp_path)
    down = compare(session, "e1", "c6")
    assert down.split_id == "e1" and down.relation is Relation.B_BELOW_A
    assert down.a.since_split == [] and down.a.totals.tokens == 0
    assert [r.id for r in down.b.since_split] == ["e2", "e3", "c4", "c5", "c6"]
    assert down.b.totals.tokens == 30  # e3 and c5 answered
    up = compare(session, "c6", "e1")
    assert up.split_id == "e1" and up.relation is Relation.A_BELOW_B
    same = compare(session, "b5", "b5")
    assert same.split_id == "b5" and same.relation is Relation.SAME
    assert same.a.since_split == same.b.since_split == []


def test_different_roots_share_nothing(tmp_path: Path) -> None:
    # pi's branchWithSummary(null) starts a new root; an entry whose parent is missing is one too
    session = _open(
        tmp_path,
        *chain(2),
        entry("branch_summary", "r2", None, 5, summary="what happened before", fromId="e1"),
        user("r3", "r2", "fresh start", 6),
        user("o1", "gone", "orphan", 7),
    )
    for other in ("r3", "o1"):
        result = compare(session, "e1", other)
        assert result.split is None and result.relation is Relation.UNRELATED
        assert [r.id for r in result.a.since_split] == ["e0", "e1"]
        assert result.a.totals.tokens == 15
        assert [r.id for r in result.a.only_here] == ["e0", "e1"]
    result = compare(session, "e1", "r3")
    assert [r.id for r in result.b.only_here] == ["r2", "r3"]  # the summary is sent too
    assert result.shared_count == 0 and result.different_form == []


def test_context_differences_with_a_compaction_on_one_side_and_edits_on_the_other(tmp_path: Path) -> None:
    session = _open(
        tmp_path,
        *chain(6),  # e0..e5, the split
        compaction("a1", "e5", 10, first_kept="e4"),
        user("a2", "a1", "after compaction", 11),
        context_edit("x1", "e5", 20, "e1", None),  # omits e1
        context_edit("x2", "x1", 21, "e2", {"content": "short"}),  # replaces e2
        user("b1", "x2", "after edits", 22),
    )
    result = compare(session, "a2", "b1")
    assert result.split_id == "e5"
    assert [r.id for r in result.a.only_here] == ["a1", "a2"]  # the compaction's summary, then a2
    assert [r.id for r in result.b.only_here] == ["b1"]  # the context edits send nothing
    forms = {d.record.id: (d.a.reason, d.a.by, d.b.reason, d.b.by) for d in result.different_form}
    assert forms == {
        # e1 is sent on neither side (summarized in A, omitted in B): nothing differs for the model
        "e0": (Reason.SUMMARIZED, "a1", Reason.SENT, None),
        "e2": (Reason.SUMMARIZED, "a1", Reason.REPLACED, "x2"),
        "e3": (Reason.SUMMARIZED, "a1", Reason.SENT, None),
    }
    assert result.shared_count == 2  # e4 and e5


def test_different_edits_of_the_same_entry_differ(tmp_path: Path) -> None:
    session = _open(
        tmp_path,
        *chain(2),
        context_edit("x1", "e1", 5, "e0", {"content": "one"}),
        context_edit("y1", "e1", 6, "e0", {"content": "two"}),
        context_edit("z1", "e1", 7, "e1", None),
    )
    result = compare(session, "x1", "y1")
    [difference] = result.different_form
    assert (difference.record.id, difference.a.by, difference.b.by) == ("e0", "x1", "y1")
    assert difference.a.reason is difference.b.reason is Reason.REPLACED
    omitted = compare(session, "x1", "z1")
    assert {d.record.id: (d.a.reason, d.b.reason) for d in omitted.different_form} == {
        "e0": (Reason.REPLACED, Reason.SENT),
        "e1": (Reason.SENT, Reason.OMITTED),
    }


def test_an_unknown_leaf_is_an_error(tmp_path: Path) -> None:
    session = _branched(tmp_path)
    with pytest.raises(UnknownEntryError):
        compare(session, "b5", "nope")
    with pytest.raises(UnknownEntryError):
        compare(session, "nope", "b5")


# ---------------------------------------------------------------------- the corpus
def _branched_corpus_files() -> list[Path]:
    out = []
    for path in expected_files():
        exp = load_expected(path)
        tree = exp.get("tree")
        if not tree or exp.get("ids_are_random") or exp.get("open_error"):
            continue
        tips = [i for i in dict.fromkeys(exp["entry_ids"]) if not tree["children"].get(i)]
        if len(tips) > 1:
            out.append(path)
    return out


BRANCHED = _branched_corpus_files()


def test_the_corpus_has_branched_files() -> None:
    assert len(BRANCHED) >= 30  # and test_split_is_pis_deepest_common_ancestor walks all of them


@pytest.mark.parametrize("expected_path", BRANCHED, ids=lambda p: p.name[:30])
def test_split_is_pis_deepest_common_ancestor(expected_path: Path) -> None:
    exp = load_expected(expected_path)
    tree = exp["tree"]
    tips = [i for i in dict.fromkeys(exp["entry_ids"]) if not tree["children"].get(i)]
    try:
        session = Session.open(session_path_for(expected_path, exp))
    except SessionError:
        pytest.fail("a file pi opens must open")
    assert set(tree["roots"]) <= set(session.by_id)
    for a, b in itertools.combinations(tips, 2):
        want = deepest_common_ancestor(tree["children"], a, b)
        result = compare(session, a, b)
        assert result.split_id == want, (a, b)
        assert compare(session, b, a).split_id == want
        assert (result.relation is Relation.UNRELATED) == (want is None)
        # each side's entries since the split end at its leaf and start below the split
        assert result.a.since_split[-1].id == a and result.b.since_split[-1].id == b
        first_a = result.a.since_split[0]
        assert first_a.parentId == want if want is not None else first_a.id in tree["roots"]
