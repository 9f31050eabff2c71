"""The audit's two ways to the candidate lines (core/audit/anchors.py) find the same secrets:
over every corpus file, the hand-made session, and copies of both spelt otherwise (keywords in
other cases, `/` escaped, a tab before a token, values quoted in single quotes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pi_sessions.core.audit import anchors
from pi_sessions.core.audit.scan import _scan_lines

from tests.helpers.corpus import FIXTURES, SHARED_FIXTURES
from tests.helpers.secrets import EXPECTED, write_secret_session

pytestmark = pytest.mark.skipif(anchors._FAST is None, reason="ahocorasick_rs is not installed")


def _found(lines: list[bytes]) -> list[tuple[str | None, str, str]]:
    return [(r.entry_id, r.secret.kind, r.secret.value) for r in _scan_lines(lines, None)]


def _variants(data: bytes) -> list[bytes]:
    """The same bytes spelt as other writers spell them."""
    return [
        data,
        data.replace(b"API_TOKEN", b"Api_ToKeN").replace(b"AWS_SECRET_ACCESS_KEY", b"aws_Secret_Access_KEY"),
        data.replace(b"/", b"\\/"),
        data.replace(b"Bearer ", b"bearer\\t").replace(b"://", b":\\/\\/"),
        data.replace(b"=", b": '").replace(b"\\n", b"'\\n"),
        data.upper(),
        data.lower(),
        b"\n".join(line[: len(line) // 2] for line in data.split(b"\n")),  # every line cut off
    ]


def _files() -> list[Path]:
    return sorted(
        [*FIXTURES.rglob("*.jsonl"), *(SHARED_FIXTURES.rglob("*.jsonl") if SHARED_FIXTURES.is_dir() else [])]
    )


def test_the_fast_and_general_anchors_find_the_same_secrets(tmp_path: Path) -> None:
    sources = [write_secret_session(tmp_path).read_bytes()] + [p.read_bytes() for p in _files()]
    assert len(sources) > 10
    checked = 0
    for source in sources:
        for data in _variants(source):
            fast, general = anchors.candidate_lines(data), anchors.candidate_lines_general(data)
            assert set(fast) <= set(general)
            assert _found(fast) == _found(general)
            checked += 1
    assert checked == len(sources) * 8


def test_the_hand_made_sessions_secrets_are_found_by_the_fast_path_in_any_spelling(tmp_path: Path) -> None:
    data = write_secret_session(tmp_path).read_bytes()
    kinds = {kind for _, kind, _ in _found(anchors.candidate_lines(data))}
    assert kinds == set(EXPECTED)
    swapped = data.replace(b"API_TOKEN", b"ApI_tOkEn")
    assert {k for _, k, _ in _found(anchors.candidate_lines(swapped))} == set(EXPECTED)
    # a line with nothing a rule needs is not a candidate
    plain = json.dumps({"type": "message", "text": "a token of thanks, key points"}).encode()
    assert anchors.candidate_lines(plain) == []
