"""`--json` of every subcommand on a session full of terminal controls JSON leaves raw (C1 such
as U+009B, CSI; bidi controls; U+2028/2029; DEL): none is written raw, each is a `\\uXXXX`
escape, and the output parses to exactly the values in the session."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pi_sessions.core.common.jsonout import escape_terminal_controls, escape_terminal_controls_in

from tests.helpers.sessions import assistant, entry, header, jsonl, user

EVIL = "x\u009b31m\u0085\u202e\u202a\u2066\u2069\u200e\u200f\u061c\u2028\u2029\x7f\u00ad\ufeff\U000e0041y"
RAW = [c for c in EVIL if c not in "xy31m"]


def _session(tmp_path: Path) -> Path:
    path = tmp_path / "sessions" / "--p--" / "s.jsonl"
    path.parent.mkdir(parents=True)
    call = {"type": "toolCall", "id": "t1", "name": "read", "arguments": {"path": "/f" + EVIL}}
    result = {"role": "toolResult", "toolCallId": "t1", "toolName": "read", "timestamp": 3,
              "content": [{"type": "text", "text": "out " + EVIL}]}  # fmt: skip
    path.write_bytes(
        jsonl(
            header(cwd="/home/" + EVIL),
            user("u" + EVIL, None, "needle " + EVIL),
            assistant(
                "a",
                "u" + EVIL,
                "answer " + EVIL,
                1,
                content=[{"type": "text", "text": EVIL}, call],
                stopReason="toolUse",
                model="m" + EVIL,
            ),
            entry("message", "r", "a", 2, message=result),
            entry("label", "l", "r", 3, targetId="a", label="needle " + EVIL),
            entry("session_info", "n", "l", 4, name="name " + EVIL),
        )
    )
    return path


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_every_json_form_escapes_terminal_controls_and_keeps_the_values(tmp_path: Path) -> None:
    path = _session(tmp_path)
    folder = str(path.parent.parent)
    forms = [
        ("list", "--session-dir", folder),
        ("tree", str(path)),
        ("context", str(path)),  # (one leaf: the early writer's path, copied by the kernel)
        ("context", str(path), "--leaf", "a"),
        ("context", str(path), "--all"),
        ("search", "needle", "--session-dir", folder),
        ("search", "needle", "--deep", "--session-dir", folder),
        ("labels", "--session-dir", folder),
        ("compare", str(path), "u" + EVIL, "r"),
        ("stats", str(path)),
        ("files", str(path)),
        ("fork", str(path), "--leaf", "r", "--dry-run"),
    ]
    for args in forms:
        out = subprocess.run(
            [sys.executable, "-m", "pi_sessions.app.cli", *args, "--json"], capture_output=True, timeout=60
        )
        assert out.returncode == 0, (args, out.stderr)
        text = out.stdout.decode("utf-8")
        raw = sorted({repr(c) for c in text if c in RAW})
        assert not raw, (args, raw)
        values = [json.loads(line) for line in text.splitlines()]
        assert values, args
        strings = [s for v in values for s in _strings(v)]
        assert any(EVIL in s for s in strings), args  # the very characters, once parsed
    # config --json holds no session text, and says so with the same writer
    assert subprocess.run([sys.executable, "-m", "pi_sessions.app.cli", "config", "--json"],
                          capture_output=True, timeout=60).returncode == 0  # fmt: skip


@pytest.mark.parametrize("cut", range(1, 12))
def test_pieces_cut_inside_a_character_are_escaped_like_the_whole(cut: int) -> None:
    data = json.dumps({"k": EVIL, "é": "\u2026"}, ensure_ascii=False).encode()
    whole = escape_terminal_controls(data)
    pieces = [data[i : i + cut] for i in range(0, len(data), cut)]
    assert b"".join(escape_terminal_controls_in(pieces)) == whole
    assert json.loads(whole) == json.loads(data) and whole.isascii() is False  # é stays raw
    assert not any(c in whole.decode() for c in RAW)


def test_a_hit_in_the_early_writers_file_is_escaped_not_copied(tmp_path: Path) -> None:
    path = _session(tmp_path)
    with open(tmp_path / "out", "wb") as target:  # a real file: sendfile could copy it
        out = subprocess.run(
            [sys.executable, "-m", "pi_sessions.app.cli", "context", str(path), "--json"],
            stdout=target,
            timeout=60,
        )
    assert out.returncode == 0
    data = (tmp_path / "out").read_bytes()
    assert "\u009b".encode() not in data and b"\\u009b" in data
