"""Small builders for hand-made session files."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

HEADER_ID = "0195aaaa-0000-7000-8000-000000000001"


def header(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "type": "session",
        "version": 3,
        "id": HEADER_ID,
        "timestamp": "2025-03-01T10:00:00.000Z",
        "cwd": "/home/u/proj",
    }
    base.update(fields)
    return base


def ts(n: int) -> str:
    """A timestamp n seconds after 10:00."""
    return f"2025-03-01T{10 + n // 3600:02d}:{(n // 60) % 60:02d}:{n % 60:02d}.000Z"


def entry(type_: str, entry_id: str, parent: str | None, n: int = 0, **fields: Any) -> dict[str, Any]:
    return {"type": type_, "id": entry_id, "parentId": parent, "timestamp": ts(n), **fields}


def user(entry_id: str, parent: str | None, text: str, n: int = 0) -> dict[str, Any]:
    return entry("message", entry_id, parent, n, message={"role": "user", "content": text, "timestamp": 1})


def assistant(entry_id: str, parent: str | None, text: str, n: int = 0, **msg: Any) -> dict[str, Any]:
    message = {
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
        "usage": {"input": 10, "output": 5, "totalTokens": 15, "cost": {"total": 0.01}},
        "stopReason": "stop",
        "timestamp": 2,
    }
    message.update(msg)
    return entry("message", entry_id, parent, n, message=message)


def cached_reply(
    eid: str, parent: str, n: int, read: int, written: int, fresh: int = 100, **msg: Any
) -> dict[str, Any]:
    """A reply that read `read` tokens from the prompt cache and wrote `written` to it."""
    usage = {
        "input": fresh,
        "output": 50,
        "cacheRead": read,
        "cacheWrite": written,
        "totalTokens": fresh + 50 + read + written,
        # $3 per million input tokens, $0.30 per million read from the cache
        "cost": {"input": fresh * 3e-6, "output": 0, "cacheRead": read * 3e-7, "cacheWrite": 0, "total": 0},
    }
    return assistant(eid, parent, "ok", n, usage=usage, **msg)


def system(entry_id: str, parent: str | None, n: int = 0, **msg: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "system", "content": "", "timestamp": 0}
    message.update(msg)
    return entry("message", entry_id, parent, n, message=message)


def jsonl(*objects: Any) -> bytes:
    return b"".join(json.dumps(o).encode() + b"\n" for o in objects)


def write(path: Path, *objects: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(jsonl(*objects))
    return path


def chain(count: int, start_parent: str | None = None) -> list[dict[str, Any]]:
    """A linear user/assistant conversation of `count` entries with ids e0, e1, ..."""
    out = []
    parent = start_parent
    for i in range(count):
        eid = f"e{i}"
        out.append(
            user(eid, parent, f"question {i}", i) if i % 2 == 0 else assistant(eid, parent, f"answer {i}", i)
        )
        parent = eid
    return out


def two_fork_session(path: Path) -> Path:
    """A tree with two fork points, the active branch written last, and a label (on u4):

        u1 a1 u2 a2 ┬ u3 a3 u5 (l1: the label entry)
                    └ u4 a4 ┬ u6
                            └ u7 a7   <- the active leaf

    pi 1.6.0's tree selector was driven over this very file for the expectations of the
    key tests (tests/test_tree_moves.py, tests/test_keys_app.py)."""
    return write(
        path,
        header(),
        user("u1", None, "first question", 1),
        assistant("a1", "u1", "first answer", 2),
        user("u2", "a1", "second question", 3),
        assistant("a2", "u2", "second answer", 4),
        user("u3", "a2", "branch one question", 5),
        assistant("a3", "u3", "branch one answer", 6),
        user("u5", "a3", "branch one follow up", 7),
        entry("label", "l1", "u5", 8, targetId="u4", label="checkpoint"),
        user("u4", "a2", "branch two question", 9),
        assistant("a4", "u4", "branch two answer", 10),
        user("u6", "a4", "branch two a", 11),
        user("u7", "a4", "branch two b", 12),
        assistant("a7", "u7", "branch two b answer", 13),
    )


def calls(record: Path) -> list[list[str]]:
    """What the fake `pi` (conftest's fake_pi) was run with: [cwd, *args] per run."""
    if not record.exists():
        return []
    return [c.strip("\n").splitlines() for c in record.read_text().split("--\n") if c.strip()]


def rewrite_keeping_size_and_mtime(path: Path, data: bytes) -> None:
    """`data` written over `path` (same length, same inode) and its mtime put back: only its
    ctime tells (which nobody can put back)."""
    before = path.stat()
    assert len(data) == before.st_size and data != path.read_bytes()
    with open(path, "r+b") as f:
        f.write(data)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    # A file written within the clock's last tick may get the same ctime: the next tick's differs.
    while path.stat().st_ctime_ns == before.st_ctime_ns:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino,
        before.st_size,
        before.st_mtime_ns,
    )


