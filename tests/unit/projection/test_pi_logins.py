"""`check`'s login finding agrees with what pi 1.6.0 did (tests/fixtures/resume-checks/
pi-1.6.0-logins.jsonl, written by pi_login_check.mjs: pi's own createAgentSession with each
case's auth.json and variables), reads auth.json with the guarded reader and never shows a key."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from pi_sessions.core.projection.pi_logins import login_check
from pi_sessions.core.projection.readiness import Code, readiness
from pi_sessions.core.session.session import Session

from tests.helpers.cli import cli

FIXTURES = Path(__file__).parents[2] / "fixtures" / "resume-checks"
CASES = [json.loads(line) for line in (FIXTURES / "pi-1.6.0-logins.jsonl").read_text().splitlines()]


def codes(path: Path, agent: Path, env: dict[str, str]) -> set[Code]:
    session = Session.open(path)
    assert session.default_leaf is not None
    found = readiness(session, session.default_leaf, agent=str(agent), has_login=login_check(str(agent), env))
    return {f.code for f in found.findings}


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_a_login_counts_exactly_when_pi_restored_the_model_with_it(
    case: dict[str, Any], tmp_path: Path
) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    if case["auth"] is not None:
        (agent / "auth.json").write_text(json.dumps(case["auth"]))
    found = codes(FIXTURES / case["file"], agent, dict(case["env"]))
    pi_fell_back = (
        case["modelFallbackMessage"] is not None
    )  # "Could not restore model" / "No models available"
    assert (Code.NO_LOGIN in found) == pi_fell_back, case


def test_without_a_login_check_nothing_is_said_about_logins(tmp_path: Path) -> None:
    session = Session.open(FIXTURES / "ready.jsonl")
    assert session.default_leaf is not None
    assert readiness(session, session.default_leaf, agent=str(tmp_path)).findings == []


def test_an_unknown_model_is_one_finding_not_two(tmp_path: Path) -> None:
    assert codes(FIXTURES / "unknown-model.jsonl", tmp_path, {}) == {Code.UNKNOWN_MODEL}


def test_a_provider_models_json_gives_a_key_or_an_unknown_one_is_not_judged(tmp_path: Path) -> None:
    check = login_check(str(tmp_path), {})
    assert check("anthropic") is False
    assert check("some-extension-provider") is None
    models = {"providers": {"anthropic": {"apiKey": "ANTHROPIC_PROXY_KEY", "baseUrl": "http://localhost"}}}
    (tmp_path / "models.json").write_text(json.dumps(models))
    assert login_check(str(tmp_path), {})("anthropic") is None


def test_cloud_credentials_are_a_login_for_bedrock(tmp_path: Path) -> None:
    assert login_check(str(tmp_path), {})("amazon-bedrock") is False
    assert login_check(str(tmp_path), {"AWS_PROFILE": "work"})("amazon-bedrock") is True
    pair = {"AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b"}
    assert login_check(str(tmp_path), pair)("amazon-bedrock") is True


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "huge", "not-json", "a-list"])
def test_an_auth_json_that_is_not_a_small_regular_file_is_no_login_and_never_blocks(
    kind: str, tmp_path: Path
) -> None:
    auth = tmp_path / "auth.json"
    if kind == "fifo":
        os.mkfifo(auth)
    elif kind == "dev-zero":
        auth.symlink_to("/dev/zero")
    elif kind == "huge":
        auth.write_text(json.dumps({"anthropic": {"type": "api_key", "key": "k"}, "pad": "x" * (5 << 20)}))
    else:
        auth.write_text("{not json" if kind == "not-json" else "[]")
    assert login_check(str(tmp_path), {})("anthropic") is False


def test_check_warns_without_a_login_and_never_shows_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    ready = str(FIXTURES / "ready.jsonl")
    result = cli("check", ready, "--json")
    assert result.code == 3
    [finding] = json.loads(result.stdout)["findings"]
    assert finding["code"] == "no-login" and "ANTHROPIC_API_KEY" in finding["message"]
    assert "no login for the model" in cli("check", ready).stdout
    secret = "sk-ant-SECRET-VALUE-1234"
    (agent / "auth.json").write_text(json.dumps({"anthropic": {"type": "api_key", "key": secret}}))
    for args in (("check", ready), ("check", ready, "--json")):
        result = cli(*args)
        assert result.code == 0 and secret not in result.stdout + result.stderr
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    (agent / "auth.json").unlink()
    result = cli("check", ready, "--json")
    assert result.code == 3 and secret not in result.stdout + result.stderr
