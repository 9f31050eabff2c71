"""A big sessions tree for benchmarks when pi's own generator is not installed.

Shaped like `node gen.mjs --big` (2,000 files over 40 cwds, mostly 20-500 entries, four
files of 20-80 MB made of long tool outputs, branches, compactions, labels), but written
here so the benchmarks also run on a machine without Node. `write_huge_session` writes one
session of any size (the 1 GB one) the same way.
"""

from __future__ import annotations

import json
import os
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path


def _cwds(n: int) -> list[str]:
    out = []
    for i in range(n):
        k = f"{i:02d}"
        out.append(
            [
                f"/home/u/proj-{k}",
                f"/srv/service-{k}",
                f"/home/u/work/repo-{k}/packages/app",
                f"/tmp/scratch-{k}",
            ][i % 4]
        )
    return out


class _Writer:
    def __init__(self, rng: random.Random, folder: Path, cwd: str, start: datetime) -> None:
        self.rng = rng
        self.clock = start
        self.session_id = (
            f"{int(start.timestamp() * 1000):012x}"[:8]
            + f"-{rng.getrandbits(16):04x}-7{rng.getrandbits(12):03x}-8{rng.getrandbits(12):03x}-{rng.getrandbits(48):012x}"
        )
        stamp = self.iso()
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"{stamp.replace(':', '-').replace('.', '-')}_{self.session_id}.jsonl"
        self.file = open(self.path, "w")  # noqa: SIM115
        self.ids: list[str] = []
        self.leaf: str | None = None
        self.count = 0
        self.write({"type": "session", "version": 3, "id": self.session_id, "timestamp": stamp, "cwd": cwd})

    def iso(self) -> str:
        return self.clock.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.clock.microsecond // 1000:03d}Z"

    def tick(self, seconds: float) -> None:
        self.clock += timedelta(seconds=seconds)

    def write(self, obj: dict) -> None:
        self.file.write(json.dumps(obj, separators=(",", ":")) + "\n")

    def append(self, kind: str, **fields: object) -> str:
        entry_id = f"{self.rng.getrandbits(32):08x}"
        self.write({"type": kind, "id": entry_id, "parentId": self.leaf, "timestamp": self.iso(), **fields})
        self.ids.append(entry_id)
        self.leaf = entry_id
        self.count += 1
        return entry_id

    def message(self, message: dict) -> str:
        message.setdefault("timestamp", int(self.clock.timestamp() * 1000))
        return self.append("message", message=message)

    def turn(self, tool_output: int = 400) -> None:
        rng = self.rng
        self.tick(rng.uniform(20, 300))
        self.message({"role": "user", "content": rng.choice(_QUESTIONS)})
        for _ in range(rng.randint(0, 3)):
            self.tick(rng.uniform(2, 20))
            call = f"toolu_{rng.getrandbits(64):016x}"
            self.message(
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": rng.choice(_ANSWERS)},
                        {
                            "type": "toolCall",
                            "id": call,
                            "name": "bash",
                            "arguments": {"command": "rg -n todo src"},
                        },
                    ],
                    "api": "anthropic-messages",
                    "provider": "anthropic",
                    "model": "claude-sonnet-4-5",
                    "usage": _usage(rng),
                    "stopReason": "toolUse",
                }
            )
            self.tick(rng.uniform(1, 10))
            output = _output(rng, tool_output)
            self.message(
                {
                    "role": "toolResult",
                    "toolCallId": call,
                    "toolName": "bash",
                    "content": [{"type": "text", "text": output}],
                    "isError": False,
                }
            )
        self.tick(rng.uniform(2, 30))
        self.message(
            {
                "role": "assistant",
                "content": [{"type": "text", "text": rng.choice(_ANSWERS)}],
                "api": "anthropic-messages",
                "provider": "anthropic",
                "model": "claude-sonnet-4-5",
                "usage": _usage(rng),
                "stopReason": "stop",
            }
        )

    def random_op(self) -> None:
        rng = self.rng
        r = rng.random()
        if r < 0.7:
            self.turn()
        elif r < 0.8 and len(self.ids) > 4:
            self.leaf = rng.choice(self.ids[:-1])  # a branch
            self.turn()
        elif r < 0.85:
            self.append(
                "compaction",
                summary="## Goal\nKeep going.",
                firstKeptEntryId=rng.choice(self.ids[-6:]),
                tokensBefore=rng.randint(20_000, 180_000),
            )
        elif r < 0.9:
            self.append(
                "label", targetId=rng.choice(self.ids), label=rng.choice(["start", "good", "checkpoint"])
            )
        elif r < 0.95:
            self.append("model_change", provider="openai", modelId="gpt-5.1-codex")
        else:
            self.append("session_info", name=rng.choice(_QUESTIONS)[:30])

    def close(self) -> int:
        self.file.close()
        return self.path.stat().st_size


