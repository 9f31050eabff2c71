"""Hand-made sessions for pi's context-size rules, one per rule; `PI_TOKENS` holds what pi 1.6.0's
`estimateProjectedContextTokens` gives at every entry of each (computed with pi's own code by
oracle/tokens.mjs on these files)."""

from __future__ import annotations

from typing import Any

from tests.helpers.sessions import assistant, entry, system, user


def _usage(total: Any = None, **parts: Any) -> dict[str, Any]:
    usage: dict[str, Any] = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, **parts}
    if total is not None:
        usage["totalTokens"] = total
    usage["cost"] = {"total": 0.001}
    return usage


def _tool_result(entry_id: str, parent: str, content: Any, n: int = 0, name: str = "read") -> dict[str, Any]:
    message = {"role": "toolResult", "toolCallId": "call_1", "toolName": name, "content": content}
    return entry("message", entry_id, parent, n, message={**message, "isError": False, "timestamp": 3})


def _call(name: str, arguments: Any) -> dict[str, Any]:
    return {"type": "toolCall", "id": "call_1", "name": name, "arguments": arguments}


READ_TOOL = {
    "name": "read",
    "description": "Read a file",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
}
BASH_TOOL = {"name": "bash", "description": "Run a command", "parameters": {"type": "object"}}
GREP_TOOL = {"name": "grep", "description": "Search files: ümlaut", "parameters": {"type": "object"}}
IMAGE = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}

