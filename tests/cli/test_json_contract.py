"""Every subcommand's `--json` against the contract of ../shared/DESIGN.md (tests/helpers/json_contract.py):
each named field present with its type, on hand-made sessions chosen so that every field holds a
value (not only null) somewhere, and on the pi 1.6.0 corpus. A renamed or retyped field fails."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from pi_sessions.app.subcommands import MODULES, build_parser

from tests.helpers.cli import cli
from tests.helpers.corpus import FIXTURES
from tests.helpers.fixtures import subagent_tree
from tests.helpers.json_contract import CONTRACT, SUBAGENT_ROW, field_paths, record_problems
from tests.helpers.secrets import GITHUB
from tests.helpers.sessions import entry, header, reply, two_fork_session, user, write
from tests.helpers.tools import call, tool_result, tool_use

# Fields no sample here can fill: `host` is set only by `--store` (tests/store/ needs PostgreSQL).
NEVER_FILLED = {"history.host"}


def _has_json(name: str) -> bool:
    return any("--json" in action.option_strings for action in build_parser(name)._actions)


def test_the_contract_covers_exactly_the_subcommands_that_print_json() -> None:
    """A new subcommand with `--json` and no contract here fails (add its fields to json_contract.py)."""
    assert set(CONTRACT) == {name for name in MODULES if _has_json(name)}


class Sample:
    """A sessions folder with a line of every kind the subcommands report on."""

    def __init__(self, root: Path) -> None:
        self.sessions = root / "sessions"
        proj = root / "proj"
        proj.mkdir()
        self.file = proj / "a.txt"
        self.file.write_text("hello\n")
        folder = self.sessions / "--proj--"
        self.forks = two_fork_session(folder / "2025-03-01T10-00-00-000Z_forks.jsonl")  # its cwd is gone
        png = base64.b64encode(b"\x89PNG" + bytes(4000)).decode()
        image = {"type": "image", "data": png, "mimeType": "image/png"}
        shot = tool_result("r4", "a5", 10, "c5", "read", "")
        shot["message"]["content"] = [image]
        f = str(self.file)
        self.tools = write(
            folder / "2025-03-02T10-00-00-000Z_tools.jsonl",
            header(id="0195aaaa-0000-7000-8000-000000000002", cwd=str(proj)),
            entry("session_info", "n1", None, 1, name="tools at work"),
            user("u1", "n1", "look at a.txt", 1),
            tool_use("a1", "u1", 2, call("read", "c1", path=f)),
            tool_result("r1", "a1", 3, "c1", "read", "hello\n"),
            tool_use("a2", "r1", 4, call("edit", "c2", path=f, oldText="hello", newText="bye")),
            tool_result("r2", "a2", 5, "c2", "edit", "ok"),
            tool_use("a3", "r2", 6, call("bash", "c3", command="ls -la")),
            tool_result("r3", "a3", 7, "c3", "bash", "x" * 5000 + f" token {GITHUB}"),
            tool_use("a4", "r3", 8, call("bash", "c4", command="make")),  # never answered
            user("u2", "a4", "and the screenshot?", 9),
            tool_use("a5", "u2", 9, call("read", "c5", path=str(proj / "shot.png"))),
            shot,
            reply("a6", "r4", "2025-03-02T10:00:11.000Z", billed=True),
            entry("label", "l1", "a6", 12, targetId="u1", label="start"),
        )
        self.file.write_text("bye\n")  # changed since the agent's edit: stale for `check`


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Sample:
    return Sample(tmp_path_factory.mktemp("contract"))


def _run(*args: str) -> list[object]:
    result = cli(*args, "--json")
    assert result.code in (0, 3), (args, result.stderr)  # check: 3 is "ready with warnings"
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def _printed(name: str, s: Sample, tmp: Path) -> list[object]:
    """What `name --json` prints for the sample (several runs where one cannot fill every field)."""
    sd = ["--session-dir", str(s.sessions)]
    forks, tools = str(s.forks), str(s.tools)
    if name == "list":
        _run("fork", forks, "--leaf", "a4")  # a session with a parent
        return _run("list", *sd)
    if name == "fork":
        return _run("fork", forks, "--leaf", "a4", "--dry-run") + _run(
            "fork", tools, "--leaf", "u1", "--cwd", str(tmp), *sd
        )
    if name == "search":
        return _run("search", "question", *sd) + _run("search", "tools at", *sd)
    if name == "labels":
        return _run("labels", *sd)
    if name in ("edits", "commands", "costs"):
        return _run(name, *sd)
    if name == "history":
        return _run("history", str(s.file), *sd)
    if name == "compare":
        return _run("compare", forks, "u6", "a7") + _run("compare", tools, "a6", "a6")
    if name == "context":
        return _run("context", forks, "--all") + _run("context", tools)
    if name == "files":
        return _run("files", tools)
    if name in ("tree", "stats", "check"):
        return _run(name, forks) + _run(name, tools)
    if name == "slim":
        return _run("slim", tools, "--max-output", "1000", "--dry-run") + _run(
            "slim", tools, "--max-output", "1000"
        )
    if name == "secrets":
        return _run("secrets", tools)
    if name == "config":
        return _run("config")
    assert name in ("pin", "unpin", "archive", "unarchive", "tag"), f"no sample run for {name}"
    return _run(name, tools, *(["+wip"] if name == "tag" else []))


@pytest.mark.parametrize("name", sorted(CONTRACT))
def test_json_output_keeps_every_field_the_contract_names(name: str, sample: Sample, tmp_path: Path) -> None:
    records = _printed(name, sample, tmp_path)
    seen: set[str] = set()
    found = [p for record in records for p in record_problems(record, CONTRACT[name], name, seen)]
    assert found == []
    # Each type was checked on a value: no field of the contract was null (or in an empty list) throughout.
    assert field_paths(CONTRACT[name], name) - seen - NEVER_FILLED == set()


@pytest.mark.parametrize("name", ["list", "search", "labels", "costs", "edits", "commands"])
def test_json_output_over_the_corpus_keeps_the_contract(name: str) -> None:
    """The same fields over every session of pi 1.6.0's corpus (damaged ones included)."""
    sd = ["--session-dir", str(FIXTURES / "sessions")]
    records = _run(name, "a", *sd) if name == "search" else _run(name, *sd)
    found = [p for record in records for p in record_problems(record, CONTRACT[name], name, set())]
    assert found == []


