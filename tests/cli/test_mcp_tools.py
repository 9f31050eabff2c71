"""The MCP tools without the protocol: arguments become the command line the CLI parses, pages
stop the run once full, and cuts keep a string's or a list's two ends with what was left out."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pi_sessions.app.subcommands import mcp_tools
from pi_sessions.app.subcommands.mcp import run_subcommand
from pi_sessions.app.subcommands.mcp_tools import (
    MAX_ANSWER_BYTES,
    Cuts,
    Pager,
    ToolError,
    arguments_of,
    argv_for,
    call,
    cut_line,
    parser_of,
)
from pi_sessions.core.common.jsonout import encode_json

from tests.helpers.corpus import FIXTURES


def argv(name: str, **given: Any) -> list[str]:
    return argv_for(arguments_of(parser_of(name)), given)


def test_arguments_become_options_then_positionals_after_a_double_dash() -> None:
    assert argv("search", query="-v", deep=True, since="7d") == [
        "--deep",
        "--since",
        "7d",
        "--json",
        "--",
        "-v",
    ]
    assert argv("context", path="s.jsonl", leaf=["a", "b"]) == [
        "--leaf",
        "a",
        "--leaf",
        "b",
        "--json",
        "--",
        "s.jsonl",
    ]
    assert argv("context", path="s.jsonl", leaf="a") == ["--leaf", "a", "--json", "--", "s.jsonl"]
    assert argv("list", session_dir="/x", cwd=None) == ["--session-dir", "/x", "--json"]
    assert argv("search", query="x", deep=False) == ["--json", "--", "x"]


@pytest.mark.parametrize(
    "name, given, says",
    [
        ("compare", {"path": "p", "leaf_a": "a"}, "missing argument 'leaf_b'"),
        ("tree", {"path": "p", "leaf": "a"}, "unknown argument 'leaf'"),
        ("tree", {"path": ["p"]}, "path: expected a string"),
        ("search", {"query": "x", "order": "best"}, 'order: "best" is not one of recent, relevance'),
        ("search", {"query": "x", "deep": 1}, "deep: expected true or false"),
    ],
)
def test_a_bad_argument_is_one_line_naming_it(name: str, given: dict[str, Any], says: str) -> None:
    with pytest.raises(ToolError, match="^" + says.replace("(", r"\(")):
        argv(name, **given)


def test_a_long_string_keeps_its_two_ends_and_says_how_much_was_cut() -> None:
    value = {"text": "a" * 300 + "b" * 700 + "c" * 200, "n": 1.5, "short": "x"}
    cuts = Cuts()
    out = json.loads(cut_line(encode_json(value), 100, MAX_ANSWER_BYTES, cuts))
    assert out["text"] == "a" * 75 + "…[1,100 characters cut]…" + "c" * 25
    assert out["n"] == 1.5 and out["short"] == "x" and cuts.strings == 1 and cuts.items == 0


def test_a_long_list_keeps_its_two_ends_and_says_how_many_items_were_cut() -> None:
    cuts = Cuts()
    out = json.loads(cut_line(encode_json({"ids": list(range(1000))}), 2000, MAX_ANSWER_BYTES, cuts))
    assert out["ids"] == [*range(150), "…[800 items cut]…", *range(950, 1000)] and cuts.items == 1


def test_a_line_with_nothing_too_long_is_passed_on_byte_for_byte() -> None:
    items = b",".join([b'"abcdefghijklmnop"'] * 150)  # 150 items, over 2,000 bytes in all
    line = b'{"b":1.0e+21,"a":"\\u001b[2J caf\xc3\xa9","x":[' + items + b"]}"  # (encode_json writes 1e21)
    assert len(line) > 2000
    assert cut_line(line, 2000, MAX_ANSWER_BYTES, Cuts()) == line
    assert cut_line(line, 0, MAX_ANSWER_BYTES, Cuts()) == line


def test_one_line_over_the_page_is_cut_harder_until_it_fits() -> None:
    line = encode_json({"messages": [{"text": "y" * 1500} for _ in range(190)]})
    assert len(line) > MAX_ANSWER_BYTES
    out = cut_line(line, 2000, MAX_ANSWER_BYTES, Cuts())
    assert len(out) <= MAX_ANSWER_BYTES and "characters cut" in out.decode()


def test_the_pager_stops_the_writer_once_the_page_is_full() -> None:
    pager = Pager(start=2, limit=3, max_chars=0)
    written = 0
    with pytest.raises(mcp_tools.Enough):
        for i in range(1000):
            pager.write(b'{"i":%d}\n' % i)
            written += 1
    assert [json.loads(line)["i"] for line in pager.taken] == [2, 3, 4]
    assert pager.more and written == 5  # (the sixth write found the page full)


def test_a_call_on_the_corpus_pages_the_cli_output(corpus_dir: Any) -> None:
    sessions = str(FIXTURES / "sessions")
    code, err = run_subcommand("list", ["--session-dir", sessions, "--json"], everything := Pager(0, 1000, 0))
    assert code == 0, err
    first = call("list", {"session_dir": sessions, "limit": 4, "max_chars": 0}, run_subcommand)
    rest = call(
        "list", {"session_dir": sessions, "cursor": "4", "limit": 1000, "max_chars": 0}, run_subcommand
    )
    assert first.text + rest.text == b"".join(line + b"\n" for line in everything.taken).decode()
    assert 'cursor "4"' in first.note and "more follow" not in rest.note


def test_a_line_that_is_not_json_is_bounded_too() -> None:
    out = cut_line(b"\x1b[2J" + b"z" * 5000, 100, MAX_ANSWER_BYTES, Cuts())
    assert json.loads(out).endswith("z" * 25) and b"\x1b" not in out and len(out) < 200


def test_a_subcommand_that_raises_or_exits_ends_its_call_not_the_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pi_sessions.app.subcommands import tree

    def broken(ns: Any) -> int:
        raise RuntimeError("boom\x1b[2J")

    def exits(ns: Any) -> int:
        raise SystemExit(5)

    session = str(next((FIXTURES / "sessions").rglob("*.jsonl")))
    monkeypatch.setattr(tree, "run", broken)
    with pytest.raises(ToolError, match=r"^pi-sessions: internal error: RuntimeError: boom") as e:
        call("tree", {"path": session}, run_subcommand)
    assert "\x1b" not in str(e.value)  # (warn made it inert)
    monkeypatch.setattr(tree, "run", exits)
    with pytest.raises(ToolError, match="ended with status 5"):
        call("tree", {"path": session}, run_subcommand)
