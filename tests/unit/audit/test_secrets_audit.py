"""The secrets audit: every kind found whole in the right entry with its fate; the allow-list;
the real corpus's false positives, listed (so a rule that adds noise fails)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from pi_sessions.core.audit.allowlist import load_allow_list, parse_allow_list
from pi_sessions.core.audit.rules import find_secrets, preview
from pi_sessions.core.audit.scan import audit_file, audit_paths, session_paths

from tests.helpers.cli import cli
from tests.helpers.corpus import FIXTURES as CORPUS
from tests.helpers.corpus import SHARED_FIXTURES
from tests.helpers.secrets import EXPECTED, GITHUB, write_secret_session


def test_each_kind_is_found_whole_in_its_entry_with_its_fate(tmp_path: Path) -> None:
    audit = audit_file(str(write_secret_session(tmp_path)))
    got = {f.kind: (f.entry_id, f.fate, f.source, f.preview) for f in audit.findings}
    want = {kind: (e, fate, src, preview(value)) for kind, (value, e, fate, src) in EXPECTED.items()}
    assert got == want
    # whole: the value the detector kept is exactly the planted one
    assert {v: k for k, v in audit.values.items()} == {k: v for k, (v, *_) in EXPECTED.items()}
    abandoned = next(f for f in audit.findings if f.kind == "keyword-secret")
    assert (abandoned.on_active_path, abandoned.in_context, abandoned.part) == (False, False, "tool-result")
    slack = next(f for f in audit.findings if f.kind == "slack-token")
    assert (slack.part, slack.tool_call_id, slack.in_context) == ("tool-call", "call_2", True)


def test_a_finding_never_holds_the_value(tmp_path: Path) -> None:
    audit = audit_file(str(write_secret_session(tmp_path)))
    shown = json.dumps([f.to_json() for f in audit.findings])
    for value, *_ in EXPECTED.values():
        assert value not in shown
        assert value[2:-2] not in shown


def test_the_cli_prints_one_object_per_finding_and_no_value(tmp_path: Path) -> None:
    write_secret_session(tmp_path)
    result = cli("secrets", str(tmp_path), "--json")
    assert result.code == 0
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert sorted(r["kind"] for r in rows) == sorted(EXPECTED)
    assert {"session_path", "entry_id", "kind", "preview", "on_active_path", "in_context", "source"} <= set(
        rows[0]
    )
    assert all(value not in result.stdout for value, *_ in EXPECTED.values())
    readable = cli("secrets", "--session-dir", str(tmp_path))
    assert readable.code == 0 and "github-token" in readable.stdout and GITHUB not in readable.stdout


def test_a_missing_path_is_one_line_and_exit_2(tmp_path: Path) -> None:
    result = cli("secrets", str(tmp_path / "nope.jsonl"))
    assert result.code == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_the_allow_list_drops_listed_values_and_patterns(tmp_path: Path) -> None:
    allow_file = tmp_path / "allow.txt"
    allow_file.write_text(f"# known fixtures\n{GITHUB}\nre:AKIA[A-Z0-9]{{16}}\nre:(\n")
    allow = load_allow_list(allow_file)
    assert allow.problems and "line 4" in allow.problems[0]
    (tmp_path / "s").mkdir()
    audit = audit_file(str(write_secret_session(tmp_path / "s")), allow)
    kinds = {f.kind for f in audit.findings}
    assert "github-token" not in kinds and "aws-access-key-id" not in kinds
    assert "slack-token" in kinds
    assert load_allow_list(tmp_path / "absent.txt").empty


def test_shapes_that_are_not_secrets() -> None:
    text = "\n".join(
        [
            "postgres://user:password@localhost/db and https://u:${DB_PASSWORD}@host",
            "const token = process.env.GITHUB_TOKEN_V2; totalTokens: 1234567890123456",
            'headers: {"Authorization": "Bearer <your-token-here>"}',
            "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----",
            "ghp_short sk_live_ AKIA1234 eyJhbGciOi.eyJzdWIi.sig",
            "password_file=/etc/app/secrets/db2.conf",
        ]
    )
    assert find_secrets(text) == []
    assert find_secrets("x", parse_allow_list("").allows) == []


def _corpus_findings(folder: Path) -> list[tuple[str, str | None, str, str]]:
    rows = []
    for audit in audit_paths(session_paths(str(folder / "sessions"))):
        for f in audit.findings:
            rows.append((Path(f.session_path).name, f.entry_id, f.kind, f.preview))
    return sorted(rows)


# The corpus holds no real credential: every finding there is a false positive, listed here.
CORPUS_FALSE_POSITIVES: list[tuple[str, str | None, str, str]] = []
SHARED_FALSE_POSITIVES: list[tuple[str, str | None, str, str]] = []


def test_the_corpus_false_positives_are_exactly_these() -> None:
    assert _corpus_findings(CORPUS) == CORPUS_FALSE_POSITIVES


@pytest.mark.skipif(
    not (SHARED_FIXTURES / "sessions").is_dir(), reason="no shared corpus next to the repository"
)
def test_the_shared_corpus_false_positives_are_exactly_these() -> None:
    assert _corpus_findings(SHARED_FIXTURES) == SHARED_FALSE_POSITIVES


def test_the_cache_answers_for_unchanged_files_and_reads_changed_ones(tmp_path: Path) -> None:
    from pi_sessions.core.audit.cache import audit_with_cache

    path = write_secret_session(tmp_path)
    cache = tmp_path / "cache" / "audit.json"
    first = [f for found in audit_with_cache([str(path)], None, cache) for f in found]
    assert len(first) == len(EXPECTED)
    stored = cache.read_text()
    assert all(value not in stored for value, *_ in EXPECTED.values())
    again = [f for found in audit_with_cache([str(path)], None, cache) for f in found]
    assert again == first
    with path.open("a") as f:
        f.write(
            json.dumps(
                {
                    "type": "label",
                    "id": "l9",
                    "parentId": "a3",
                    "timestamp": "x",
                    "label": "sk_live_" + "Zz9" * 8,
                }
            )
            + "\n"
        )
    grown = [f for found in audit_with_cache([str(path)], None, cache) for f in found]
    assert [f.entry_id for f in grown if f.kind == "stripe-key"] == ["r1", "l9"]


def test_a_file_replaced_by_another_of_the_same_size_and_mtime_is_read_again(tmp_path: Path) -> None:
    """The cache knows a file by size, mtime and inode: another file moved into its place with
    the same size and mtime (a tool writing a copy and renaming it) holds other findings."""
    from pi_sessions.core.audit.cache import audit_with_cache

    (tmp_path / "sessions").mkdir()
    path = write_secret_session(tmp_path / "sessions")
    cache = tmp_path / "cache" / "audit.json"
    first = [f.preview for found in audit_with_cache([str(path)], None, cache) for f in found]
    other_token = GITHUB[:-2] + "Zq"
    data = path.read_bytes()
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(data.replace(GITHUB.encode(), other_token.encode()))
    st = path.stat()
    os.utime(copy, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(copy, path)
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (st.st_size, st.st_mtime_ns) and after.st_ino != st.st_ino
    again = [f.preview for found in audit_with_cache([str(path)], None, cache) for f in found]
    assert preview(GITHUB) in first and preview(GITHUB) not in again and preview(other_token) in again


def test_a_file_that_is_not_a_session_is_exit_2(tmp_path: Path) -> None:
    other = tmp_path / "notes.jsonl"
    other.write_text("")
    result = cli("secrets", str(other))
    assert result.code == 2 and "Traceback" not in result.stderr


def test_json_escapes_other_writers_use_hide_nothing(tmp_path: Path) -> None:
    path = write_secret_session(tmp_path)
    plain = {(f.entry_id, f.kind, f.preview) for f in audit_file(str(path)).findings}
    data = path.read_bytes()
    for name, changed in (
        ("slashes.jsonl", data.replace(b"/", b"\\/")),  # a writer that escapes every slash
        ("escaped.jsonl", data.replace(b"AKIA", b"\\u0041KIA").replace(b"ghp_", b"\\u0067hp_")),
    ):
        other = tmp_path / name
        other.write_bytes(changed)
        assert {(f.entry_id, f.kind, f.preview) for f in audit_file(str(other)).findings} == plain, name


def test_a_file_read_in_small_pieces_gives_the_same_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pi_sessions.core.audit import scan

    path = write_secret_session(tmp_path)
    whole = audit_file(str(path)).findings
    monkeypatch.setattr(scan, "_PIECE", 97)  # pieces cut lines, and lines longer than a piece
    assert audit_file(str(path)).findings == whole


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_files_shared_with_a_second_process_give_the_same_findings_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    from pi_sessions.core.audit import cache as audit_cache

    paths = []
    for i in range(10):
        folder = tmp_path / f"s{i}"
        folder.mkdir()
        paths.append(str(write_secret_session(folder)))
    (tmp_path / "not-a-session.jsonl").write_text("hello\n")
    paths.insert(3, str(tmp_path / "not-a-session.jsonl"))
    alone = [
        [f.to_json() for f in found] for found in audit_cache.audit_with_cache(paths, None, None, workers=1)
    ]
    assert [len(found) for found in alone] == [len(EXPECTED)] * 3 + [0] + [len(EXPECTED)] * 7
    monkeypatch.setattr(audit_cache, "SHARED_MIN_BYTES", 0)
    if method == "spawn":
        monkeypatch.setattr("threading.active_count", lambda: 2)
    shared = audit_cache.audit_with_cache(paths, None, tmp_path / "cache.json", workers=2)
    assert [[f.to_json() for f in found] for found in shared] == alone
    again = audit_cache.audit_with_cache(paths, None, tmp_path / "cache.json", workers=2)
    assert [[f.to_json() for f in found] for found in again] == alone  # (and remembered)
