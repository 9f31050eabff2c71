"""The resume check's findings agree with what pi 1.6.0 itself did with the same files
(tests/fixtures/resume-checks/pi-1.6.0.json, written by its pi_resume_check.mjs)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pi_sessions.core.common.problems import SessionError
from pi_sessions.core.projection.readiness import Code, readiness
from pi_sessions.core.session.session import Session

from tests.helpers.corpus import expected_files, load_expected, session_path_for
from tests.helpers.sessions import assistant, entry, header, user, write

FIXTURES = Path(__file__).parents[2] / "fixtures" / "resume-checks"
PI = json.loads((FIXTURES / "pi-1.6.0.json").read_text())
LOGINS = [json.loads(line) for line in (FIXTURES / "pi-1.6.0-logins.jsonl").read_text().splitlines()]


def pi_says(answer: dict[str, Any], version_raw: Any) -> dict[Code, Any]:
    """The findings pi's answer implies, by code (orphans: the calls pi answered itself)."""
    out: dict[Code, Any] = {}
    if answer["modified_on_open"] and version_raw in (None, 1, 2):
        out[Code.MIGRATES_ON_OPEN] = True
    if answer["header_version"] > 3 and answer["header_after_append"] == answer["header_version"]:
        out[Code.NEWER_VERSION] = True  # opened, appended to, and the header left as it was
    if answer["synthetic_results"]:
        out[Code.ORPHAN_TOOL_CALL] = sorted(answer["synthetic_results"])
    if answer["model_found"] is False:
        out[Code.UNKNOWN_MODEL] = answer["selection"]
    if answer["cwd_issue"]:
        out[Code.CWD_MISSING] = True
    return out


def ours(path: Path, agent: Path) -> dict[Code, Any]:
    session = Session.open(path)
    assert session.default_leaf is not None
    out: dict[Code, Any] = {}
    for finding in readiness(session, session.default_leaf, agent=str(agent)).findings:
        if finding.code is Code.ORPHAN_TOOL_CALL:
            out[finding.code] = sorted([*out.get(finding.code, []), *finding.tool_call_ids])
        elif finding.code is Code.UNKNOWN_MODEL:
            out[finding.code] = finding.message.split("the model ")[1].split(" ")[0]
        else:
            out[finding.code] = True
    return out


@pytest.mark.parametrize("name", sorted(n for n in PI if "open_error" not in PI[n]))
def test_each_hand_made_file_gets_the_findings_pi_showed(name: str, tmp_path: Path) -> None:
    path = FIXTURES / name
    raw = json.loads(path.read_text().splitlines()[0]).get("version")
    assert ours(path, tmp_path) == pi_says(PI[name], raw)


def test_every_finding_has_a_fixture_where_pi_showed_it() -> None:
    seen: set[Code] = set()
    for name, answer in PI.items():
        if "open_error" in answer:
            seen.add(Code.NOT_A_SESSION)
            continue
        seen.update(pi_says(answer, json.loads((FIXTURES / name).read_text().splitlines()[0]).get("version")))
    if any(case["modelFallbackMessage"] for case in LOGINS):  # (tests/unit/projection/test_pi_logins.py)
        seen.add(Code.NO_LOGIN)
    assert seen == set(Code)


def test_a_file_pi_refuses_is_refused() -> None:
    assert "not a valid pi session" in PI["not-a-session.jsonl"]["open_error"]
    with pytest.raises(SessionError, match="not a pi session"):
        Session.open(FIXTURES / "not-a-session.jsonl")


def test_a_model_the_users_models_json_adds_is_restored(tmp_path: Path) -> None:
    path = FIXTURES / "unknown-model.jsonl"
    assert Code.UNKNOWN_MODEL in ours(path, tmp_path)
    models = {"providers": {"anthropic": {"models": [{"id": "claude-imaginary-9"}]}}}
    (tmp_path / "models.json").write_text("// pi reads comments\n" + json.dumps(models))
    assert Code.UNKNOWN_MODEL not in ours(path, tmp_path)


def test_a_model_change_after_the_last_reply_is_the_one_pi_restores(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        header(cwd="/"),
        user("u1", None, "hi", 1),
        assistant("a1", "u1", "hello", 2),
        entry("model_change", "m1", "a1", 3, provider="nowhere", modelId="gone-1"),
    )
    assert ours(path, tmp_path) == {Code.UNKNOWN_MODEL: "nowhere/gone-1"}


def test_a_context_edit_that_removes_a_result_makes_its_call_an_orphan(tmp_path: Path) -> None:
    call = {"type": "toolCall", "id": "c1", "name": "ls", "arguments": {"path": "."}}
    result = {"role": "toolResult", "toolCallId": "c1", "toolName": "ls", "content": [], "isError": False}
    path = write(
        tmp_path / "s.jsonl",
        header(cwd="/"),
        user("u1", None, "hi", 1),
        assistant("a1", "u1", "", 2, content=[call], stopReason="toolUse"),
        entry("message", "r1", "a1", 3, message=result),
        assistant("a2", "r1", "done", 4),
        entry("context_edit", "x1", "a2", 5, targetId="r1", replacement=None),
    )
    assert ours(path, tmp_path) == {Code.ORPHAN_TOOL_CALL: ["c1"]}


def test_the_corpus_agrees_with_pi_on_which_model_it_cannot_restore(tmp_path: Path) -> None:
    # The corpus's pi wrote replies of openai/gpt-5.1-codex, which pi 1.6.0's catalog lacks.
    flagged = 0
    for expected in expected_files():
        session = Session.open(session_path_for(expected, load_expected(expected)))
        leaf = session.default_leaf
        if leaf is None or session.header is None:
            continue
        findings = readiness(session, leaf, agent=str(tmp_path)).findings
        codes = {f.code for f in findings}
        flagged += Code.UNKNOWN_MODEL in codes
        assert Code.NEWER_VERSION not in codes
        assert (Code.MIGRATES_ON_OPEN in codes) == session.migrated
    assert flagged > 0