def _usage(rng: random.Random) -> dict:
    i, o = rng.randint(500, 5000), rng.randint(20, 900)
    return {
        "input": i,
        "output": o,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": i + o,
        "cost": {
            "input": 0,
            "output": 0,
            "cacheRead": 0,
            "cacheWrite": 0,
            "total": round((i * 3 + o * 15) / 1e6, 6),
        },
    }


def _output(rng: random.Random, size: int) -> str:
    line = "src/server.ts:42:  // TODO: handle the empty case before reading the queue\n"
    return (line * (size // len(line) + 1))[:size]


_QUESTIONS = [
    "Fix the race condition in the job scheduler",
    "Why does CI fail on Node 20?",
    "Add a --dry-run flag",
    "Summarize what this repository does",
    "Use async/await instead of callbacks.",
]
_ANSWERS = [
    "Let me check the current implementation first.",
    "I'll start by looking at the relevant files.",
    "Done. The change is in place and the tests pass.",
    "The failure came from a stale mock; I updated it.",
]


def generate(
    out: Path,
    count: int = 2000,
    cwd_count: int = 40,
    huge_mb: tuple[int, ...] = (20, 35, 55, 80),
    seed: int = 7,
) -> None:
    rng = random.Random(seed)
    cwds = _cwds(cwd_count)
    huge_at = {((i + 1) * count) // (len(huge_mb) + 1): mb for i, mb in enumerate(huge_mb)}
    start = datetime(2025, 3, 1, tzinfo=UTC)
    for i in range(count):
        cwd = rng.choice(cwds)
        folder = out / ("--" + cwd.lstrip("/").replace("/", "-") + "--")
        start += timedelta(hours=rng.uniform(0.5, 5))
        writer = _Writer(rng, folder, cwd, start)
        writer.message(
            {"role": "system", "content": "", "sections": {"preamble": "You are a coding assistant."}}
        )
        if i in huge_at:
            while writer.file.tell() < huge_at[i] * 1024 * 1024:
                writer.turn(tool_output=rng.randint(100_000, 1_500_000))
        else:
            r = rng.random()
            target = (
                rng.randint(20, 80)
                if r < 0.55
                else rng.randint(80, 250)
                if r < 0.85
                else rng.randint(250, 500)
            )
            while writer.count < target:
                writer.random_op()
        writer.close()


def write_huge_session(folder: Path, cwd: str, megabytes: int, seed: int = 11) -> Path:
    """One session of about `megabytes` MB: turns with 0.1-1.5 MB tool outputs, as the huge
    files of the big tree (the size a long agent run with big builds or logs reaches)."""
    rng = random.Random(seed)
    writer = _Writer(rng, folder, cwd, datetime(2025, 6, 1, tzinfo=UTC))
    writer.message({"role": "system", "content": "", "sections": {"preamble": "You are a coding assistant."}})
    while writer.file.tell() < megabytes * 1024 * 1024:
        writer.turn(tool_output=rng.randint(100_000, 1_500_000))
        if rng.random() < 0.1:
            writer.random_op()
    writer.close()
    return writer.path


if __name__ == "__main__":
    import sys

    generate(Path(sys.argv[1] if len(sys.argv) > 1 else os.path.join("/tmp", "pi-big-py", "sessions")))
