"""The three passes from a path to what the model saw, and why each entry is in or out."""

from __future__ import annotations

from pathlib import Path

from pi_sessions.core.projection.context import Projection, Reason, extend_projection, project
from pi_sessions.core.projection.tokens import estimate_context
from pi_sessions.core.session.session import Session

from tests.helpers.checks import known
from tests.helpers.corpus import FIXTURES
from tests.helpers.sessions import assistant, entry, header, jsonl, system, user, write


def open_rows(tmp_path: Path, *rows: dict) -> Session:
    return Session.open(write(tmp_path / "s.jsonl", header(), *rows))


def reasons(session: Session, leaf: str) -> dict[str, tuple[Reason, str | None]]:
    return {f.record.id: (f.reason, f.by) for f in project(session, leaf).fates}


def test_compaction_keeps_from_first_kept_and_folds_system_messages(tmp_path: Path) -> None:
    session = open_rows(
        tmp_path,
        system("s0", None, 0, sections={"a": "A"}),
        user("u1", "s0", "one", 1),
        assistant("a1", "u1", "two", 2),
        system("s1", "a1", 3, sections={"b": "B"}),
        user("u2", "s1", "three", 4),
        entry(
            "compaction",
            "c",
            "u2",
            5,
            summary="sum",
            firstKeptEntryId="a1",
            tokensBefore=100,
            systemMessage={"role": "system", "content": "", "sections": {"a": "A", "b": "B"}, "timestamp": 9},
        ),
        user("u3", "c", "four", 6),
    )
    projection = project(session, "u3")
    assert [r.id for r in projection.context] == ["c", "a1", "u2", "u3"]
    assert projection.counts == [2, 1, 1, 1]
    messages = projection.messages(session)
    assert messages[0]["role"] == "system" and messages[1]["role"] == "compactionSummary"
    assert messages[1] == {
        "role": "compactionSummary",
        "summary": "sum",
        "tokensBefore": 100,
        "timestamp": 1740823205000,
    }
    why = reasons(session, "u3")
    assert why["s0"] == (Reason.SUMMARIZED, "c") and why["u1"] == (Reason.SUMMARIZED, "c")
    assert why["s1"] == (Reason.FOLDED, "c")
    assert why["a1"] == (Reason.SENT, None) and why["c"] == (Reason.CHECKPOINT, None)
    prompt = projection.system_prompt(session)
    assert prompt.sections == {"a": "A", "b": "B"} and prompt.section_sources == {"a": "c", "b": "c"}


def test_retain_none_and_unknown_first_kept_keep_nothing_before(tmp_path: Path) -> None:
    for kept in ("c", "elsewhere"):
        session = Session.open(
            write(
                tmp_path / f"{kept}.jsonl",
                header(),
                user("u1", None, "one", 1),
                entry("compaction", "c", "u1", 2, summary="s", firstKeptEntryId=kept, tokensBefore=1),
                user("u2", "c", "two", 3),
            )
        )
        assert [r.id for r in project(session, "u2").context] == ["c", "u2"]


def test_only_latest_compaction_counts_older_one_in_kept_range_is_superseded(tmp_path: Path) -> None:
    session = open_rows(
        tmp_path,
        user("u1", None, "one", 1),
        entry("compaction", "c1", "u1", 2, summary="first", firstKeptEntryId="u1"),
        user("u2", "c1", "two", 3),
        entry("compaction", "c2", "u2", 4, summary="second", firstKeptEntryId="u1"),
        user("u3", "c2", "three", 5),
    )
    projection = project(session, "u3")
    assert [r.id for r in projection.context] == ["c2", "u1", "c1", "u2", "u3"]
    assert projection.counts == [1, 1, 0, 1, 1]
    assert reasons(session, "u3")["c1"] == (Reason.SUPERSEDED, "c2")


