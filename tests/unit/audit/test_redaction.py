"""Redaction: a redacted export of the hand-made session holds none of its secrets, each one
reads `[redacted: KIND]`, and the same value redacts the same way where no rule sees it."""

from __future__ import annotations

import json
from pathlib import Path

from pi_sessions.core.audit.redact import Redactor, line_redaction, redact_jsonl, redactor_for_file
from pi_sessions.core.session.session import Session
from pi_sessions.core.writing.export import export_context, export_tree

from tests.helpers.secrets import AWS_SECRET, EXPECTED, GITHUB, write_secret_session


def _secrets_in(data: bytes) -> list[str]:
    text = data.decode("utf-8")
    # JSON escapes a key's newlines: look for each line of a value too
    return [
        k for k, (v, *_) in EXPECTED.items() if any(part in text for part in v.split("\n") if len(part) > 8)
    ]


def test_a_redacted_export_holds_none_of_the_secrets(tmp_path: Path) -> None:
    path = write_secret_session(tmp_path)
    session = Session.open(path)
    out = tmp_path / "out"
    plain = [*export_tree(session, str(out)), *export_context(session, "xr", str(out))]
    assert all(_secrets_in(Path(p).read_bytes()) for p in plain)  # the check sees them unredacted
    redactor = redactor_for_file(str(path))
    redacted = [*export_tree(session, str(out), redactor), *export_context(session, "xr", str(out), redactor)]
    for p in redacted:
        data = Path(p).read_bytes()
        assert _secrets_in(data) == [], p
    tree_md = Path(redacted[0]).read_text()
    tree_json = Path(redacted[1]).read_text()
    for kind in EXPECTED:
        assert f"[redacted: {kind}]" in tree_json
    assert "[redacted: github-token]" in tree_md
    assert redactor.count > 0


def test_a_value_found_once_redacts_wherever_it_is_quoted_again() -> None:
    redactor = Redactor()
    assert redactor.text(f"aws_secret_access_key = {AWS_SECRET}") == (
        "aws_secret_access_key = [redacted: aws-secret-access-key]"
    )
    assert redactor.text(f"later: {AWS_SECRET}.") == "later: [redacted: aws-secret-access-key]."
    assert redactor.value({"a": [GITHUB, 3]}) == {"a": ["[redacted: github-token]", 3]}


def test_a_redacted_copy_of_the_file_is_still_a_session(tmp_path: Path) -> None:
    path = write_secret_session(tmp_path)
    data = redact_jsonl(path.read_bytes(), redactor_for_file(str(path)))
    assert _secrets_in(data) == []
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(data)
    assert Session.open(copy).entry_ids() == Session.open(path).entry_ids()


def test_a_files_line_redaction_keeps_plain_lines_and_redacts_quoted_values() -> None:
    env = json.dumps({"type": "message", "id": "r1", "text": f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}"})
    data = (env + "\n").encode()
    redact = line_redaction(data)
    plain = b'{"type":"message","id":"u0","n":1e5,"text":"hello token"}\n'
    assert redact(plain) is plain  # not decoded and written again: byte for byte
    quoted = json.dumps({"id": "u9", "text": f"again {AWS_SECRET}", "odd": "\ud800"}).encode() + b"\n"
    out = redact(quoted)
    assert out.endswith(b"\n") and AWS_SECRET.encode() not in out
    assert json.loads(out) == {"id": "u9", "text": "again [redacted: aws-secret-access-key]", "odd": "\ud800"}