CASES: dict[str, list[dict[str, Any]]] = {
    # Aborted and error replies never anchor, whatever usage they carry.
    "aborted_error": [
        user("u1", None, "hello there, please look at the code", 1),
        assistant("a1", "u1", "Sure, looking now.", 2, usage=_usage(1200)),
        user("u2", "a1", "next question", 3),
        assistant("a2", "u2", "partial", 4, stopReason="aborted", usage=_usage(9999)),
        assistant("a3", "a2", "", 5, stopReason="error", usage=_usage(None, input=50, output=7)),
        _tool_result("t1", "a3", [{"type": "text", "text": "file contents here"}], 6),
    ],
    # A context edit after the last usage: nothing before it is trusted; a reply after it is.
    "edit_after_usage": [
        system(
            "s0", None, 0, content="You are pi.", sections={"a": "alpha", "b": "beta"}, toolsAdded=[READ_TOOL]
        ),
        user("u1", "s0", "please read the file with the very long name", 1),
        assistant(
            "a1",
            "u1",
            "Reading.",
            2,
            content=[{"type": "text", "text": "Reading."}, _call("read", {"path": "src/é.ts"})],
            usage=_usage(5000),
            stopReason="toolUse",
        ),
        _tool_result("r1", "a1", "const x = 1;\n", 3),
        assistant("a2", "r1", "Done reading.", 4, usage=_usage(6000)),
        entry("context_edit", "e1", "a2", 5, targetId="u1", replacement={"content": "shorter"}),
        user("u2", "e1", "after the edit", 6),
        assistant("a3", "u2", "ok", 7, usage=_usage(7000)),
    ],
    # Usage before a compaction is not trusted; the checkpoint's system message is estimated.
    "compaction": [
        user("u1", None, "start the work", 1),
        assistant("a1", "u1", "Started.", 2, usage=_usage(3000)),
        user("u2", "a1", "continue with the second step", 3),
        assistant("a2", "u2", "Second step done.", 4, usage=_usage(4000)),
        entry(
            "compaction",
            "c1",
            "a2",
            5,
            summary="Summary of the start: read src/a.ts",
            firstKeptEntryId="u2",
            tokensBefore=4000,
            systemMessage={
                "role": "system",
                "content": "sys prompt",
                "sections": {"x": "X section"},
                "toolsAdded": [READ_TOOL, BASH_TOOL],
                "timestamp": 1741000000000,
            },
        ),
        user("u3", "c1", "after compaction", 6),
        assistant("a3", "u3", "Fine.", 7, usage=_usage(2500)),
        user("u4", "a3", "more", 8),
        entry("compaction", "c2", "u4", 9, summary="Retain none.", firstKeptEntryId="c2", tokensBefore=2600),
        user("u5", "c2", "after the second", 10),
    ],
    # Images count 4,800 characters, in user, tool result and custom content.
    "images": [
        user("u1", None, "", 1)
        | {"message": {"role": "user", "content": [{"type": "text", "text": "look"}, IMAGE]}},
        assistant("a1", "u1", "I see.", 2, usage=_usage(2000)),
        user("u2", "a1", "", 3)
        | {"message": {"role": "user", "content": [IMAGE, IMAGE, {"type": "text", "text": "two of them"}]}},
        _tool_result("t1", "u2", [{"type": "text", "text": "screenshot"}, IMAGE], 4),
        entry("custom_message", "m1", "t1", 5, customType="note", content=[IMAGE], display=True),
    ],
    # System messages: content appended, sections patched by name, tools removed then added.
    "system_sections_tools": [
        system(
            "s1",
            None,
            0,
            content="",
            sections={"preamble": "You are pi.", "tools": "<tools>read, bash</tools>", "cwd": "/home/u"},
            toolsAdded=[READ_TOOL, BASH_TOOL],
        ),
        user("u1", "s1", "first question", 1),
        system(
            "s2",
            "u1",
            2,
            sections={"tools": None, "skills": "<skills>none</skills>"},
            toolsRemoved=[{"name": "bash"}],
            toolsAdded=[GREP_TOOL],
        ),
        system("s3", "s2", 3, content="Additional instructions: prefer small commits."),
        user("u2", "s3", "second question", 4),
        assistant("a1", "u2", "Answer.", 5, usage=_usage(8000)),
        system("s4", "a1", 6, sections={"preamble": "You are pi, updated."}, toolsAdded=[BASH_TOOL]),
        user("u3", "s4", "third", 7),
    ],
    # A system message without a timestamp and no tools: pi's replay has no system message.
    "system_no_timestamp": [
        entry("message", "s1", None, 0, message={"role": "system", "content": "Be brief and precise."}),
        user("u1", "s1", "hi", 1),
    ],
    # bashExecution, branch summaries, custom messages and unknown roles.
    "bash_and_summaries": [
        user("u1", None, "run it", 1),
        entry(
            "message",
            "b1",
            "u1",
            2,
            message={
                "role": "bashExecution",
                "command": "ls -la src",
                "output": "total 0\ndrwxr-xr-x  2 u u 40 .\n",
                "exitCode": 0,
                "cancelled": False,
                "truncated": False,
                "timestamp": 2,
            },
        ),
        entry("branch_summary", "bs1", "b1", 3, summary="Tried the other approach; it failed.", fromId="u1"),
        entry("branch_summary", "bs2", "bs1", 4, summary="", fromId="u1"),
        entry("custom_message", "m1", "bs2", 5, customType="note", content="custom text here", display=True),
        entry("message", "h1", "m1", 6, message={"role": "hookMessage", "content": "ignored role"}),
        entry(
            "message", "c1", "h1", 7, message={"role": "custom", "customType": "x", "content": "custom role"}
        ),
        assistant("a1", "c1", "Done.", 8, usage=_usage(900)),
        entry(
            "message",
            "b2",
            "a1",
            9,
            message={"role": "bashExecution", "command": "echo é😀", "output": "é😀\n", "exitCode": 0},
        ),
    ],
    # JavaScript lengths: surrogate pairs count 2, JSON of tool arguments as JSON.stringify writes it.
    "surrogates": [
        user("u1", None, "emoji 😀😀 and 中文 and é, a lone \ud800 surrogate", 1),
        assistant(
            "a1",
            "u1",
            "",
            2,
            content=[
                {"type": "thinking", "thinking": "thinking about 🎉 things"},
                {"type": "text", "text": "text with 𝔘𝔫𝔦𝔠𝔬𝔡𝔢"},
                _call(
                    "write",
                    {
                        "path": "src/ünï😀.ts",
                        "content": 'line "one"\n\ttab\\ \u0001 \x7f \ud83d end',
                        "n": [1.0, 1e21, 12345678901234567890, -0.0, 2.5e-7, True, None],
                        "clé": {"nested": []},
                    },
                ),
            ],
            usage=_usage(0, input=120, output=30, cacheRead=1000, cacheWrite=7),
            stopReason="toolUse",
        ),
        _tool_result("t1", "a1", [{"type": "text", "text": "wrote 😀"}], 3, name="write"),
    ],
    # Hand-edited usage holding text: pi adds it as JavaScript does ("12" + 1 is "121").
    "text_usage": [
        user("u1", None, "q", 1),
        assistant("a1", "u1", "a", 2, usage={"totalTokens": "12"}),
        user("u2", "a1", "abcd", 3),
        assistant("a2", "u2", "b", 4, usage={"totalTokens": 0, "input": "7", "output": 3}),
        assistant("a3", "a2", "c", 5, usage={"totalTokens": "many"}),  # not a number: not counted
        assistant(
            "a4", "a3", "d", 6, usage={"input": 5, "output": 5, "cacheRead": None}
        ),  # no cacheWrite: NaN
    ],
    # A tool list given as text: pi's replay iterates its characters.
    "tools_as_text": [
        system("s1", None, 0, content="Be brief.", toolsAdded="12"),
        user("u1", "s1", "hello", 1),
        system("s2", "u1", 2, toolsRemoved="x", toolsAdded=[READ_TOOL]),
        user("u2", "s2", "again", 3),
    ],
    # Fractional usage stays a fraction (a hand-edited file).
    "fractional_usage": [
        user("u1", None, "q", 1),
        assistant("a1", "u1", "a", 2, usage=_usage(100.25)),
        user("u2", "a1", "abc", 3),
    ],
    # The last reply with usage has an empty id: pi cannot place it on the branch, so it trusts
    # no usage at all (not the reply before it either) and counts every message.
    "empty_id_usage": [
        user("u1", None, "hello there", 1),
        assistant("a1", "u1", "Sure.", 2, usage=_usage(1000)),
        user("u2", "a1", "next question please", 3),
        assistant("", "u2", "ok then", 4, usage=_usage(2000)),
    ],
}