def test_context_edits_latest_wins_and_normalize_strings(tmp_path: Path) -> None:
    session = open_rows(
        tmp_path,
        user("u1", None, "original question", 1),
        assistant("a1", "u1", "original answer", 2),
        entry("context_edit", "e1", "a1", 3, targetId="a1", replacement={"content": "first edit"}),
        entry("context_edit", "e2", "e1", 4, targetId="a1", replacement={"content": "second edit"}),
        entry("context_edit", "e3", "e2", 5, targetId="u1", replacement={"content": "user as string"}),
        user("u2", "e3", "next", 6),
    )
    projection = project(session, "u2")
    messages = projection.messages(session)
    assert messages[0]["content"] == "user as string"
    assert messages[1]["content"] == [{"type": "text", "text": "second edit"}]
    assert messages[1]["provider"] == "anthropic"  # everything but content is kept
    why = reasons(session, "u2")
    assert why["a1"] == (Reason.REPLACED, "e2") and why["u1"] == (Reason.REPLACED, "e3")
    assert projection.counts == [1, 1, 0, 0, 0, 1]


def test_omit_edit_removes_messages_and_edits_on_other_branches_do_not_apply(tmp_path: Path) -> None:
    session = open_rows(
        tmp_path,
        user("u1", None, "q", 1),
        assistant("a1", "u1", "answer", 2),
        entry("context_edit", "e1", "a1", 3, targetId="a1", replacement=None),
        user("u2", "e1", "after omit", 4),
        user("b1", "a1", "other branch", 5),
    )
    assert project(session, "u2").counts == [1, 0, 0, 1]
    assert reasons(session, "u2")["a1"] == (Reason.OMITTED, "e1")
    assert project(session, "b1").counts == [1, 1, 1]


def test_edit_of_a_summarized_target_has_no_effect(tmp_path: Path) -> None:
    session = open_rows(
        tmp_path,
        user("u1", None, "q", 1),
        entry("context_edit", "e1", "u1", 2, targetId="u1", replacement=None),
        user("u2", "e1", "kept", 3),
        entry("compaction", "c", "u2", 4, summary="s", firstKeptEntryId="u2"),
        user("u3", "c", "after", 5),
    )
    projection = project(session, "u3")
    assert [r.id for r in projection.context] == ["c", "u2", "u3"]
    assert reasons(session, "u3")["e1"] == (Reason.SUMMARIZED, "c")


def test_branch_summary_and_custom_message(tmp_path: Path) -> None:
    session = open_rows(
        tmp_path,
        user("u1", None, "q", 1),
        entry("branch_summary", "b0", "u1", 2, fromId="x", summary=""),
        entry("branch_summary", "b1", "b0", 3, fromId="x", summary="what happened"),
        entry("custom_message", "m1", "b1", 4, customType="ext", content="hello", display=False),
    )
    projection = project(session, "m1")
    assert projection.counts == [1, 0, 1, 1]
    messages = projection.messages(session)
    assert messages[1] == {
        "role": "branchSummary",
        "summary": "what happened",
        "fromId": "x",
        "timestamp": 1740823203000,
    }
    assert messages[2] == {
        "role": "custom",
        "customType": "ext",
        "content": "hello",
        "display": False,
        "timestamp": 1740823204000,
    }
    assert reasons(session, "m1")["b0"] == (Reason.EMPTY_SUMMARY, None)


def test_model_and_thinking_from_the_full_path(tmp_path: Path) -> None:
    session = open_rows(
        tmp_path,
        entry("model_change", "m", None, 0, provider="pi", modelId="auto"),
        user("u1", "m", "q", 1),
        entry("compaction", "c", "u1", 2, summary="s", firstKeptEntryId="c"),
        user("u2", "c", "q2", 3),
    )
    projection = project(session, "u2")
    assert projection.model == {"provider": "pi", "modelId": "auto"}  # compaction hides nothing here
    assert projection.thinking_level == "off"
    session = Session.open(
        write(
            tmp_path / "t.jsonl",
            header(),
            entry("model_change", "m", None, 0, provider="pi", modelId="auto"),
            entry("thinking_level_change", "t", "m", 1, thinkingLevel="high"),
            user("u", "t", "q", 2),
            assistant("a", "u", "x", 3, provider="openai", model="gpt-5"),
        )
    )
    projection = project(session, "a")
    assert projection.model == {"provider": "openai", "modelId": "gpt-5"}
    assert projection.thinking_level == "high"


