"""A hostile session: every string field holds escape sequences, C1 and bidi controls, lone
surrogates and Rich/Textual markup. Built in code (never committed as a file)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def evil(tag: str) -> str:
    """`tag` wrapped in everything a terminal or a markup parser might act on."""
    return (
        f"{tag}\x1b]0;PWNED\x07\x1b[2J\x1b[31m\x9b2J\x9d0;OSC8\x9c\u202eRTL\u2066\u200b\x7f\x08\r"
        f"\n[bold]{tag}[/] [/] [link=http://x]L[/link]\ud800"
    )


# What must be visible (shown literally) wherever such a string is drawn.
MARKUP_SHOWN = "[link=http://x]L[/link]"
ESC_SHOWN = "\u241b]0;PWNED\u2407"  # ESC ] 0 ; PWNED BEL, as control pictures


def _line(obj: Any) -> bytes:
    return json.dumps(obj).encode() + b"\n"  # ensure_ascii: a lone surrogate is written as \ud800


def hostile_lines() -> list[dict[str, Any]]:
    """The header and entries, each string field hostile (ids included)."""
    ids = {
        name: evil(name)
        for name in [
            "s0",
            "u1",
            "a1",
            "t1",
            "b1",
            "cm",
            "cu",
            "r1",
            "cr",
            "mc",
            "tl",
            "lb",
            "nm",
            "us",
            "x1",
            "xo",
            "or",
            "c1",
            "u2",
            "ce",
            "om",
            "bs",
        ]
    }
    ts = "2025-03-01T10:00:{:02d}.000Z".format

    def entry(key: str, parent: str | None, n: int, type_: str = "message", **fields: Any) -> dict[str, Any]:
        return {
            "type": type_,
            "id": ids[key],
            "parentId": ids[parent] if parent else None,
            "timestamp": ts(n),
            **fields,
        }

    usage = {"input": 10, "output": 5, "totalTokens": 15, "cost": {"total": 0.01}}
    return [
        {
            "type": "session",
            "version": 3,
            "id": evil("header-id"),
            "timestamp": ts(0),
            "cwd": "/nowhere/" + evil("cwd"),
            "parentSession": evil("parent-session"),
            "anything": evil("any"),
        },
        entry(
            "s0",
            None,
            1,
            message={
                "role": "system",
                "content": evil("system"),
                "sections": {evil("section"): evil("section-text")},
                "toolsAdded": [{"name": evil("tool"), "description": evil("tool-desc"), "parameters": {}}],
                "timestamp": 1,
            },
        ),
        entry("u1", "s0", 2, message={"role": "user", "content": evil("user"), "timestamp": 2}),
        entry(
            "a1",
            "u1",
            3,
            message={
                "role": "assistant",
                "content": [
                    {"type": "text", "text": evil("assistant")},
                    {"type": "thinking", "thinking": evil("thinking")},
                    {
                        "type": "toolCall",
                        "id": evil("call-id"),
                        "name": evil("call"),
                        "arguments": {evil("k"): evil("v")},
                    },
                    {"type": evil("block-type")},
                ],
                "provider": evil("provider"),
                "model": evil("model"),
                "stopReason": evil("stop"),
                "errorMessage": evil("error"),
                "usage": usage,
                "timestamp": 3,
            },
        ),
        entry(
            "t1",
            "a1",
            4,
            message={
                "role": "toolResult",
                "toolCallId": evil("call-id"),
                "toolName": evil("tool-name"),
                "content": [{"type": "text", "text": evil("result")}],
                "isError": True,
                "timestamp": 4,
            },
        ),
        entry(
            "b1",
            "t1",
            5,
            message={
                "role": "bashExecution",
                "command": evil("cmd"),
                "output": evil("out"),
                "exitCode": 1,
                "timestamp": 5,
            },
        ),
        entry(
            "cm",
            "b1",
            6,
            "custom_message",
            customType=evil("custom-type"),
            content=evil("custom-content"),
            display=True,
        ),
        entry("cu", "cm", 7, "custom", customType=evil("custom-state"), data={evil("dk"): evil("dv")}),
        entry("r1", "cu", 8, message={"role": evil("role"), "content": evil("role-content")}),
        entry(
            "cr",
            "r1",
            9,
            message={
                "role": "custom",
                "customType": evil("custom-role"),
                "content": evil("cr"),
                "display": False,
            },
        ),
        entry("mc", "cr", 10, "model_change", provider=evil("mc-provider"), modelId=evil("mc-model")),
        entry("tl", "mc", 11, "thinking_level_change", thinkingLevel=evil("level")),
        entry("lb", "tl", 12, "label", targetId=ids["u1"], label=evil("label")),
        entry("nm", "lb", 13, "session_info", name=evil("name")),
        entry(
            "us",
            "nm",
            14,
            "usage",
            kind=evil("kind"),
            note=evil("note"),
            provider=evil("up"),
            model=evil("um"),
            usage=usage,
        ),
        entry("x1", "us", 15, evil("entry-type"), payload=evil("payload")),
        {
            "type": {"nested": evil("object-type")},
            "id": ids["xo"],
            "parentId": ids["x1"],
            "timestamp": ts(16),
        },
        {
            "type": "message",
            "id": ids["or"],
            "parentId": evil("missing-parent"),
            "timestamp": ts(17),
            "message": {"role": "user", "content": evil("orphan")},
        },
        entry(
            "c1",
            "xo",
            18,
            "compaction",
            summary=evil("compaction"),
            firstKeptEntryId=ids["cm"],
            tokensBefore=1000,
        ),
        entry("u2", "c1", 19, message={"role": "user", "content": evil("user-2"), "timestamp": 19}),
        entry(
            "ce", "u2", 20, "context_edit", targetId=ids["u2"], replacement={"content": evil("replacement")}
        ),
        entry("om", "ce", 21, "context_edit", targetId=ids["cm"], replacement=None),
        entry("bs", "u1", 22, "branch_summary", fromId=evil("from-id"), summary=evil("branch-summary")),
    ]


def hostile_session(root: Path) -> Path:
    """Write it as `<root>/<hostile folder>/<hostile file name>.jsonl` (the file name holds
    ESC, BEL, C1 and an undecodable byte) and return its path."""
    folder = root / "--\x1b]0;FOLDER\x07--"
    folder.mkdir(parents=True, exist_ok=True)
    name = "2025-03-01T10-00-00-000Z_\x1b[2J\x1b]0;FILE\x07\x9b\u202e[bold]f[link=x]\udcff.jsonl"  # no "/"
    path = folder / name
    with open(os.fsencode(path), "wb") as f:  # \udcff: the raw byte 0xff (not UTF-8)
        f.write(b"".join(_line(obj) for obj in hostile_lines()))
    return path
