"""pi's context size (estimateProjectedContextTokens): every leaf of the corpus, each rule on a
hand-made session, and the caching that keeps a cursor move cheap. Every expected number was
computed by pi 1.6.0 itself (oracle/tokens.mjs on the same sessions)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from msgspec import UNSET
from pi_sessions.core.projection.context import project
from pi_sessions.core.projection.message_tokens import (
    estimate_message_tokens,
    js_length,
    js_to_number,
    json_length,
    usage_context_tokens,
)
from pi_sessions.core.projection.tokens import _js_result as js_result
from pi_sessions.core.projection.tokens import context_tokens, estimate_context, reported_context
from pi_sessions.core.session.session import Session

from tests.helpers.corpus import FIXTURES, SHARED_FIXTURES
from tests.helpers.sessions import assistant, entry, header, jsonl, user, write
from tests.helpers.token_cases import CASES, PI_TOKENS


def _pi_tokens() -> list[tuple[Path, str, dict[str, Any]]]:
    """(corpus, file, {leaf: pi's tokens}) for the committed corpus and, when present, the
    third-party files of ../shared that are not committed."""
    out: list[tuple[Path, str, dict[str, Any]]] = []
    seen: set[str] = set()
    for corpus in (FIXTURES, SHARED_FIXTURES):
        path = corpus / "expected" / "_tokens.json"
        if not path.exists():
            continue
        for rel, leaves in json.loads(path.read_text()).items():
            if rel not in seen:
                seen.add(rel)
                out.append((corpus, rel, leaves))
    return out


PI_CORPUS = _pi_tokens()


def _leaf_map(corpus: Path, rel: str, session: Session) -> dict[str, str]:
    """pi's leaf ids -> ours (legacy v1 files: pi's ids are random, match by position)."""
    expected = json.loads((corpus / "expected" / (rel + ".json")).read_text())
    if expected.get("ids_are_random"):
        return dict(zip(expected["entry_ids"], session.entry_ids(), strict=True))
    return {}


def test_the_committed_corpus_has_pi_values() -> None:
    assert sum(len(leaves) for corpus, _, leaves in PI_CORPUS if corpus == FIXTURES) > 1900


@pytest.mark.parametrize(("corpus", "rel", "leaves"), PI_CORPUS, ids=[rel[-45:] for _, rel, _ in PI_CORPUS])
def test_every_leaf_of_the_corpus_matches_pi(corpus: Path, rel: str, leaves: dict[str, Any]) -> None:
    session = Session.open(corpus / "sessions" / rel, cache_entries=1 << 30)
    ours = _leaf_map(corpus, rel, session)
    wanted = [(leaf, tokens) for leaf, tokens in leaves.items() if tokens is not None]
    # A shuffled order exercises the remembered prefixes from every side.
    random.Random(rel).shuffle(wanted)
    for leaf, tokens in wanted:
        assert context_tokens(session, project(session, ours.get(leaf, leaf))) == tokens, leaf


def _case_session(tmp_path: Path, name: str) -> Session:
    return Session.open(write(tmp_path / f"{name}.jsonl", header(), *CASES[name]))


@pytest.mark.parametrize("name", list(CASES))
def test_each_rule_matches_pi_at_every_entry(tmp_path: Path, name: str) -> None:
    session = _case_session(tmp_path, name)
    ours = [estimate_context(session, project(session, e["id"])).pi_value for e in CASES[name]]
    assert ours == PI_TOKENS[name]
    # The same values computed cold, one fresh session per entry, backwards.
    for e, want in reversed(list(zip(CASES[name], PI_TOKENS[name], strict=True))):
        fresh = _case_session(tmp_path, name)
        assert estimate_context(fresh, project(fresh, e["id"])).pi_value == want


def test_aborted_and_error_replies_never_anchor(tmp_path: Path) -> None:
    session = _case_session(tmp_path, "aborted_error")
    at_tool_result = estimate_context(session, project(session, "t1"))
    assert at_tool_result.anchor_id == "a1"
    assert at_tool_result.usage_tokens == 1200
    assert reported_context(session, session.get("a2")) is None  # aborted, though it carries usage
    assert reported_context(session, session.get("a3")) is None  # error
    assert reported_context(session, session.get("a1")) == 1200


REPORTED_USAGES: list[dict[str, Any]] = [
    {},  # pi's plain usage (the helper's)
    {"usage": {"input": 1, "output": 2, "totalTokens": 90_000}},
    {"usage": {"totalTokens": 2**53}},  # beyond a double's exact ints
    {"usage": {"totalTokens": 15.5}},
    {"usage": {"totalTokens": 0, "input": 7, "output": 8}},
    {"usage": {"input": 7, "output": 8}},  # no total: undefined parts make NaN
    {"usage": {"input": 7, "output": 8, "cacheRead": 1, "cacheWrite": 2}},
    {"usage": {"totalTokens": -5}},
    {"usage": {"totalTokens": "12"}},
    {"usage": {"totalTokens": True}},
    {"usage": {}},
    {"usage": None},
    {"usage": 5},
    {"usage": {"totalTokens": 40, "cost": 5}},  # an odd cost: the line's lenient path
    {"usage": {"totalTokens": 40}, "stopReason": "aborted"},
    {"usage": {"totalTokens": 40}, "stopReason": "error"},
    {"usage": {"totalTokens": 40}, "stopReason": 3},
    {"usage": {"totalTokens": 40}, "extra": "a key pi never writes"},
]


def test_a_reply_reports_the_same_context_read_off_its_line_or_from_its_body(tmp_path: Path) -> None:
    # What a reply reports is read off its line when its usage is plain (no body read for the
    # context over time); it must be what the rule gives from the whole message, every time.
    lines = [user("u0", None, "hi")]
    for i, fields in enumerate(REPORTED_USAGES):
        lines.append(assistant(f"a{i}", lines[-1]["id"], "ok", **fields))
    lines.append({**assistant("x", "a0", "ok"), "odd": {"nested": [1]}})  # a full record
    session = Session.open(write(tmp_path / "s.jsonl", header(), *lines), cache_entries=1 << 30)
    for record in session.records[1:]:
        message = session.entry_dict(record)["message"]
        value = usage_context_tokens(message)
        rule = None if value is None else js_result(js_to_number(value))
        assert reported_context(session, record) == rule, (record.id, message)
        assert type(reported_context(session, record)) is type(rule)
    assert session.get("a0").reported == 15  # read off the line
    assert session.get("a13").reported is UNSET  # the lenient path dropped the odd cost: the body decides


def test_usage_before_a_later_context_edit_is_not_trusted(tmp_path: Path) -> None:
    session = _case_session(tmp_path, "edit_after_usage")
    before = estimate_context(session, project(session, "a2"))
    assert before.anchor_id == "a2" and before.tokens == 6000
    after_edit = estimate_context(session, project(session, "u2"))
    assert after_edit.anchor_id is None and after_edit.usage_tokens == 0
    assert after_edit.tokens < 100  # the whole (edited) projection, estimated
    assert estimate_context(session, project(session, "a3")).anchor_id == "a3"


def test_usage_before_a_compaction_is_not_trusted(tmp_path: Path) -> None:
    session = _case_session(tmp_path, "compaction")
    after = estimate_context(session, project(session, "u3"))
    assert after.anchor_id is None
    assert after.unknown_in_footer  # pi's footer shows "?" until the next reply
    replied = estimate_context(session, project(session, "a3"))
    assert replied.anchor_id == "a3" and not replied.unknown_in_footer
    assert estimate_context(session, project(session, "u5")).anchor_id is None  # after c2


def test_text_in_a_hand_edited_usage() -> None:
    session = Session.from_bytes(jsonl(header(), *CASES["text_usage"]))
    at_u2 = estimate_context(session, project(session, "u2"))
    assert at_u2.pi_value == "121"  # what pi's JSON holds (pi's value)
    assert at_u2.tokens == 13 and at_u2.anchor_id == "a1"  # a number for people: 12 + 1


def test_javascript_lengths() -> None:
    assert js_length("😀") == 2 and js_length("é") == 1 and js_length("\ud800") == 1
    # JSON.stringify(value).length as node 22 computes it for these values.
    values = json.loads(
        json.dumps(
            [
                {
                    "path": "src/ünï😀.ts",
                    "content": 'line "one"\n\ttab\\ \u0001 \x7f \ud83d end',
                    "n": [1.0, 1e21, 12345678901234567890, -0.0, 2.5e-7, True, None],
                    "clé": {"nested": []},
                },
                "😀\ud800x",
                [1e300, 0.1, 123.456e5, 5e-324, 2**53 + 1, -1.5e-9],
                {"": {}, "1": [], "b\u2028": "\u001f\b"},
            ]
        )
    )
    assert [json_length(v) for v in values] == [151, 11, 53, 30]


def test_broken_messages_do_not_raise() -> None:
    for message in (
        None,
        "text",
        {"role": "assistant", "content": 5},
        {"role": "assistant", "content": [None, {"type": "toolCall"}, {"type": "text", "text": 3}]},
        {"role": "user", "content": {"type": "text"}},
        {"role": "system", "content": None, "sections": "abc", "toolsAdded": True},
        {"role": "bashExecution"},
    ):
        assert estimate_message_tokens(message) >= 0


def _count_reads(session: Session, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    reads: list[int] = []
    original = session.entry_dict

    def counting(record: Any) -> dict[str, Any]:
        reads.append(record.index)
        return original(record)

    monkeypatch.setattr(session, "entry_dict", counting)
    return reads


def _long_chain(count: int, with_usage: bool) -> list[dict[str, Any]]:
    out = []
    parent = None
    for i in range(count):
        eid = f"e{i}"
        if i % 2 == 0:
            out.append(user(eid, parent, f"question number {i}", i))
        elif with_usage:
            out.append(assistant(eid, parent, f"answer {i}", i, usage={"totalTokens": 100 + i}))
        else:
            out.append(assistant(eid, parent, f"answer {i}", i))
            del out[-1]["message"]["usage"]
        parent = eid
    return out


def test_a_move_reads_only_what_follows_the_last_usage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = Session.open(write(tmp_path / "s.jsonl", header(), *_long_chain(400, with_usage=True)))
    reads = _count_reads(session, monkeypatch)
    assert context_tokens(session, project(session, "e399")) == 100 + 399
    assert len(reads) == 1  # the leaf is the reply that reported its usage
    reads.clear()
    assert context_tokens(session, project(session, "e200")) == 304  # a question after reply e199
    assert sorted(reads) == [199, 200]


def test_without_usage_a_move_reads_only_the_new_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = Session.open(write(tmp_path / "s.jsonl", header(), *_long_chain(400, with_usage=False)))
    reads = _count_reads(session, monkeypatch)
    assert context_tokens(session, project(session, "e300")) == 1200  # (pi's values)
    assert len(set(reads)) == 301  # the whole projection, once
    reads.clear()
    assert context_tokens(session, project(session, "e301")) == 1203
    assert reads == [301]
    reads.clear()
    assert context_tokens(session, project(session, "e300")) == 1200
    assert reads == []


def test_live_appends_and_reloads_are_followed(tmp_path: Path) -> None:
    path = write(tmp_path / "live.jsonl", header(), *CASES["compaction"][:4])
    session = Session.open(path)
    assert context_tokens(session, project(session, "a2")) == 4000
    with path.open("ab") as f:
        f.write(jsonl(*CASES["compaction"][4:6]))
    session.refresh()
    assert context_tokens(session, project(session, "u3")) == PI_TOKENS["compaction"][5]
    # The file replaced by another conversation: nothing remembered from the old one is used.
    write(path, header(), user("u1", None, "completely different and much longer words here", 1))
    session.refresh()
    assert context_tokens(session, project(session, "u1")) == 12


def test_a_context_edit_arriving_later_changes_the_figure(tmp_path: Path) -> None:
    entries = [
        user("u1", None, "a question that is long enough to matter", 1),
        assistant("a1", "u1", "answer", 2, usage={"totalTokens": 500}),
        user("u2", "a1", "follow up", 3),
    ]
    path = write(tmp_path / "s.jsonl", header(), *entries)
    session = Session.open(path)
    assert context_tokens(session, project(session, "u2")) == 503
    with path.open("ab") as f:
        f.write(jsonl(entry("context_edit", "x1", "u2", 4, targetId="u1", replacement={"content": "q"})))
    session.refresh()
    # pi: the edit invalidates a1's usage, so everything is estimated: "q", "answer", "follow up".
    assert context_tokens(session, project(session, "x1")) == 1 + 2 + 3


def test_context_json_has_pi_context_tokens() -> None:
    rel = next(rel for corpus, rel, _ in PI_CORPUS if corpus == FIXTURES and "proj-b" in rel)
    leaves = json.loads((FIXTURES / "expected" / "_tokens.json").read_text())[rel]
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pi_sessions.app.cli",
            "context",
            str(FIXTURES / "sessions" / rel),
            "--all",
            "--json",
        ],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    got = {o["leaf"]: o["context_tokens"] for o in map(json.loads, out.stdout.splitlines())}
    assert {k: v for k, v in leaves.items() if v is not None} == {
        k: got[k] for k in leaves if leaves[k] is not None
    }


def test_a_projection_from_before_a_tree_rebuild_does_not_poison_the_cache(tmp_path: Path) -> None:
    # x1 names a parent that arrives later: the tree is rebuilt and x1's path grows.
    path = write(tmp_path / "s.jsonl", header(), user("x1", "p1", "a child written first", 2))
    session = Session.open(path)
    old = project(session, "x1")
    alone = context_tokens(session, old)
    with path.open("ab") as f:
        f.write(jsonl(user("p1", None, "the parent, with many more words in it", 1)))
    session.refresh()
    new = project(session, "x1")
    assert [r.id for r in new.path] == ["p1", "x1"]
    assert context_tokens(session, old) == alone  # the old path's figure, not remembered
    both = context_tokens(session, new)
    assert both == alone + context_tokens(session, project(session, "p1"))
    assert context_tokens(session, old) == alone
