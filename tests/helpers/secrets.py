"""A hand-made session holding one secret of each kind, and where each one is (which entry,
which fate at the default leaf). The values are made up, shaped as each provider's."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from .sessions import assistant, entry, header, jsonl, user

AWS_ID = "AKIA" + "QWERTYUIOPASDFGH"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "Zq8Tr3Nv2W"
GITHUB = "ghp_" + "x7Rk2mQ9vL4pT8wZ3nB6cY1dF5gH0jK2sA9e"
SLACK = "xoxb-" + "2048736150-1198375621-Qm7Tz2Lp9Xc4Vb8Nd3"
STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
PEM_BODY = "\n".join(
    base64.b64encode(bytes((i * 37 + j) % 256 for j in range(48))).decode() for i in range(6)
)
PRIVATE_KEY = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----"
URL_PASSWORD = "Tr0ub4dor-3x"
JWT = (
    base64.urlsafe_b64encode(json.dumps({"alg": "HS256", "typ": "JWT"}).encode()).decode().rstrip("=")
    + "."
    + base64.urlsafe_b64encode(json.dumps({"sub": "1234567890", "name": "Ada"}).encode()).decode().rstrip("=")
    + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
ENTROPY_TOKEN = "9f8Kq2LmZ7xR4tVb1NcW6yHd3JpE5sUa"

# kind -> (value, entry id, fate at the default leaf, source)
EXPECTED: dict[str, tuple[str, str, str, str]] = {
    "aws-access-key-id": (AWS_ID, "r1", "sent", "read"),
    "aws-secret-access-key": (AWS_SECRET, "r1", "sent", "read"),
    "stripe-key": (STRIPE, "r1", "sent", "read"),
    "github-token": (GITHUB, "u1", "sent", "user"),
    "slack-token": (SLACK, "c1", "sent", "bash"),
    "private-key": (PRIVATE_KEY, "r2", "sent", "bash"),
    "url-password": (URL_PASSWORD, "a2", "sent", "assistant"),
    "jwt": (JWT, "u2", "sent", "user"),
    "keyword-secret": (ENTROPY_TOKEN, "xr", "off-path", "bash"),
}


def _call(
    entry_id: str, parent: str, n: int, call_id: str, name: str, args: dict[str, Any]
) -> dict[str, Any]:
    return assistant(
        entry_id,
        parent,
        "",
        n,
        content=[{"type": "toolCall", "id": call_id, "name": name, "arguments": args}],
        stopReason="toolUse",
    )


def _result(entry_id: str, parent: str, n: int, call_id: str, name: str, text: str) -> dict[str, Any]:
    message = {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": [{"type": "text", "text": text}],
        "isError": False,
        "timestamp": n,
    }
    return entry("message", entry_id, parent, n, message=message)


def write_secret_session(folder: Path) -> Path:
    """The session: a main line with every kind but one, and an abandoned branch (from a1) whose
    tool output holds a keyword-named random token."""
    env = f"AWS_ACCESS_KEY_ID={AWS_ID}\nAWS_SECRET_ACCESS_KEY={AWS_SECRET}\nSTRIPE_KEY={STRIPE}\nDEBUG=1\n"
    lines = [
        header(),
        user("u0", None, "Set up the deploy script", 1),
        _call("a1", "u0", 2, "call_1", "read", {"path": ".env"}),
        # the abandoned branch
        _result("xr", "a1", 3, "call_1", "bash", f"export API_TOKEN={ENTROPY_TOKEN}\n"),
        # the main line
        _result("r1", "a1", 4, "call_1", "read", env),
        user("u1", "r1", f"Use my token {GITHUB} for the release", 5),
        _call("c1", "u1", 6, "call_2", "bash", {"command": f"curl -H 'Authorization: Bearer {SLACK}' x"}),
        _result("r2", "c1", 7, "call_2", "bash", f"cat id_rsa\n{PRIVATE_KEY}\n"),
        assistant("a2", "r2", f"Connect with postgres://deploy:{URL_PASSWORD}@db.internal:5432/app", 8),
        user("u2", "a2", f"The session cookie was {JWT}", 9),
        assistant("a3", "u2", "Done.", 10),
    ]
    path = folder / "2025-03-01T10-00-00-000Z_0195aaaa-0000-7000-8000-000000000001.jsonl"
    path.write_bytes(jsonl(*lines))
    return path