def test_system_prompt_replay_patches_sections_and_tools(tmp_path: Path) -> None:
    tool = lambda name: {"name": name, "description": name, "parameters": {}}  # noqa: E731
    session = open_rows(
        tmp_path,
        system(
            "s0",
            None,
            0,
            content="base",
            sections={"a": "A", "b": "B"},
            toolsAdded=[tool("read"), tool("bash")],
        ),
        user("u1", "s0", "q", 1),
        system(
            "s1",
            "u1",
            2,
            content="more",
            sections={"a": None, "c": "C"},
            toolsRemoved=[{"name": "read"}],
            toolsAdded=[tool("edit")],
        ),
        user("u2", "s1", "q", 3),
    )
    prompt = project(session, "u2").system_prompt(session)
    assert prompt.content == "base\n\nmore"
    assert prompt.sections == {"b": "B", "c": "C"}
    assert [t["name"] for t in prompt.tools] == ["bash", "edit"]
    assert prompt.tool_sources == {"bash": "s0", "edit": "s1"}
    early = project(session, "u1").system_prompt(session)
    assert early.sections == {"a": "A", "b": "B"}


def test_totals_per_session_and_per_path(tmp_path: Path) -> None:
    session = open_rows(
        tmp_path,
        user("u1", None, "q", 1),
        assistant("a1", "u1", "x", 2),
        entry(
            "usage",
            "w",
            "a1",
            3,
            kind="cache_warm",
            usage={"input": 100, "output": 0, "cost": {"total": 0.5}},
        ),
        assistant("b1", "u1", "branch", 4),
    )
    assert session.totals.tokens == 15 + 100 + 15
    assert round(session.totals.cost, 6) == 0.52
    projection = project(session, "w")
    assert projection.path_totals(session).tokens == 115
    assert project(session, "b1").path_totals(session).tokens == 15  # remembered totals stay per path


def test_context_edit_without_replacement_is_reported_and_ignored(tmp_path: Path) -> None:
    from pi_sessions.core.common.problems import ProblemKind

    session = open_rows(
        tmp_path,
        user("u1", None, "q", 1),
        assistant("a1", "u1", "answer", 2),
        entry("context_edit", "e1", "a1", 3, targetId="a1"),
        user("u2", "e1", "next", 4),
    )
    assert [p.kind for p in session.problems] == [ProblemKind.BAD_EDIT]
    projection = project(session, "u2")
    assert projection.counts == [1, 1, 0, 1]
    assert projection.messages(session)[1]["content"] == [{"type": "text", "text": "answer"}]


def test_exclusion_counts_agree_with_the_reasons_on_the_whole_corpus() -> None:
    from collections import Counter

    from pi_sessions.core.common.problems import SessionError

    checked = 0
    for path in sorted((FIXTURES / "sessions").rglob("*.jsonl")):
        try:
            session = Session.open(path)
        except SessionError:
            continue
        for leaf in list(session.by_id)[:120]:
            projection = project(session, leaf)
            reasons = Counter(f.reason for f in projection.fates if not f.in_context)
            assert projection.excluded == dict(reasons), (path.name, leaf)
            checked += 1
    assert checked > 1000


def _shape(projection: Projection) -> tuple[object, ...]:
    return (
        projection.leaf_id,
        [r.id for r in projection.path],
        [r.id for r in projection.context],
        projection.counts,
        projection.compaction.id if projection.compaction else None,
        {key: edit.id for key, edit in projection.edits.items()},
        projection.model,
        projection.thinking_level,
        projection.excluded,
        projection.estimated_bytes,
        [(f.record.id, f.reason, f.by) for f in projection.fates],
    )


def test_extending_a_projection_along_the_path_equals_projecting_from_scratch() -> None:
    """Every parent -> child step of every corpus session (branches, compactions, edits,
    settings, cycles): an extension is either refused or the very projection pi's walk gives."""
    corpus = FIXTURES / "sessions"
    extended = refused = 0
    for path in sorted(corpus.rglob("*.jsonl")):
        session = Session.open(path)
        projections = {}
        for record in session.records:
            projections[record.id] = project(session, record.id)
        for record in session.records:
            parent = record.parentId
            if not isinstance(parent, str) or parent not in projections:
                continue
            result = extend_projection(projections[parent], session, record.id)
            if result is None:
                refused += 1
                continue
            extended += 1
            assert _shape(result) == _shape(projections[record.id]), (path.name, record.id)
    assert extended > 100 and refused > 0


