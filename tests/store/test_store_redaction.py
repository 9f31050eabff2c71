"""A push redacts: each secret of the hand-made session is stored as `[redacted: KIND]`, every
stored line still one JSON line, a value quoted again in a later append redacted too; with
`--no-redact` the file is stored byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast

from tests.helpers.cli import cli
from tests.helpers.postgres import Store
from tests.helpers.secrets import AWS_SECRET, EXPECTED, write_secret_session
from tests.helpers.sessions import jsonl, user


def _stored(store: Store, path: Path) -> bytes:
    found = store.sql(
        "SELECT string_agg(l.raw, ''::bytea ORDER BY l.byte_offset) FROM pi_sessions.lines l"
        f" JOIN pi_sessions.sessions s ON s.id = l.session WHERE s.path = '{path}'"
    )
    return bytes(cast(bytes, found[0][0])) if found and found[0][0] is not None else b""


def _leaks(data: bytes) -> list[str]:
    text = data.decode("utf-8")
    leaked = []
    for kind, (value, *_) in EXPECTED.items():
        pieces = [value, *(line for line in value.split("\n") if len(line) >= 8)]
        if any(piece in text or json.dumps(piece)[1:-1] in text for piece in pieces):
            leaked.append(kind)
    return leaked


def _push(store: Store, root: Path, *extra: str) -> str:
    result = cli("push", store.dsn("alice"), "--session-dir", str(root), "--host", "laptop", *extra)
    assert result.code == 0, result.stderr
    return result.stderr


def test_a_push_stores_each_secret_redacted_in_valid_json_lines(store: Store, tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    folder = root / "--home-u-proj--"
    folder.mkdir(parents=True)
    path = write_secret_session(folder)
    _push(store, root)
    data = _stored(store, path)
    assert data.count(b"\n") == path.read_bytes().count(b"\n")
    assert not _leaks(data)
    lines = [json.loads(line) for line in data.splitlines()]
    assert len(lines) == len(path.read_bytes().splitlines())
    for kind in EXPECTED:
        assert f"[redacted: {kind}]".encode() in data, kind
    assert lines[1] == json.loads(path.read_bytes().splitlines()[1])  # a line without one: as it was

    # An append quoting the AWS secret without its keyword (no rule would see it alone).
    with path.open("ab") as f:
        f.write(jsonl(user("u9", "a3", f"and again: {AWS_SECRET}", 11)))
    _push(store, root)
    data = _stored(store, path)
    assert AWS_SECRET.encode() not in data
    assert json.loads(data.splitlines()[-1])["message"]["content"] == (
        "and again: [redacted: aws-secret-access-key]"
    )


def test_no_redact_stores_the_file_as_it_is_and_warns(store: Store, tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    folder = root / "--home-u-proj--"
    folder.mkdir(parents=True)
    path = write_secret_session(folder)
    warning = _push(store, root, "--no-redact")
    assert "--no-redact" in warning
    assert _stored(store, path) == path.read_bytes()