# ---------------------------------------------------------------- sessions to search in
def tool_result(entry_id: str, parent: str, text: str, n: int = 0) -> dict[str, Any]:
    message = {
        "role": "toolResult",
        "toolCallId": "call1",
        "toolName": "bash",
        "content": [{"type": "text", "text": text}],
        "isError": False,
        "timestamp": 3,
    }
    return entry("message", entry_id, parent, n, message=message)


def branched(path: Path) -> Path:
    """A session to search in: u1 -> a1 -> u2 -> a2 is the active path (a2 is the last line);
    u3 -> a3 hangs off a1."""
    return write(
        path,
        header(),
        user("u1", None, "Fix the flaky scheduler test", 1),
        assistant("a1", "u1", "Let me look at the scheduler.", 2),
        user("u3", "a1", "No, explain why that works first", 3),
        assistant("a3", "u3", "It works because the lock is held.", 4),
        user("u2", "a1", "Go ahead and fix it", 5),
        tool_result("t2", "u2", "PASS src/scheduler.test.ts (12 tests, 94 TODO markers)", 6),
        assistant("a2", "t2", "Fixed; the tests pass.", 7),
    )


def kitchen(path: Path) -> Path:
    """A session with a line of every kind the deep search reads (thinking, tool calls, bash,
    custom messages, summaries, labels)."""
    thinking = {"type": "thinking", "thinking": "maybe the cache is stale"}
    call = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "rg -n frobnicate"}}
    bash = {
        "role": "bashExecution",
        "command": "make deploy",
        "output": "deployed to staging",
        "timestamp": 5,
    }
    custom = {"role": "custom", "customType": "note", "content": "custom role text", "timestamp": 6}
    return write(
        path,
        header(),
        user("u1", None, "start", 1),
        assistant("a1", "u1", "ok", 2, content=[thinking, {"type": "text", "text": "ok"}, call]),
        tool_result("t1", "a1", "src/x.ts: frobnicate() is unused", 3),
        entry("message", "b1", "t1", 4, message=bash),
        entry("message", "c1", "b1", 5, message=custom),
        entry("custom_message", "m1", "c1", 6, customType="todo", content="remember the release notes"),
        entry("branch_summary", "s1", "m1", 7, fromId="a1", summary="we tried the quick fix"),
        entry("compaction", "k1", "s1", 8, summary="goal: ship it", firstKeptEntryId="s1", tokensBefore=5),
        entry("label", "l1", "k1", 9, targetId="t1", label="good output"),
        entry("label", "l2", "l1", 10, targetId="u1", label="gone"),
        entry("label", "l3", "l2", 11, targetId="u1"),  # cleared
        entry("label", "l4", "l3", 12, targetId="nowhere", label="orphan label"),
    )


# ---------------------------------------------------------------- paid replies
def iso_ms(iso: str) -> int:
    """An ISO time (UTC) in milliseconds, as pi writes a message's timestamp."""
    from datetime import datetime

    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def reply(
    entry_id: str,
    parent: str | None,
    at: str,
    *,
    tokens: tuple[int, int, int, int] = (100, 20, 1000, 50),
    cost: float = 0.01,
    billed: bool | None = None,
    provider: str = "anthropic",
    model: str = "claude-sonnet-4-5",
    written: str | None = None,
    **message: Any,
) -> dict[str, Any]:
    """An assistant reply made at `at` (ISO, UTC), its line written at `written` (default `at`)."""
    inp, out, read, write_ = tokens
    usage: dict[str, Any] = {
        "input": inp,
        "output": out,
        "cacheRead": read,
        "cacheWrite": write_,
        "totalTokens": sum(tokens),
        "cost": {"total": cost},
    }
    if billed is not None:
        usage["cost"]["totalFromProvider"] = billed
    body = {
        "role": "assistant",
        "content": [{"type": "text", "text": f"answer {entry_id}"}],
        "provider": provider,
        "model": model,
        "usage": usage,
        "stopReason": "stop",
        "timestamp": iso_ms(at),
        **message,
    }
    line = entry("message", entry_id, parent, message=body)
    line["timestamp"] = written or at
    return line
