"""The printing command line: JSON shapes, readable output, and one-line errors (exit 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.cli import run_cli
from tests.helpers.corpus import FIXTURES
from tests.helpers.sessions import assistant, entry, header, system, user, write

SAMPLE = next((FIXTURES / "sessions" / "--home-u-proj-b--").glob("2025-03-12T18-40-38*.jsonl"))  # labels


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(*args)  # in this process, answering as a subprocess would


def test_tree_json_has_the_contract_fields() -> None:
    out = run("tree", str(SAMPLE), "--json")
    assert out.returncode == 0, out.stderr
    tree = json.loads(out.stdout)
    for key in (
        "header",
        "entry_ids",
        "default_leaf",
        "session_name",
        "roots",
        "children",
        "preorder",
        "labels",
        "label_timestamps",
        "diagnostics",
    ):
        assert key in tree
    assert set(tree["preorder"]) == set(tree["entry_ids"])


def test_context_default_leaf_and_explicit_leaves() -> None:
    tree = json.loads(run("tree", str(SAMPLE), "--json").stdout)
    out = run("context", str(SAMPLE), "--json")
    [line] = [json.loads(x) for x in out.stdout.splitlines()]
    assert line["leaf"] == tree["default_leaf"]
    assert len(line["messages"]) == sum(line["projection_message_counts"])
    leaves = tree["entry_ids"][:3]
    out = run("context", str(SAMPLE), "--json", *[a for leaf in leaves for a in ("--leaf", leaf)])
    assert [json.loads(x)["leaf"] for x in out.stdout.splitlines()] == leaves


def test_readable_outputs_show_every_entry_and_the_reasons() -> None:
    shape = json.loads(run("tree", str(SAMPLE), "--json").stdout)
    parent = {kid: entry_id for entry_id, kids in shape["children"].items() for kid in kids}
    active = [shape["default_leaf"]]
    while active[-1] in parent:
        active.append(parent[active[-1]])
    tree = run("tree", str(SAMPLE))
    assert tree.returncode == 0
    head, *rows = tree.stdout.splitlines()
    assert (
        head
        == f"session {shape['header']['id']}  cwd {shape['header']['cwd']}  {len(shape['entry_ids'])} entries"
    )
    ids = [row[1:].replace("├─", "").replace("└─", "").split()[0] for row in rows]
    assert sorted(ids) == sorted(shape["entry_ids"])  # every entry once
    assert sorted(i for i, row in zip(ids, rows, strict=True) if row.startswith("*")) == sorted(active)
    line = json.loads(run("context", str(SAMPLE), "--json").stdout)
    context = run("context", str(SAMPLE))
    first, *fates = context.stdout.splitlines()[:-1]
    assert first.startswith(
        f"leaf {line['leaf']}  model {line['model']['provider']}/{line['model']['modelId']}"
    )
    assert f"  {len(line['messages'])} messages  " in first
    assert [row.split()[1] for row in fates] == list(reversed(active))  # the path, root first
    sent = [row.split()[1] for row in fates if row.startswith("+")]
    assert sorted(sent) == sorted(line["context_entry_ids"])
    assert all(row.endswith(("[sent to the model, 1 msg]", "[kept, but sends no message]")) for row in fates)


@pytest.mark.parametrize(
    "args, message",
    [
        (("tree", "/no/such/file.jsonl"), "no such file"),
        (("context", str(SAMPLE), "--leaf", "nope"), "no entry with id"),
        (("fork", str(SAMPLE), "--leaf", "nope", "--dry-run"), "no entry with id"),
    ],
)
def test_errors_are_one_line_exit_2(args: tuple[str, ...], message: str) -> None:
    out = run(*args)
    assert out.returncode == 2
    assert message in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_not_a_session_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "x.jsonl", user("a", None, "no header"))
    out = run("tree", str(path), "--json")
    assert out.returncode == 2 and "not a pi session" in out.stderr and "Traceback" not in out.stderr


def test_fork_dry_run_writes_nothing_and_fork_writes_next_to_source(tmp_path: Path) -> None:
    source = write(
        tmp_path / "s.jsonl",
        header(),
        user("a", None, "q"),
        assistant("b", "a", "x", 1),
        entry("label", "l", "b", 2, targetId="a", label="start"),
    )
    out = run("fork", str(source), "--leaf", "b", "--dry-run", "--json")
    plan = json.loads(out.stdout)
    assert plan["path"] is None and len(list(tmp_path.iterdir())) == 1
    assert [line["type"] for line in plan["lines"]] == ["session", "message", "message", "label"]
    out = run("fork", str(source), "--leaf", "b", "--json")
    written = json.loads(out.stdout)["path"]
    assert Path(written).parent == tmp_path
    lines = [json.loads(x) for x in Path(written).read_text().splitlines()]
    assert lines[0]["parentSession"] == str(source)
    assert lines[-1]["targetId"] == "a" and lines[-1]["label"] == "start"


def test_readable_context_says_why_entries_are_left_out(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        header(),
        user("u1", None, "old question", 1),
        assistant("a1", "u1", "old answer", 2),
        entry("compaction", "c1", "a1", 3, summary="what came before", firstKeptEntryId="a1", tokensBefore=9),
        entry("context_edit", "e1", "c1", 4, targetId="a1", replacement=None),
        user("u2", "e1", "new question", 5),
    )
    out = run("context", str(path), "--leaf", "u2")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[1:-1] == [
        "- u1 user      old question  [summarized by compaction c1]",
        "- a1 assistant old answer  [omitted by context edit e1]",
        "+ c1 compaction [compaction: 9 tokens] what came before  [compaction: its summary replaces the history before it, 1 msg]",
        "+ e1 edit      omit a1  [kept, but sends no message]",
        "+ u2 user      new question  [sent to the model, 1 msg]",
    ]


# One entry of every kind pi writes (and a few it does not), all on one path.
EVERY_KIND = [
    header(id="kinds"),
    system("s0", None, 0, content="be careful", sections={"rules": "r"}, toolsAdded=[{"name": "bash"}]),
    user("u1", "s0", "a question", 1),
    assistant("a1", "u1", "", 2, content=[{"type": "thinking", "thinking": "hmm"}]),
    assistant("a2", "a1", "partial", 3, stopReason="error"),
    assistant(
        "a3",
        "a2",
        "",
        4,
        content=[
            {
                "type": "toolCall",
                "id": "c",
                "name": "edit",
                "arguments": {"path": "é.txt", "n": ["ü"], "x": 1, "y": 2},
            }
        ],
        stopReason="toolUse",
    ),
    entry(
        "message",
        "t1",
        "a3",
        5,
        message={
            "role": "toolResult",
            "toolName": "edit",
            "isError": True,
            "content": [{"type": "text", "text": "no such file"}],
        },
    ),
    entry(
        "message",
        "b1",
        "t1",
        6,
        message={"role": "bashExecution", "command": "ls", "output": "a b", "exitCode": 2},
    ),
    entry("message", "m1", "b1", 7, message={"role": "custom", "customType": "note", "content": "hello"}),
    entry("compaction", "c1", "m1", 8, summary="the story so far", firstKeptEntryId="m1", tokensBefore=12345),
    entry("branch_summary", "bs1", "c1", 9, fromId="x", summary="elsewhere"),
    entry("branch_summary", "bs2", "bs1", 10, fromId="x", summary=""),
    entry("model_change", "mc", "bs2", 11, provider="openai", modelId="gpt-5"),
    entry("thinking_level_change", "tl", "mc", 12, thinkingLevel="high"),
    entry("label", "l1", "tl", 13, targetId="u1", label="start"),
    entry("label", "l2", "l1", 14, targetId="a1"),
    entry("session_info", "n1", "l2", 15, name="Kinds"),
    entry("session_info", "n2", "n1", 16, name=""),
    entry("custom", "x1", "n2", 17, customType="ext.state", data={"k": 1}),
    entry("custom_message", "cm", "x1", 18, customType="plan", content="todo", display=False),
    entry("context_edit", "e1", "cm", 19, targetId="t1", replacement=None),
    entry("context_edit", "e2", "e1", 20, targetId="a2", replacement={"content": "shorter"}),
    entry("context_edit", "e3", "e2", 21, targetId="a2"),
    entry(
        "usage",
        "us",
        "e3",
        22,
        kind="cache_warm",
        usage={"input": 1500, "output": 0, "totalTokens": 1500},
        note="warm",
    ),
    entry("telemetry", "tm", "us", 23, payload=[1]),
    entry("label", "lb", "tm", 24, targetId="u1", label=["not", "a", "string"]),
    entry("message", "nr", "lb", 25, message={"role": "narrator", "content": "once upon a time"}),
    entry("message", "ns", "nr", 26, message={"role": "narrator"}),
]


def test_readable_tree_says_what_each_entry_is(tmp_path: Path) -> None:
    out = run("tree", str(write(tmp_path / "kinds.jsonl", *EVERY_KIND)))
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[1:] == [
        "* s0 system    be careful · sections: rules · +1 tools",
        "* u1 user      [not,a,string] a question",
        "* a1 assistant (thinking only)",
        "* a2 assistant [error] partial",
        '* a3 assistant → edit(path=é.txt, n=["ü"], x=1)',
        "* t1 tool      edit error: no such file",
        "* b1 bash      $ ls (exit 2) a b",
        "* m1 custom    note: hello",
        "* c1 compaction [compaction: 12k tokens] the story so far",
        "* bs1 branch    [branch summary] elsewhere",
        "* bs2 branch    [branch summary] (empty)",
        "* mc model     → openai/gpt-5",
        "* tl thinking  → high",
        "* l1 label     “start” on u1",
        "* l2 label     cleared label on a1",
        "* n1 name      “Kinds”",
        "* n2 name      (name cleared)",
        "* x1 custom    ext.state (extension state, not sent)",
        "* cm ext-msg   plan (hidden): todo",
        "* e1 edit      omit t1",
        "* e2 edit      replace a2: shorter",
        "* e3 edit      edit of a2 without a replacement (ignored)",
        "* us usage     cache_warm: 1.5k tokens warm",
        "* tm telemetry (telemetry: unknown entry type, kept as is)",
        "* lb label     (label: label: expected text, got a list; kept as is)",
        "* nr narrator  once upon a time",
        "* ns narrator  (narrator message)",
        "! line 23: context edit without a replacement: ignored (pi would stop with an error)",
    ]


def test_reading_a_path_leaves_no_file_open(tmp_path: Path) -> None:
    """Python warns on stderr about a file left open (`-W always::ResourceWarning`, or
    `-X dev`): `context --json` reads the bodies of each path asked for in one pass over the
    file, and closes the file after it."""
    path = write(
        tmp_path / "s.jsonl",
        header(),
        user("u1", None, "a question", 1),
        assistant("a1", "u1", "an answer", 2),
        user("u2", "a1", "another", 3),
        assistant("a2", "u2", "another answer", 4),
    )
    command = ["context", str(path), "--json", "--leaf", "a1", "--leaf", "a2"]
    out = subprocess.run(
        [sys.executable, "-W", "always::ResourceWarning", "-m", "pi_sessions.app.cli", *command],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert [json.loads(line)["leaf"] for line in out.stdout.splitlines()] == ["a1", "a2"]
    assert "ResourceWarning" not in out.stderr, out.stderr


def test_every_subcommand_help_ends_with_examples(capsys: pytest.CaptureFixture[str]) -> None:
    """In this process (an interpreter per subcommand cost seconds), but for one, which runs
    as `python -m pi_sessions.app.cli` does."""
    from pi_sessions.app import subcommands
    from pi_sessions.app.cli import main

    def shown_help(name: str) -> str:
        if name == "list":
            out = subprocess.run(
                [sys.executable, "-m", "pi_sessions.app.cli", name, "--help"], capture_output=True, text=True
            )
            assert out.returncode == 0, name
            return out.stdout
        with pytest.raises(SystemExit) as exited:
            main([name, "--help"])
        assert exited.value.code == 0, name
        return capsys.readouterr().out

    for name in subcommands.MODULES:
        text = shown_help(name)
        tail = text.rstrip().split("examples:\n")[-1].splitlines()
        assert "examples:" in text and len(tail) >= 1, name
        assert all(f"pi-sessions {name}" in line for line in tail), (name, tail)


def test_the_readme_lists_every_subcommand() -> None:
    from pi_sessions.app import subcommands

    readme = (Path(__file__).parents[2] / "README.md").read_text()
    block = readme.split("## Command line", 1)[1].split("```", 2)[1]
    missing = [name for name in subcommands.MODULES if f"pi-sessions {name}" not in block]
    assert not missing, f"README's command list lacks {missing}"


def test_context_all_prints_an_edited_entry_edited_only_where_the_edit_is_on_the_path(tmp_path: Path) -> None:
    """Two leaves share a1; a context edit on one branch replaces it there only. `--all` keeps
    each entry's encoded messages for the next leaf: what it prints for each leaf is what
    `--leaf` prints for it alone (the edit is part of what is kept, not only the entry)."""
    from tests.helpers.cli import cli

    path = str(
        write(
            tmp_path / "s.jsonl",
            header(),
            user("u1", None, "hello", 1),
            assistant("a1", "u1", "the long original answer", 2),
            user("u2", "a1", "plain branch", 3),
            entry("context_edit", "x1", "a1", 4, targetId="a1", replacement={"content": "SHORT"}),
            user("u3", "x1", "edited branch", 5),
        )
    )
    for form in ((), ("--json",)):
        every = cli("context", path, "--all", *form)
        assert every.code == 0, every.stderr
        one_by_one = "".join(
            cli("context", path, "--leaf", leaf, *form).stdout for leaf in ("u1", "a1", "u2", "x1", "u3")
        )
        assert every.stdout == one_by_one
    edited = [json.loads(line) for line in cli("context", path, "--all", "--json").stdout.splitlines()]
    texts = {c["leaf"]: json.dumps(c["messages"]) for c in edited}
    assert "SHORT" in texts["u3"] and "original" not in texts["u3"]
    assert "original" in texts["u2"] and "SHORT" not in texts["u2"]


def test_context_all_on_a_chain_of_labels_prints_each_leaf_as_its_own_context_does(tmp_path: Path) -> None:
    """`--all` makes each leaf's messages and lines once for all leaves (a chain of labels:
    thousands of context entries per leaf, one that sends messages): what it prints for
    each leaf is what `--leaf` prints for it alone, a control in an entry made inert."""
    from tests.helpers.cli import cli, raw_controls

    rows = [header(), user("u0", None, "hello\x1b[31m red", 0), assistant("a0", "u0", "hi", 1)]
    parent = "a0"
    for i in range(60):
        rows.append(
            entry("label", f"l{i}", parent, i + 2, targetId="u0", label=f"lab\n{i}" if i == 7 else f"lab{i}")
        )
        parent = f"l{i}"
    path = str(write(tmp_path / "s.jsonl", *rows))
    ids = ["u0", "a0", *(f"l{i}" for i in range(60))]
    for form in ((), ("--json",)):
        every = cli("context", path, "--all", *form)
        assert every.code == 0 and not raw_controls(every.stdout)
        one_by_one = "".join(cli("context", path, "--leaf", leaf, *form).stdout for leaf in ids)
        assert every.stdout == one_by_one
    assert len(cli("context", path, "--all").stdout.splitlines()) == sum(
        len(ids[: i + 1]) + 2 for i in range(len(ids))
    )
