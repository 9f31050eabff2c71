"""`pi-sessions search` and `pi-sessions labels`: JSON shapes, the corpus's labels, deep-only
hits, time filters, and one-line errors (exit 2)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.cli import cli
from tests.helpers.corpus import FIXTURES
from tests.helpers.sessions import branched, entry, header, kitchen, user, write

CORPUS = FIXTURES / "sessions"
SEARCH_FIELDS = ("path", "session_id", "entry_id", "field", "excerpt", "on_active_path")
LABEL_FIELDS = ("path", "session_id", "entry_id", "label", "timestamp", "on_active_path")


def run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`pi-sessions ARGS` in this process (a fresh interpreter per call cost a second each),
    with its index cache under `tmp_path`."""
    saved = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    try:
        result = cli(*args)
    finally:
        if saved is None:
            del os.environ["XDG_CACHE_HOME"]
        else:
            os.environ["XDG_CACHE_HOME"] = saved
    return subprocess.CompletedProcess(list(args), result.code, result.stdout, result.stderr)


def lines(out: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_labels_json_equals_the_corpus_file_by_file(tmp_path: Path) -> None:
    rows = lines(run(tmp_path, "labels", "--session-dir", str(CORPUS), "--json"))
    assert rows and all(set(LABEL_FIELDS) <= set(row) for row in rows)
    got: dict[str, dict[str, tuple[Any, Any]]] = {}
    for row in rows:
        rel = str(Path(row["path"]).relative_to(CORPUS))
        got.setdefault(rel, {})[row["entry_id"]] = (row["label"], row["timestamp"])
    compared = 0
    for path in sorted((FIXTURES / "expected").rglob("*.jsonl.json")):
        expected = json.loads(path.read_text())
        rel = str(path.relative_to(FIXTURES / "expected"))[: -len(".json")]
        want = {k: (v, expected["label_timestamps"][k]) for k, v in (expected.get("labels") or {}).items()}
        if expected.get("ids_are_random"):  # v1 files: our ids are not pi's, compare counts
            assert len(got.get(rel, {})) == len(want), rel
            continue
        assert got.get(rel, {}) == want, rel
        compared += 1
    assert compared > 50
    assert sum(len(v) for v in got.values()) == len(rows)  # one row per label


def test_labels_readable_form_and_place(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    write(
        root / "p" / "s.jsonl",
        header(),
        user("u1", None, "first", 1),
        user("u2", "u1", "abandoned idea", 2),
        entry("label", "l1", "u2", 3, targetId="u2", label="maybe later"),
        user("u3", "u1", "the real work", 4),
    )
    (row,) = lines(run(tmp_path, "labels", "--session-dir", str(root), "--json"))
    assert (row["entry_id"], row["label"], row["on_active_path"], row["branch_from"]) == (
        "u2",
        "maybe later",
        False,
        "u1",
    )
    readable = run(tmp_path, "labels", "--session-dir", str(root))
    assert (
        readable.returncode == 0 and "maybe later" in readable.stdout and "branch from u1" in readable.stdout
    )
    empty = run(tmp_path, "labels", "--session-dir", str(tmp_path / "none"))
    assert empty.returncode == 0 and "no labels" in empty.stdout


def test_search_json_places_each_hit(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path = branched(root / "p" / "s.jsonl")
    (hit,) = lines(run(tmp_path, "search", '"explain why that works"', "--session-dir", str(root), "--json"))
    assert set(SEARCH_FIELDS) <= set(hit)
    assert hit["path"] == str(path) and hit["session_id"] == "0195aaaa-0000-7000-8000-000000000001"
    assert (hit["entry_id"], hit["field"], hit["on_active_path"], hit["branch_from"]) == (
        "u3",
        "message",
        False,
        "a1",
    )
    start, end = hit["highlights"][0]
    assert hit["excerpt"][start:end].lower() == "explain why that works"
    (on_path,) = lines(run(tmp_path, "search", "fix it", "--session-dir", str(root), "--json"))
    assert (on_path["entry_id"], on_path["on_active_path"]) == ("u2", True)
    (by_cwd,) = lines(run(tmp_path, "search", "home", "--session-dir", str(root), "--json"))
    assert (by_cwd["entry_id"], by_cwd["field"], by_cwd["on_active_path"]) == (None, "cwd", None)
    readable = run(tmp_path, "search", "explain", "--session-dir", str(root))
    assert readable.returncode == 0 and "message of u3 (branch from a1)" in readable.stdout
    nothing = run(tmp_path, "search", "qqqzzz", "--session-dir", str(root))
    assert nothing.returncode == 0 and "no session matches" in nothing.stdout


def test_search_over_the_corpus_agrees_with_the_index(tmp_path: Path) -> None:
    hits = lines(run(tmp_path, "search", "tests", "--session-dir", str(CORPUS), "--json"))
    assert len(hits) > 10
    for hit in hits:
        if hit["entry_id"] is None:
            assert hit["field"] in ("name", "id", "cwd")
            continue
        assert hit["field"] == "message" and "tests" in hit["excerpt"].lower()
        tree = json.loads(run(tmp_path, "tree", hit["path"], "--json").stdout)
        assert hit["entry_id"] in tree["entry_ids"]


@pytest.mark.parametrize(
    ("query", "entry_id", "field"),
    [
        ("frobnicate() is unused", "t1", "tool_result"),
        ('"good output"', "t1", "label"),
        ("staging", "b1", "bash_output"),
    ],
)
def test_a_deep_only_hit_needs_deep(tmp_path: Path, query: str, entry_id: str, field: str) -> None:
    root = tmp_path / "sessions"
    kitchen(root / "p" / "s.jsonl")
    assert lines(run(tmp_path, "search", query, "--session-dir", str(root), "--json")) == []
    (hit,) = lines(run(tmp_path, "search", query, "--deep", "--session-dir", str(root), "--json"))
    assert (hit["entry_id"], hit["field"], hit["on_active_path"]) == (entry_id, field, True)
    readable = run(tmp_path, "search", query, "--deep", "--session-dir", str(root))
    assert f"{field} of {entry_id} (active path)" in readable.stdout


def test_a_corpus_label_is_found_only_with_deep(tmp_path: Path) -> None:
    assert lines(run(tmp_path, "search", "checkpoint-1b", "--session-dir", str(CORPUS), "--json")) == []
    hits = lines(run(tmp_path, "search", "checkpoint-1b", "--deep", "--session-dir", str(CORPUS), "--json"))
    assert hits and all(h["field"] == "label" for h in hits)


def recent(path: Path, days_ago: float, text: str) -> Path:
    ms = int(time.time() * 1000 - days_ago * 86_400_000)
    message = {"role": "user", "content": text, "timestamp": ms}
    return write(path, header(), entry("message", "u1", None, 1, message=message))


def test_time_filters(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    recent(root / "p" / "new.jsonl", 1, "deploy the thing")
    recent(root / "p" / "old.jsonl", 20, "deploy the other thing")

    def names(*args: str) -> list[str]:
        return sorted(
            Path(h["path"]).name
            for h in lines(run(tmp_path, "search", *args, "--session-dir", str(root), "--json"))
        )

    assert names("deploy") == ["new.jsonl", "old.jsonl"]
    assert names("deploy @7d") == ["new.jsonl"]
    assert names("@3w") == ["new.jsonl", "old.jsonl"]
    assert names("@2d") == ["new.jsonl"]
    assert names("deploy", "--since", "7d") == ["new.jsonl"]
    assert names("deploy", "--since", "12h") == []
    assert names("deploy", "--since", "1mo", "--deep") == ["new.jsonl", "old.jsonl"]
    assert names("@7d re:deploy", "--deep") == ["new.jsonl"]
    # only a time filter: every session active within it, with or without --deep
    assert names("@3w", "--deep") == ["new.jsonl", "old.jsonl"]
    assert names("@2d", "--deep") == ["new.jsonl"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("re:(",), "Invalid regular expression: /(/i"),
        (("re:",), "Empty regex"),
        (("x", "--since", "7x"), "--since: not a duration"),
        (("x", "--since", "0d"), "--since: not a duration"),
        (("fix @0d",), "a time filter needs a count above 0"),
        (("  ",), "the query is empty"),
    ],
)
def test_a_bad_query_is_one_line_and_exit_2(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    out = run(tmp_path, "search", *args, "--session-dir", str(CORPUS))
    assert out.returncode == 2, out.stdout
    assert message in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and out.stdout == ""


def test_a_pattern_too_slow_is_one_line_and_exit_2(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    write(root / "p" / "s.jsonl", header(), user("u1", None, "a" * 5000 + "!"))
    out = run(tmp_path, "search", "re:(a|aa)+$", "--session-dir", str(root))
    assert out.returncode == 2 and "pattern too slow" in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_a_query_longer_than_the_limit_is_cut_with_one_warning_line(tmp_path: Path) -> None:
    from pi_sessions.core.search.query import MAX_QUERY_CHARS

    root = tmp_path / "sessions"
    write(root / "p" / "one.jsonl", header(id="s-one"), user("u1", None, "alpha beta", 1))
    write(root / "p" / "two.jsonl", header(id="s-two"), user("u1", None, "alpha omega", 1))
    start = " ".join(["alpha"] * 60)[:MAX_QUERY_CHARS]
    for args in ((), ("--deep",)):
        out = run(tmp_path, "search", start + " omega" * 500, "--session-dir", str(root), "--json", *args)
        assert out.stderr.splitlines() == [
            f"pi-sessions: query cut to {MAX_QUERY_CHARS} characters (a longer query costs too much to match)"
        ]
        assert sorted(row["session_id"] for row in lines(out)) == ["s-one", "s-two"]  # the cut query's hits
        assert lines(run(tmp_path, "search", start, "--session-dir", str(root), "--json", *args)) == lines(
            out
        )
    short = run(tmp_path, "search", "alpha omega", "--session-dir", str(root), "--json")
    assert short.stderr == "" and [row["session_id"] for row in lines(short)] == ["s-two"]


def test_order_relevance_puts_a_name_hit_before_a_newer_text_hit(tmp_path: Path) -> None:
    """`--order relevance` is pi's score (a name before a message text); the default is newest first."""
    folder = tmp_path / "sessions" / "--home-u-proj--"
    write(
        folder / "2025-01-01T00-00-00-000Z_old.jsonl",
        header(id="old", timestamp="2025-01-01T00:00:00.000Z"),
        user("u1", None, "hello", 1),
        entry("session_info", "n1", "u1", 2, name="parser rewrite"),
    )
    write(
        folder / "2025-03-01T00-00-00-000Z_new.jsonl",
        header(id="new", timestamp="2025-03-01T00:00:00.000Z"),
        user("u1", None, "the parser is broken", 1),
    )
    sd = ("--session-dir", str(tmp_path / "sessions"))
    recent = [h["session_id"] for h in lines(run(tmp_path, "search", "parser", *sd, "--json"))]
    relevance = [
        h["session_id"]
        for h in lines(run(tmp_path, "search", "parser", *sd, "--order", "relevance", "--json"))
    ]
    assert (recent, relevance) == (["new", "old"], ["old", "new"])