def test_extension_refuses_what_changes_the_past(tmp_path: Path) -> None:
    session = open_rows(
        tmp_path,
        user("u1", None, "one", 1),
        assistant("a1", "u1", "two", 2),
        entry("context_edit", "e1", "a1", 3, targetId="u1", replacement=None),
        user("u2", "e1", "three", 4),
        entry("model_change", "m1", "u2", 5, provider="p", modelId="m"),
        entry("thinking_level_change", "t1", "m1", 6, thinkingLevel="high"),
        user("u3", "t1", "four", 7),
    )
    at_a1 = project(session, "a1")
    assert extend_projection(at_a1, session, "u2") is None  # the edit omits u1
    at_u2 = project(session, "u2")
    grown = extend_projection(at_u2, session, "u3")
    assert grown is not None and _shape(grown) == _shape(project(session, "u3"))
    assert grown.model == {"provider": "p", "modelId": "m"} and grown.thinking_level == "high"
    assert extend_projection(project(session, "u3"), session, "u1") is None  # not below it
    reread = Session.open(known(session.path))
    assert extend_projection(at_u2, reread, "u3") is None  # other records: start again


def test_edits_per_entry_are_counted_as_read_and_as_appended(tmp_path: Path) -> None:
    session = open_rows(
        tmp_path,
        user("u1", None, "one", 1),
        entry("context_edit", "e1", "u1", 2, targetId="u1", replacement="ONE"),
    )
    assert session.edit_counts == {"u1": 1}
    with open(session.path or "", "ab") as f:
        f.write(jsonl(entry("context_edit", "e2", "e1", 3, targetId="u1", replacement=None)))
    session.refresh()
    assert session.edit_counts == {"u1": 2}


def test_the_token_estimate_counts_what_is_sent_without_a_content_field(tmp_path: Path) -> None:
    """Compaction and branch summaries have no `content`: their summaries still count (pi 1.6.0's
    estimateProjectedContextTokens gives 2001 and 3 on these files: 1000 per 4,000-character
    summary, 1 for each "q")."""

    def estimate(summary: str) -> float:
        session = Session.open(
            write(
                tmp_path / f"{len(summary)}.jsonl",
                header(),
                user("u1", None, "q", 1),
                entry("branch_summary", "b1", "u1", 2, fromId="x", summary=summary),
                entry("compaction", "c1", "b1", 3, summary=summary, firstKeptEntryId="b1"),
                user("u2", "c1", "q", 4),
            )
        )
        return estimate_context(session, project(session, "u2")).tokens

    assert (estimate("x" * 4000), estimate("x")) == (2001, 3)


def test_an_older_compaction_is_superseded_even_when_an_edit_omits_it(tmp_path: Path) -> None:
    session = open_rows(
        tmp_path,
        user("u1", None, "one", 1),
        entry("compaction", "c1", "u1", 2, summary="first", firstKeptEntryId="u1"),
        entry("context_edit", "e1", "c1", 3, targetId="c1", replacement=None),
        user("u2", "e1", "two", 4),
        entry("compaction", "c2", "u2", 5, summary="second", firstKeptEntryId="u1"),
        user("u3", "c2", "three", 6),
    )
    projection = project(session, "u3")
    assert projection.excluded == {Reason.SUPERSEDED: 1}
    assert reasons(session, "u3")["c1"] == (Reason.SUPERSEDED, "c2")


def test_null_content_of_replies_and_tool_results_is_an_empty_list_like_pi(tmp_path: Path) -> None:
    session = open_rows(
        tmp_path,
        user("u1", None, "q", 1),
        entry("message", "a1", "u1", 2, message={"role": "assistant", "content": None}),
        entry("message", "t1", "a1", 3, message={"role": "toolResult", "content": None}),
        entry("message", "n1", "t1", 4, message={"role": "narrator", "content": None}),  # other roles: as is
    )
    assert [m["content"] for m in project(session, "n1").messages(session)] == ["q", [], [], None]
