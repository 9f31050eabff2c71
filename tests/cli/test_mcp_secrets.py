"""`pi-sessions mcp` keeps secrets out of its answers unless told not to: the hand-made session
with one credential of each kind, asked through the tools by the SDK's own client over stdio,
answers with `[redacted: KIND]` in their place by default, and with the session's own text
(the command line's JSON, byte for byte) under `--no-redact`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.cli import cli
from tests.helpers.mcp import COMMAND, calls, note, text
from tests.helpers.secrets import EXPECTED, GITHUB, write_secret_session

pytestmark = pytest.mark.skipif(not COMMAND.exists(), reason="no .venv/bin/pi-sessions in this checkout")

EVERYTHING = {"limit": 1000, "max_chars": 0}
# words whose hits land on each secret's entry (an excerpt is cut around its hit)
QUERIES = ("token", "AWS", "postgres", "cookie", "BEGIN", "Bearer", "AAECAwQF", "SflKxwRJ", "export")


def wanted(session: Path) -> list[tuple[str, dict[str, Any]]]:
    root = str(session.parent)
    asked: list[tuple[str, dict[str, Any]]] = [
        ("search", {"query": q, "deep": True, "session_dir": root, **EVERYTHING}) for q in QUERIES
    ]
    asked += [
        ("context", {"path": str(session), **EVERYTHING}),
        ("context", {"path": str(session), "leaf": "xr", **EVERYTHING}),
        ("context", {"path": str(session), "all": True, **EVERYTHING}),
        ("tree", {"path": str(session), **EVERYTHING}),
        ("compare", {"path": str(session), "leaf_a": "a3", "leaf_b": "xr", **EVERYTHING}),
        ("files", {"path": str(session), **EVERYTHING}),
        ("stats", {"path": str(session), **EVERYTHING}),
        ("list", {"session_dir": root, **EVERYTHING}),
    ]
    return asked


def pieces(secret: str, size: int = 12) -> set[str]:
    """Every run of `size` characters of the secret, as JSON writes it and with its white space
    collapsed (as an excerpt shows it)."""
    forms = {json.dumps(secret)[1:-1], " ".join(secret.split())}
    return {form[i : i + size] for form in forms for i in range(len(form) - size + 1)}


def test_answers_are_redacted_by_default_even_where_an_excerpt_cuts_a_secret(tmp_path: Path) -> None:
    (tmp_path / "sessions").mkdir()
    session = write_secret_session(tmp_path / "sessions")
    asked = wanted(session)
    *results, error = calls(*asked, ("context", {"path": str(session), "leaf": GITHUB}))
    answers = [text(r) for r in results]
    # an error line that quotes a secret (here the agent's own argument) is redacted too
    assert error.is_error and GITHUB not in error.content[0].text
    assert "[redacted: github-token]" in error.content[0].text
    everything = "\n".join(answers)
    for kind, (value, *_) in EXPECTED.items():
        leaked = sorted(p for p in pieces(value) if p in everything)
        assert not leaked, (kind, leaked[:3])
        assert f"[redacted: {kind}]" in everything, kind
    # the answers are still JSON, and say what was done
    for (name, args), answer, result in zip(asked, answers, results, strict=True):
        for line in answer.splitlines():
            json.loads(line)
        if "[redacted: " in answer:
            assert "redacted:" in note(result) and "--no-redact" in note(result), (name, args)
    # the abandoned branch's token, and the search hit inside the private key
    assert "[redacted: keyword-secret]" in answers[len(QUERIES) + 1]
    hit = json.loads(answers[QUERIES.index("AAECAwQF")])
    assert hit["entry_id"] == "r2" and "[redacted: private-key]" in hit["excerpt"]


def test_no_redact_answers_with_the_session_text_as_the_command_line_prints_it(tmp_path: Path) -> None:
    (tmp_path / "sessions").mkdir()
    session = write_secret_session(tmp_path / "sessions")
    asked = wanted(session)
    results = calls(*asked, flags=["--no-redact"])
    everything = "\n".join(text(r) for r in results)
    for kind, (value, *_) in EXPECTED.items():
        assert json.dumps(value)[1:-1] in everything, kind
    assert "[redacted: " not in everything
    for (name, args), result in zip(asked[len(QUERIES) :], results[len(QUERIES) :], strict=True):
        argv = [name, "--json"]
        for key, value in args.items():
            if key in EVERYTHING or key == "path":
                continue
            flag = "--" + key.replace("_", "-")
            argv += [flag] if value is True else [flag, str(value)]
        if name == "compare":
            argv = [name, "--json", str(session), "a3", "xr"]
        elif "path" in args:
            argv.append(str(session))
        assert text(result) == cli(*argv).stdout, (name, args)
        assert note(result) == "", (name, note(result))
