"""`pi-sessions mcp`, driven as an agent's client drives it: the SDK's own stdio client and
session against the installed command. Its tools, each answering with exactly the command
line's `--json` output, paged and cut with notes, inert on hostile text, errors as tool errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from pi_sessions.app.subcommands import MODULES
from pi_sessions.app.subcommands.mcp_tools import MAX_ANSWER_BYTES, TOOLS

from tests.helpers.cli import cli, raw_controls
from tests.helpers.corpus import FIXTURES
from tests.helpers.evil import evil, hostile_session
from tests.helpers.mcp import COMMAND, calls, note, text, with_server
from tests.helpers.sessions import assistant, header, user, write

SESSIONS = FIXTURES / "sessions"
# compaction_one_branch: two tips, each side compacted differently
ONE_BRANCH = (
    SESSIONS / "--srv-my-api--" / "2025-03-11T01-03-16-830Z_019582ba-375e-71e5-b35b-1b62fec1279a.jsonl"
)

pytestmark = pytest.mark.skipif(not COMMAND.exists(), reason="no .venv/bin/pi-sessions in this checkout")


def cli_json(*args: str) -> str:
    out = cli(args[0], "--json", *args[1:])
    assert out.code in (0, 3), out.stderr
    return out.stdout


def test_the_tools_are_the_subcommands_with_their_arguments_and_paging() -> None:
    async def use(session: ClientSession) -> Any:
        return await session.list_tools()

    tools = {t.name: t for t in with_server(use).tools}
    assert list(tools) == [name for name in TOOLS if name in MODULES]
    assert {"list", "search", "tree", "context", "compare", "files", "labels", "stats"} <= set(tools)
    properties = {name: set(t.input_schema["properties"]) for name, t in tools.items()}
    assert {"query", "deep", "since", "session_dir"} <= properties["search"]
    assert {"path", "leaf_a", "leaf_b"} <= properties["compare"]
    assert {"path", "leaf"} <= properties["context"] and {"path", "leaf"} <= properties["files"]
    assert tools["compare"].input_schema["required"] == ["path", "leaf_a", "leaf_b"]
    for name, tool in tools.items():
        assert {"limit", "cursor", "max_chars"} <= properties[name], name
        assert "json" not in properties[name], name  # (always the JSON form)
        assert tool.annotations is not None and tool.annotations.read_only_hint, name
        assert tool.description, name


def _leaves(path: Path) -> tuple[str, str, str]:
    tree = json.loads(cli_json("tree", str(path)))
    tips = [i for i in tree["entry_ids"] if not tree["children"].get(i)]
    return tree["default_leaf"], tips[0], tips[-1]


def test_each_tool_answers_exactly_what_the_command_line_prints_with_json() -> None:
    session = str(ONE_BRANCH)
    default, tip_a, tip_b = _leaves(ONE_BRANCH)
    assert tip_a != tip_b
    label = json.loads(cli_json("labels", "--session-dir", str(SESSIONS)).splitlines()[0])
    word = json.loads(cli_json("list", "--session-dir", str(SESSIONS)).splitlines()[0])[
        "firstMessage"
    ].split()[0]
    everything = {"limit": 1000, "max_chars": 0}
    cases: list[tuple[str, dict[str, Any], list[str]]] = [
        ("list", {"session_dir": str(SESSIONS)}, ["list", "--session-dir", str(SESSIONS)]),
        (
            "search",
            {"query": word, "session_dir": str(SESSIONS)},
            ["search", word, "--session-dir", str(SESSIONS)],
        ),
        (
            "search",
            {"query": word, "deep": True, "since": "100y", "session_dir": str(SESSIONS)},
            ["search", word, "--deep", "--since", "100y", "--session-dir", str(SESSIONS)],
        ),
        ("labels", {"session_dir": str(SESSIONS)}, ["labels", "--session-dir", str(SESSIONS)]),
        ("tree", {"path": session}, ["tree", session]),
        ("context", {"path": session}, ["context", session]),
        ("context", {"path": session, "leaf": tip_a}, ["context", session, "--leaf", tip_a]),
        (
            "context",
            {"path": session, "leaf": [tip_a, tip_b]},
            ["context", session, "--leaf", tip_a, "--leaf", tip_b],
        ),
        ("compare", {"path": session, "leaf_a": tip_a, "leaf_b": tip_b}, ["compare", session, tip_a, tip_b]),
        ("files", {"path": session, "leaf": tip_b}, ["files", session, "--leaf", tip_b]),
        ("stats", {"path": session}, ["stats", session]),
        (
            "context",
            {"path": label["path"], "leaf": label["entry_id"]},
            ["context", label["path"], "--leaf", label["entry_id"]],
        ),
    ]
    results = calls(*((name, {**args, **everything}) for name, args, _ in cases))
    for (name, args, argv), result in zip(cases, results, strict=True):
        expected = cli_json(*argv)
        assert expected, argv
        assert text(result) == expected, (name, args)
        assert note(result) == "", (name, note(result))
    assert default in text(results[5])


def test_a_long_answer_comes_in_pages_whose_cursors_give_back_all_of_it() -> None:
    expected = cli_json("list", "--session-dir", str(SESSIONS)).splitlines(keepends=True)
    assert len(expected) > 12

    async def use(session: ClientSession) -> list[Any]:
        pages, cursor = [], None
        while True:
            args: dict[str, Any] = {"session_dir": str(SESSIONS), "limit": 5, "max_chars": 0}
            if cursor is not None:
                args["cursor"] = cursor
            result = await session.call_tool("list", args)
            pages.append(result)
            found = [w for w in note(result).split() if w.startswith('"')]
            if not found:
                return pages
            cursor = found[0].strip('"')

    pages = with_server(use)
    assert len(pages) == -(-len(expected) // 5)
    assert all(len(text(p).splitlines()) == 5 for p in pages[:-1])
    assert "".join(text(p) for p in pages) == "".join(expected)
    assert (
        "more follow" in note(pages[0])
        and note(pages[-1])
        == f"lines {len(expected) - len(text(pages[-1]).splitlines()) + 1}-{len(expected)} of {len(expected)}"
    )


def test_a_hostile_session_answers_with_no_raw_control_character(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    hostile = hostile_session(root)
    # a name an agent can send back (JSON text is UTF-8: the file name's raw 0xff byte is not)
    session = hostile.with_name("2025-03-01T10-00-00-000Z_\x1b[2J\x1b]0;FILE\x07\x9b\u202e[bold]f.jsonl")
    hostile.rename(session)
    tree = json.loads(cli("tree", str(session), "--json").out)
    # (its ids hold a lone surrogate, which no JSON-RPC message can carry: no leaf is passed)
    wanted: list[tuple[str, dict[str, Any]]] = [
        ("list", {"session_dir": str(root)}),
        ("search", {"query": "user", "deep": True, "session_dir": str(root)}),
        ("labels", {"session_dir": str(root)}),
        ("tree", {"path": str(session)}),
        ("context", {"path": str(session), "all": True}),
        ("context", {"path": str(session)}),
        ("files", {"path": str(session)}),
        ("stats", {"path": str(session)}),
        ("context", {"path": str(session), "leaf": evil("nope").replace("\ud800", "")}),  # an error naming it
        ("tree", {"path": str(root / "\x1b]0;NOPE\x07\x9b.jsonl")}),
    ]
    results = calls(*wanted)
    for (name, args), result in zip(wanted, results, strict=True):
        texts = [c.text for c in result.content]
        assert any(texts), (name, args)
        for one in texts:
            assert not raw_controls(one), (name, raw_controls(one)[:5])
    assert all(not r.is_error for r in results[:8])
    assert "PWNED" in text(results[3]) and results[8].is_error and results[9].is_error
    # the JSON keeps the exact values: an agent decoding it gets the session's own strings
    assert json.loads(text(results[3]))["entry_ids"] == tree["entry_ids"]


def test_a_huge_session_answer_is_bounded_and_says_how_much_was_cut(tmp_path: Path) -> None:
    big = "x" * 60_000
    entries = []
    parent = None
    for i in range(300):
        entries.append(user(f"u{i}", parent, f"question {i} " + big, i))
        entries.append(assistant(f"a{i}", f"u{i}", f"answer {i} " + big, i))
        parent = f"a{i}"
    session = write(
        tmp_path / "sessions" / "--p--" / "2025-03-01T10-00-00-000Z_big.jsonl", header(), *entries
    )
    results = calls(
        ("context", {"path": str(session)}),
        ("context", {"path": str(session), "max_chars": 100}),
        ("context", {"path": str(session), "all": True}),
        ("tree", {"path": str(session)}),
    )
    full = cli_json("context", str(session))
    assert len(full) > 30 * MAX_ANSWER_BYTES
    for result in results:
        assert len(text(result).encode()) <= MAX_ANSWER_BYTES
    context = json.loads(text(results[0]))
    expected = json.loads(full)
    assert context["leaf"] == expected["leaf"] == "a299"
    assert context["context_entry_ids"][0] == "u0" and context["context_entry_ids"][-1] == "a299"
    assert any("items cut" in str(i) for i in context["context_entry_ids"])
    assert "long strings" in note(results[0]) and "shortened" in note(results[0])
    # a cut string keeps its head and tail, with how much was left out
    short = json.loads(text(results[1]))["messages"][0]["content"]
    shown = short if isinstance(short, str) else short[0]["text"]
    length = len(f"question 0 {big}")
    assert shown.startswith("question 0 xxx") and f"[{length - 100:,} characters cut]" in shown
    # 600 leaves: as many lines as fit, and a cursor for the rest
    assert "more follow: call again with cursor" in note(results[2])
    assert json.loads(text(results[2]).splitlines()[0])["leaf"] == "u0"


def test_a_bad_call_is_a_one_line_tool_error_and_the_server_goes_on(tmp_path: Path) -> None:
    session = str(ONE_BRANCH)
    junk = tmp_path / "junk.jsonl"
    junk.write_text("not json\n")
    bad: list[tuple[str, dict[str, Any], str]] = [
        ("tree", {"path": str(tmp_path / "missing.jsonl")}, "no such file"),
        ("tree", {"path": str(junk)}, "pi-sessions:"),
        ("context", {"path": session, "leaf": "nope"}, "nope"),
        ("compare", {"path": session}, "missing argument 'leaf_a'"),
        ("tree", {"path": session, "colour": "red"}, "unknown argument 'colour'"),
        ("tree", {"path": 3}, "path: expected a string"),
        ("search", {"query": "x", "deep": "yes"}, "deep: expected true or false"),
        ("search", {"query": "x", "since": "soon"}, "--since"),
        ("search", {"query": "x", "order": "best"}, "order"),
        ("list", {"limit": 0}, "limit"),
        ("list", {"cursor": "abc"}, "cursor"),
        ("context", {"path": session, "leaf": "x", "all": True}, "not allowed"),
        ("fork", {"path": session}, "no tool 'fork'"),
    ]
    results = calls(*((name, args) for name, args, _ in bad), ("tree", {"path": session}))
    for (name, args, says), result in zip(bad, results[:-1], strict=True):
        assert result.is_error, (name, args)
        line = result.content[0].text
        assert says in line and "\n" not in line and "Traceback" not in line, (name, args, line)
    assert text(results[-1]) == cli_json("tree", session)


def test_search_reads_a_query_that_starts_with_a_dash_as_the_query(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    write(root / "--p--" / "2025-03-01T10-00-00-000Z_s.jsonl", header(), user("u1", None, "use -v always"))
    [result] = calls(("search", {"query": "-v", "session_dir": str(root)}))
    assert text(result) == cli_json("search", "--session-dir", str(root), "--", "-v")
    assert json.loads(text(result))["entry_id"] == "u1"


def test_every_corpus_session_answers_as_the_command_line_unless_it_is_cut() -> None:
    sessions = sorted(str(p) for p in SESSIONS.rglob("*.jsonl"))
    wanted = [
        (name, {"path": s, "limit": 1000, "max_chars": 0})
        for s in sessions
        for name in ("tree", "context", "files", "stats")
    ]
    results = calls(*wanted)
    exact = 0
    for (name, args), result in zip(wanted, results, strict=True):
        expected = cli(name, "--json", str(args["path"]))
        if expected.code != 0:  # (a file pi itself cannot read: the same one line)
            assert result.is_error and result.content[0].text == expected.stderr.strip(), (name, args)
            continue
        if note(result) and note(result) != "no results":
            assert "cut" in note(result) and len(text(result)) < len(expected.stdout), (name, args)
        else:
            assert text(result) == expected.stdout, (name, args)
            exact += 1
    assert exact >= 0.9 * len(wanted), (exact, len(wanted))