def test_tree_and_context_over_the_corpus_keep_the_contract() -> None:
    found: list[str] = []
    for path in sorted((FIXTURES / "sessions").rglob("*.jsonl")):
        tree = cli("tree", str(path), "--json")
        if tree.code == 2:  # not a session pi can open: one line on stderr, nothing to check
            continue
        found += record_problems(json.loads(tree.stdout), CONTRACT["tree"], f"tree {path.name}", set())
        context = cli("context", str(path), "--json")
        for line in context.stdout.splitlines():
            found += record_problems(json.loads(line), CONTRACT["context"], f"context {path.name}", set())
    assert found == []


def test_a_renamed_or_retyped_field_fails_the_check() -> None:
    """The checker itself: what it must catch."""
    good = {"session_path": "/s", "entry_id": "e", "timestamp": "t", "on_active_path": True, "path": "/p"}
    assert record_problems(good, CONTRACT["edits"], "edits", set()) == []
    renamed = {("sessionPath" if k == "session_path" else k): v for k, v in good.items()}
    assert record_problems(renamed, CONTRACT["edits"], "edits", set()) == ["edits.session_path: missing"]
    retyped = {**good, "on_active_path": "yes"}
    assert record_problems(retyped, CONTRACT["edits"], "edits", set()) == [
        "edits.on_active_path: str 'yes', not bool"
    ]
    assert record_problems({**good, "entry_id": None}, CONTRACT["edits"], "edits", set()) == [
        "edits.entry_id: null"
    ]
    costs = {"key": "k", "input": True, "output": 1, "cache_read": 1, "cache_write": 1, "cost": 1}
    assert record_problems({**costs, "replies": 1, "estimated": 0}, CONTRACT["costs"], "c", set()) == [
        "c.input: bool True, not int"
    ]


def test_list_subagents_rows_keep_the_contract(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`list --json --subagents`: every row with `parent` and `parentEntryId` too, set on the
    subagent sessions (tests/fixtures/subagents), null on pi's own."""
    tree = subagent_tree(tmp_path)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tree.agent))
    monkeypatch.setenv("PI_SUBAGENT_SESSION_DIR", str(tree.env_dir))
    monkeypatch.chdir(tmp_path)
    records = _run("list", "--no-cache", "--subagents")
    seen: set[str] = set()
    assert [p for r in records for p in record_problems(r, SUBAGENT_ROW, "list", seen)] == []
    assert {"list.parent", "list.parentEntryId"} <= seen  # each filled somewhere
    assert any(isinstance(r, dict) and r["parent"] is None for r in records)  # pi's own rows too
