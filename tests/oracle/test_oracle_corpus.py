"""Every file of pi 1.6.0's corpus: our tree, every leaf's context, forks and the listing
must equal what pi itself derived (fixtures/pi-1.6.0/expected)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from pi_sessions.core.common.problems import SessionError
from pi_sessions.core.listing.store import read_file_state
from pi_sessions.core.projection.context import project
from pi_sessions.core.session.session import Session
from pi_sessions.core.writing.fork import plan_fork

from tests.helpers.corpus import FIXTURES, expected_files, load_expected, session_path_for

pytestmark = pytest.mark.oracle

EXPECTED = expected_files()


def _ids(path: Path) -> str:
    return path.name.split("_", 1)[-1][:13]


def _json_roundtrip(value: Any) -> Any:
    return json.loads(json.dumps(value))


class IdMap:
    """v1 files: pi invents random ids, ours are derived; match them by file position."""

    def __init__(self, pi_ids: list[str], our_ids: list[str], random_ids: bool) -> None:
        self.to_pi = dict(zip(our_ids, pi_ids, strict=True)) if random_ids else {}
        self.to_ours = {v: k for k, v in self.to_pi.items()}

    def pi(self, value: Any) -> Any:
        if not self.to_pi:
            return value
        if isinstance(value, str):
            return self.to_pi.get(value, value)
        if isinstance(value, list):
            return [self.pi(v) for v in value]
        if isinstance(value, dict):
            return {self.pi(k): self.pi(v) for k, v in value.items()}
        return value

    def ours(self, pi_id: str) -> str:
        return self.to_ours.get(pi_id, pi_id)


def _open_like_pi(exp: dict, path: Path) -> Session | None:
    if exp.get("open_error") or exp.get("leaves_mode") is None:
        with pytest.raises(SessionError):
            Session.open(path)
        return None
    return Session.open(path, cache_entries=1 << 30)


@pytest.mark.parametrize("expected_path", EXPECTED, ids=_ids)
def test_tree_matches_pi(expected_path: Path) -> None:
    exp = load_expected(expected_path)
    session = _open_like_pi(exp, session_path_for(expected_path, exp))
    if session is None or exp.get("leaves_mode") == "entries-without-ids":
        return
    ids = IdMap(exp["entry_ids"], session.entry_ids(), bool(exp.get("ids_are_random")))
    assert ids.pi(session.entry_ids()) == exp["entry_ids"]
    assert ids.pi(session.default_leaf) == exp["default_leaf"]
    assert session.name == exp["session_name"]
    assert ids.pi(session.roots) == exp["tree"]["roots"]
    ours_children = {k: v for k, v in session.children_lists().items() if v}
    assert ids.pi(ours_children) == {k: v for k, v in exp["tree"]["children"].items() if v}
    assert ids.pi(session.preorder()) == exp["tree"]["preorder"]
    assert ids.pi({k: v for k, v in session.labels.items() if k in session.by_id}) == exp["labels"]
    assert (
        ids.pi({k: v for k, v in session.label_timestamps.items() if k in session.by_id})
        == exp["label_timestamps"]
    )
    assert session.header is not None
    assert session.header.get("version") == exp["header"].get("version")


@pytest.mark.parametrize("expected_path", EXPECTED, ids=_ids)
def test_every_leaf_context_matches_pi(expected_path: Path) -> None:
    exp = load_expected(expected_path)
    session = _open_like_pi(exp, session_path_for(expected_path, exp))
    if session is None or exp.get("leaves_mode") == "entries-without-ids":
        return
    ids = IdMap(exp["entry_ids"], session.entry_ids(), bool(exp.get("ids_are_random")))
    table = exp["message_table"]
    assert exp["leaves"], "every corpus file has leaves to check"
    for pi_leaf, want in exp["leaves"].items():
        projection = project(session, ids.ours(pi_leaf))
        assert ids.pi([r.id for r in projection.context]) == want["context_entry_ids"], pi_leaf
        assert projection.counts == want["projection_message_counts"], pi_leaf
        assert projection.model == want.get("model"), pi_leaf
        assert projection.thinking_level == want.get("thinkingLevel"), pi_leaf
        messages = ids.pi(_json_roundtrip(projection.messages(session)))
        assert messages == [table[i] for i in want["message_refs"]], pi_leaf


@pytest.mark.parametrize("expected_path", EXPECTED, ids=_ids)
def test_fork_lines_match_create_branched_session(expected_path: Path) -> None:
    exp = load_expected(expected_path)
    source = session_path_for(expected_path, exp)
    session = _open_like_pi(exp, source)
    if session is None or exp.get("leaves_mode") == "entries-without-ids":
        return
    ids = IdMap(exp["entry_ids"], session.entry_ids(), bool(exp.get("ids_are_random")))
    for branch in exp.get("branch_files") or []:
        if not branch.get("written"):
            continue
        plan = plan_fork(session, ids.ours(branch["leaf"]))
        lines = _json_roundtrip(plan.lines)
        want = branch["lines"]
        assert len(lines) == len(want)
        header, want_header = lines[0], want[0]
        for key in ("type", "version", "cwd"):
            assert header[key] == want_header[key]
        # pi writes `path.resolve(file)`: absolute, symlinks kept (the corpus may sit behind one)
        assert header["parentSession"] == os.path.abspath(source)
        assert header["id"] != want_header["id"] and len(header["id"]) == 36
        assert plan.file_name.endswith(f"_{header['id']}.jsonl")
        for ours, theirs in zip(lines[1:], want[1:], strict=True):
            ours = ids.pi(ours)
            if theirs["type"] == "label":
                keys = ("type", "targetId", "label", "timestamp")
                assert {k: ours.get(k) for k in keys} == {k: theirs.get(k) for k in keys}
            else:
                assert ours == theirs
        # Re-created labels hang off the line before each, as pi's do: the leaf, then the label
        # before (their ids are random in pi, so the chain is compared, not the ids).
        for before, line, their_before, theirs in zip(lines[1:], lines[2:], want[1:], want[2:], strict=False):
            if theirs["type"] == "label":
                assert theirs["parentId"] == their_before["id"]
                assert line["parentId"] == before["id"]


@pytest.mark.parametrize("expected_path", EXPECTED, ids=_ids)
def test_listing_matches_pi_session_info(expected_path: Path) -> None:
    exp = load_expected(expected_path)
    path = session_path_for(expected_path, exp)
    entry, _ = read_file_state(str(path))
    assert entry is not None
    summary, reason = entry.summary, entry.skipped
    info = exp.get("session_info")
    if info is None:
        # pi leaves the file out; we either do too (not a session) or list it with a problem.
        assert summary is None or summary.problems, reason
        return
    assert summary is not None, reason
    ours = summary.to_json()
    for key in (
        "id",
        "cwd",
        "name",
        "parentSessionPath",
        "created",
        "modified",
        "messageCount",
        "firstMessage",
    ):
        assert ours[key] == info.get(key), key


def test_corpus_is_complete() -> None:
    """The committed corpus holds the files pi generated (minus third-party data)."""
    manifest = json.loads((FIXTURES / "manifest.json").read_text())
    committed = {str(p.relative_to(FIXTURES / "sessions")) for p in (FIXTURES / "sessions").rglob("*.jsonl")}
    expected = {rel for rel in manifest["files"] if "pi-mono" not in rel}
    assert committed == expected
    assert len(EXPECTED) >= len(expected)


def test_reading_never_modifies_a_file(tmp_path: Path) -> None:
    """Open, project every leaf, plan forks and list the whole corpus: no byte changes."""
    import hashlib

    def digest(p: Path) -> tuple[str, int]:
        return hashlib.sha256(p.read_bytes()).hexdigest(), os.stat(p).st_mtime_ns

    files = sorted((FIXTURES / "sessions").rglob("*.jsonl"))
    before = {p: digest(p) for p in files}
    for p in files:
        read_file_state(str(p))
        try:
            session = Session.open(p)
        except SessionError:
            continue
        for leaf in list(session.by_id)[:50]:
            projection = project(session, leaf)
            projection.messages(session)
            plan_fork(session, leaf)
    after = {p: digest(p) for p in files}
    assert before == after
