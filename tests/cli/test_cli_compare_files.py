"""`pi-sessions compare` and `pi-sessions files`: JSON shapes, readable output, one-line errors."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.helpers.cli import run_cli
from tests.helpers.corpus import FIXTURES
from tests.helpers.sessions import assistant, chain, header, user, write
from tests.helpers.tools import call, compaction, tool_result, tool_use

# compaction_one_branch: two tips, each side compacted differently
ONE_BRANCH = (
    FIXTURES
    / "sessions"
    / "--srv-my-api--"
    / ("2025-03-11T01-03-16-830Z_019582ba-375e-71e5-b35b-1b62fec1279a.jsonl")
)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(*args)  # in this process, answering as a subprocess would


def _session(tmp_path: Path) -> Path:
    return write(
        tmp_path / "s.jsonl",
        header(),
        *chain(4),
        tool_use("a1", "e3", 10, call("read", "c1", path="src/pool.ts")),
        tool_result("a2", "a1", 11, "c1", "read", "const size = 5;"),
        compaction("a3", "a2", 12, first_kept="a3"),  # keeps nothing before it
        user("b1", "e3", "other way", 20),
        assistant("b2", "b1", "sure", 21),
    )


def test_compare_json_has_the_contract_fields(tmp_path: Path) -> None:
    out = run("compare", str(_session(tmp_path)), "a3", "b2", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["split"] == "e3" and result["relation"] == "forked"
    assert result["a"]["leaf"] == "a3" and result["b"]["leaf"] == "b2"
    assert result["a"]["entries_since_split"] == ["a1", "a2", "a3"]
    assert result["b"]["entries_since_split"] == ["b1", "b2"]
    assert (result["a"]["tokens"], result["b"]["tokens"]) == (15, 15)
    assert (result["a"]["cost"], result["b"]["cost"]) == (0.01, 0.01)
    assert result["only_in_a"] == ["a3"]  # a1 and a2 lie on A only, but are summarized
    assert result["only_in_b"] == ["b1", "b2"]
    assert {d["id"] for d in result["different_form"]} == {"e0", "e1", "e2", "e3"}
    assert result["different_form"][0]["a"] == {"reason": "summarized", "by": "a3", "messages": 0}
    assert result["different_form"][0]["b"] == {"reason": "sent", "by": None, "messages": 1}


def test_compare_on_the_corpus_and_readable_form() -> None:
    tree = json.loads(run("tree", str(ONE_BRANCH), "--json").stdout)
    tips = [i for i in tree["entry_ids"] if not tree["children"].get(i)]
    out = run("compare", str(ONE_BRANCH), *tips, "--json")
    result = json.loads(out.stdout)
    assert result["split"] in tree["entry_ids"] and result["different_form"]
    readable = run("compare", str(ONE_BRANCH), *tips)
    assert readable.returncode == 0, readable.stderr
    assert f"split: {result['split']}" in readable.stdout
    assert "summarized by compaction" in readable.stdout


def test_files_json_lines_one_object_per_file(tmp_path: Path) -> None:
    path = _session(tmp_path)
    out = run("files", str(path), "--leaf", "a2", "--json")
    assert out.returncode == 0, out.stderr
    [pool] = [json.loads(line) for line in out.stdout.splitlines()]
    assert pool["path"] == "/home/u/proj/src/pool.ts"
    assert (pool["state"], pool["in_context"]) == ("in-context", True)
    assert (pool["last_read_entry"], pool["last_edit_entry"]) == ("a2", None)
    compacted = json.loads(run("files", str(path), "--leaf", "a3", "--json").stdout)
    assert (compacted["state"], compacted["in_context"], compacted["by"]) == ("summarized", False, "a3")
    # the default leaf is the last entry of the file: b2, whose path read nothing
    assert run("files", str(path), "--json").stdout == ""


def test_files_readable_form_shows_states_and_hides_controls(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        header(),
        user("u0", None, "hi", 0),
        tool_use(
            "a1", "u0", 1, call("read", "c1", path="evil\x1b[31m.txt"), call("read", "c2", path="two\nlines")
        ),
        tool_result("a2", "a1", 2, "c1", "read", "x"),
        tool_result("a3", "a2", 3, "c2", "read", "y"),
    )
    out = run("files", str(path), "--leaf", "a2")
    assert out.returncode == 0, out.stderr
    assert "in-context" in out.stdout and "read a2" in out.stdout
    assert "\x1b" not in out.stdout and "evil\u241b[31m.txt" in out.stdout
    both = run("files", str(path)).stdout.splitlines()
    assert len(both) == 3 and "two\u240alines" in both[2]  # a header line, then one line per file
    exact = [json.loads(x) for x in run("files", str(path), "--json").stdout.splitlines()]
    assert [f["display"] for f in exact] == ["evil\x1b[31m.txt", "two\nlines"]  # JSON stays exact


@pytest.mark.parametrize(
    "args",
    [
        ("compare", "{path}", "a3", "nope"),
        ("compare", "{path}", "nope", "a3", "--json"),
        ("files", "{path}", "--leaf", "nope"),
        ("files", "{path}", "--leaf", "nope", "--json"),
    ],
)
def test_unknown_leaves_are_one_line_exit_2(tmp_path: Path, args: tuple[str, ...]) -> None:
    path = _session(tmp_path)
    out = run(*[a.format(path=path) for a in args])
    assert out.returncode == 2 and out.stdout == ""
    assert "no entry with id 'nope'" in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_not_a_session_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "x.jsonl", user("a", None, "no header"))
    for args in (("compare", str(path), "a", "a"), ("files", str(path))):
        out = run(*args)
        assert out.returncode == 2 and "not a pi session" in out.stderr


def test_compare_context_tokens_are_pi_estimates_at_each_leaf() -> None:
    """Each side's context_tokens is pi's estimate at that leaf (_tokens.json holds pi's own)."""
    tree = json.loads(run("tree", str(ONE_BRANCH), "--json").stdout)
    tips = [i for i in tree["entry_ids"] if not tree["children"].get(i)]
    result = json.loads(run("compare", str(ONE_BRANCH), *tips, "--json").stdout)
    pi = json.loads((FIXTURES / "expected" / "_tokens.json").read_text())
    rel = str(ONE_BRANCH.relative_to(FIXTURES / "sessions"))
    assert [result[side]["context_tokens"] for side in ("a", "b")] == [pi[rel][tip] for tip in tips]
