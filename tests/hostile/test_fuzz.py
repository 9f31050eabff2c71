"""Seeded fuzzing of the command line over damaged copies of the corpus sessions.

Each case copies a corpus file and damages it a few ways (truncation, byte flips, NUL, invalid
UTF-8, a BOM, CRLF, raw control bytes, wrong field types, cycles, duplicate ids, control
characters in every string field, a hostile file name), then runs every subcommand on it in
this process. Whatever the damage: no exception escapes, the exit code is 0 or 2 (`check`: or 3), nothing
readable carries a raw control character, JSON lines still parse, and no file is modified.

PI_SESSIONS_FUZZ_CASES=20000 runs more cases (default 300; .ci/run runs more), PI_SESSIONS_FUZZ_SEED
picks another seed. Each case has its own generator (seeded by the seed and its number), so the
cases run in CHUNKS tests that pytest-xdist spreads over its workers (one 300-case test held a
worker for a third of the suite's time), and a failing case replays alone. Every case of a
chunk runs whatever went wrong before it; the failures are reported together at the end, each
naming its case and keeping its damaged file under pytest's tmp_path to replay.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from pathlib import Path

import pytest

from tests.helpers.cli import CliResult, cli, raw_controls
from tests.helpers.damage import SEED, case_rng, damaged

CASES = int(os.environ.get("PI_SESSIONS_FUZZ_CASES") or os.environ.get("PI_SESSIONS_FUZZ") or "300")
CHUNKS = 6


# ---------------------------------------------------------------------- the check
def _entry_ids(result: CliResult) -> list[str]:
    if result.code != 0:
        return []
    ids = json.loads(result.out).get("entry_ids")
    return [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []


def check(result: CliResult, args: tuple[str, ...], *, as_json: bool) -> list[str]:
    problems = []
    if result.code not in ((0, 2, 3) if args[0] == "check" else (0, 2)):  # check: 3 ready with warnings
        problems.append(f"exit {result.code}: {result.stderr[:300]!r}")
    problems += [f"stderr {c}" for c in raw_controls(result.stderr)[:3]]
    if as_json:
        for line in result.stdout.splitlines():
            try:
                json.loads(line)
            except ValueError as e:
                problems.append(f"not JSON ({e}): {line[:200]!r}")
                break
    problems += [f"stdout {c}" for c in raw_controls(result.stdout)[:3]]  # JSON escapes them too
    if result.code == 2 and len(result.stderr.splitlines()) != 1:
        problems.append(f"an error is one line: {result.stderr[:300]!r}")
    return [ascii(f"{' '.join(a[:60] for a in args)}: {p}") for p in problems]  # the report is inert too


def digest(folder: Path) -> dict[bytes, str]:
    return {
        os.fsencode(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.rglob("*") if p.is_file()
    }


# Servers and the shared store, not one-shot commands on local files: tests/cli/test_serve.py,
# tests/cli/test_mcp.py (whose tools run the fuzzed subcommands), tests/store.
SERVED_ELSEWHERE = {"serve", "mcp", "push", "store"}
GROUPINGS = ("day", "model", "cwd")  # costs --by, in turn (no draw: the cases stay as they were)
QUERIES = ["the", "a", "x", "/", "\\", "(", "[", "*", "\x1b", "é", "\u202e", "00"]


def runs_for(
    case: int, session: str, root: Path, rng: random.Random, ids: list[str]
) -> list[tuple[tuple[str, ...], bool]]:
    """Every subcommand on the damaged file (the costly whole-folder ones on every other case),
    readable and JSON forms."""
    folder = str(root)
    runs: list[tuple[tuple[str, ...], bool]] = [
        (("tree", session), False),
        (("context", session), False),
        (("context", session, "--all"), False),
        (("resume", session, "--print", "--command=pi --session {path} --cwd {cwd} --id {id}"), False),
        (("list", "--session-dir", folder, "--no-cache"), False),
        (("stats", session), False),
        (("stats", session, "--json"), True),
        (("files", session), False),
        (("files", session, "--json"), True),
        (("secrets", session), False),
        (("secrets", session, "--json"), True),
        (("check", session), False),
        (("check", session, "--json"), True),
        (("slim", session, "--dry-run", "--max-output=10", "--json"), True),
    ]
    if case % 2 == 0:
        query = rng.choice(QUERIES)
        runs += [
            (("search", query, "--session-dir", folder, "--no-cache"), False),
            (("search", query, "--deep", "--session-dir", folder, "--no-cache", "--json"), True),
            (("labels", "--session-dir", folder, "--no-cache"), False),
            (("labels", "--session-dir", folder, "--no-cache", "--json"), True),
            (("costs", "--session-dir", folder, "--no-cache", "--by", GROUPINGS[case // 2 % 3]), False),
            (("costs", "--session-dir", folder, "--no-cache", "--json"), True),
            (("history", "/home/u/fuzz/src/app.py", "--session-dir", folder, "--no-cache"), False),
            (("history", "app.py", "--each-cwd", "--session-dir", folder, "--no-cache", "--json"), True),
            (("edits", "--session-dir", folder, "--no-cache"), False),
            (("edits", "--session-dir", folder, "--no-cache", "--json"), True),
            (("commands", query, "--session-dir", folder, "--no-cache"), False),
            (("commands", "--session-dir", folder, "--no-cache", "--json"), True),
            (("secrets", "--session-dir", folder, "--no-cache", "--json"), True),
        ]
    if case % 4 == 0:
        runs += [
            (("context", session, "--all", "--json"), True),
            (("context", session, "--json"), True),
            (("list", "--session-dir", folder, "--no-cache", "--json"), True),
        ]
    if case % 4 == 1:  # the marks: the header is all they read (they write only marks.json)
        verb = rng.choice(["pin", "unpin", "archive", "unarchive"])
        runs += [
            ((verb, session), False),
            ((verb, session, "--json"), True),
            (("tag", session, "+" + rng.choice(QUERIES), "-a"), False),
            (("tag", session, "--json"), True),
        ]
    if case % 50 == 0:  # these read no session: now and then is enough
        runs += [
            (("config", "--session-dir", folder), False),
            (("config", "--json"), True),
            (("completion", rng.choice(["bash", "zsh", "fish", "tcsh"])), False),
        ]
    if ids:
        leaf, other = rng.choice(ids), rng.choice(ids)
        runs += [
            (("fork", session, f"--leaf={leaf}", "--dry-run"), False),
            (("fork", session, f"--leaf={leaf}", "--dry-run", "--json"), True),
            (("context", session, f"--leaf={leaf}"), False),
            (("stats", session, f"--leaf={leaf}"), False),
            (("files", session, f"--leaf={leaf}", "--json"), True),
            (("check", session, f"--leaf={leaf}", "--json"), True),
            (("slim", session, f"--leaf={leaf}", "--dry-run"), False),
            (("compare", session, leaf, other), False),
            (("compare", session, leaf, other, "--json"), True),
        ]
    return runs


def run_case(case: int, path: Path, root: Path, rng: random.Random) -> list[str]:
    before = digest(root)
    session = os.fsdecode(os.fsencode(path))
    problems: list[str] = []
    tree = cli("tree", session, "--json")
    problems += check(tree, ("tree", "--json"), as_json=True)
    try:
        ids = _entry_ids(tree)
    except ValueError:
        ids = []  # (check reported it)
    for args, as_json in runs_for(case, session, root, rng, ids):
        try:
            problems += check(cli(*args), args, as_json=as_json)
        except Exception as e:  # escaped main(): the worst outcome
            problems.append(ascii(f"{' '.join(args)}: {type(e).__name__}: {e}"))
    if digest(root) != before:
        problems.append("a file was modified or created")
    return problems


def test_the_fuzz_covers_every_subcommand() -> None:
    from pi_sessions.app.subcommands import MODULES

    rng = random.Random(0)
    covered = {args[0] for case in range(100) for args, _ in runs_for(case, "s", Path("r"), rng, ["a"])}
    assert covered | SERVED_ELSEWHERE == set(MODULES)


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_damaged_sessions_never_break_the_command_line(
    chunk: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_SESSIONS_DEBUG", "1")  # an internal error raises: a traceback here, not exit 1
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    failures: list[str] = []
    cases = range(chunk, CASES, CHUNKS)
    for case in cases:
        rng = case_rng(SEED, case)
        data, name, applied = damaged(rng)
        root = tmp_path / f"case{case}"
        folder = root / "--home-u-fuzz--"
        folder.mkdir(parents=True)
        path = folder / name
        path.write_bytes(data)
        try:
            problems = run_case(case, path, root, rng)
        except Exception as e:  # one broken case (or a bug here) must not hide the others
            problems = [ascii(f"the case itself raised {type(e).__name__}: {e}")]
        if problems:
            failures.append(
                f"case {case} ({', '.join(applied)}; kept at {str(path)!a}):\n  " + "\n  ".join(problems)
            )
        else:
            for leftover in folder.iterdir():
                leftover.unlink()
    assert not failures, f"seed {SEED}: {len(failures)} of {len(cases)} cases failed\n" + "\n".join(
        failures[:30]
    )