# pi 1.6.0's value at each entry, in the order above (oracle/tokens.mjs on these files).
PI_TOKENS: dict[str, list[int | float | str]] = {
    "aborted_error": [9, 1200, 1204, 1206, 1206, 1211],
    "edit_after_usage": [39, 50, 5000, 5004, 6000, 57, 61, 7000],
    "compaction": [4, 3000, 3008, 4000, 80, 84, 2500, 2501, 3, 7],
    "images": [1201, 2000, 4403, 5606, 6806],
    "system_sections_tools": [64, 68, 69, 81, 85, 8000, 8025, 8027],
    "system_no_timestamp": [0, 1],
    "bash_and_summaries": [2, 13, 22, 22, 26, 26, 29, 900, 903],
    "surrogates": [11, 1157, 1159],
    "text_usage": [1, "120", "121", "122", "123", "124"],
    "tools_as_text": [4, 6, 39, 41],
    "fractional_usage": [1, 100.25, 101.25],
    "empty_id_usage": [3, 1000, 1005, 12],
}


# A compaction whose summary names one of the files the summarized work touched.
AUDIT_CASE: list[dict[str, Any]] = [
    user("u1", None, "fix the pool size and run the tests", 1),
    assistant(
        "a1",
        "u1",
        "",
        2,
        content=[
            {"type": "text", "text": "Looking."},
            _call("read", {"path": "src/a.ts"}),
            _call("bash", {"command": "npm test"}),
            _call("edit", {"path": "src/b.ts", "oldText": "5", "newText": "10"}),
        ],
        stopReason="toolUse",
        usage=None,  # no usage before the compaction: pi estimates every message there
    ),
    _tool_result("r1", "a1", "ok", 3),
    entry(
        "message",
        "b1",
        "r1",
        4,
        message={"role": "bashExecution", "command": "ls -la", "output": "total 0\n", "exitCode": 0},
    ),
    user("u2", "b1", "now the docs", 5),
    assistant("a2", "u2", "Docs updated.", 6, usage=_usage(3000)),
    entry(
        "compaction",
        "c1",
        "a2",
        7,
        summary="Read src/a.ts and fixed the pool.",
        firstKeptEntryId="u2",
        tokensBefore=3000,
    ),
    user("u3", "c1", "thanks", 8),
]
# pi 1.6.0 at b1 (everything the compaction summarized: no usage before it) and at c1.
AUDIT_PI_TOKENS = {"b1": 42, "c1": 16}
