"""Seeded fuzzing of the command line over damaged copies of the corpus sessions.

Each case copies a corpus file and damages it a few ways (truncation, byte flips, NUL, invalid
UTF-8, a BOM, CRLF, raw control bytes, wrong field types, cycles, duplicate ids, control
characters in every string field, a hostile file name), then runs every subcommand on it in
this process. Whatever the damage: no exception escapes, the exit code is 0 or 2 (`check`: or 3), nothing
readable carries a raw control character, JSON lines still parse, and no file is modified.

PI_SESSIONS_FUZZ_CASES=20000 runs more cases (default 300; .ci/run runs more), PI_SESSIONS_FUZZ_SEED
picks another seed. Every case runs whatever went wrong before it; the failures are reported
together at the end, each naming its case and keeping its damaged file under pytest's tmp_path
to replay.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.cli import CliResult, cli, raw_controls
from tests.helpers.corpus import FIXTURES

CASES = int(os.environ.get("PI_SESSIONS_FUZZ_CASES") or os.environ.get("PI_SESSIONS_FUZZ") or "300")
SEED = int(os.environ.get("PI_SESSIONS_FUZZ_SEED", "15"))
CORPUS = sorted((FIXTURES / "sessions").rglob("*.jsonl"))

CONTROLS = [
    "\x1b[2J",
    "\x1b]0;PWNED\x07",
    "\x9b31m",
    "\x9d8;;x\x9c",
    "\x07",
    "\x08",
    "\x7f",
    "\r",
    "\x00",
    "\u202e",
    "\u2066",
    "\u200b",
    "\ufeff",
    "\ud800",
    "\udfff",
    "\n",
    "[bold]",
    "[/]",
    "[link=x]",
]
WRONG_VALUES: list[Any] = [
    None,
    0,
    -1,
    1.5,
    1e308,
    True,
    False,
    "",
    "x",
    [],
    {},
    [1, "a"],
    {"a": {"b": None}},
    "\x1b[2J",
    [[[[[]]]]],
    {"type": "text", "text": 3},
]
BAD_BYTES = [b"\xff", b"\xc3", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\x80"]
RAW_CONTROL_BYTES = [b"\x1b[2J", b"\x1b]0;x\x07", b"\xc2\x9b", b"\x07", b"\x00", b"\x7f", b"\r", b"\x0b"]


# ---------------------------------------------------------------------- byte-level damage
def truncate(rng: random.Random, data: bytes) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def flip_bytes(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 12)):
        if out:
            out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


def _insert(rng: random.Random, data: bytes, pieces: list[bytes], count: int) -> bytes:
    out = data
    for _ in range(count):
        at = rng.randrange(len(out) + 1)
        out = out[:at] + rng.choice(pieces) + out[at:]
    return out


def nul_bytes(rng: random.Random, data: bytes) -> bytes:
    return _insert(rng, data, [b"\x00", b"\x00" * 5], rng.randint(1, 4))


def invalid_utf8(rng: random.Random, data: bytes) -> bytes:
    return _insert(rng, data, BAD_BYTES, rng.randint(1, 6))


def raw_control_bytes(rng: random.Random, data: bytes) -> bytes:
    return _insert(rng, data, RAW_CONTROL_BYTES, rng.randint(1, 6))


def bom(rng: random.Random, data: bytes) -> bytes:
    if rng.random() < 0.5:
        return b"\xef\xbb\xbf" + data
    lines = data.split(b"\n")
    i = rng.randrange(len(lines))
    lines[i] = b"\xef\xbb\xbf" + lines[i]
    return b"\n".join(lines)


def line_ends(rng: random.Random, data: bytes) -> bytes:
    return rng.choice(
        [data.replace(b"\n", b"\r\n"), data.replace(b"\n", b"\r"), data.rstrip(b"\n"), data + b"\n\n\n"]
    )


# ---------------------------------------------------------------------- JSON-level damage
def _objects(data: bytes) -> list[Any]:
    out: list[Any] = []
    for line in data.split(b"\n"):
        try:
            out.append(json.loads(line))
        except ValueError:
            out.append(line)  # kept as the bytes it is
    return out


def _dump(objects: list[Any]) -> bytes:
    return b"\n".join(o if isinstance(o, bytes) else json.dumps(o).encode() for o in objects) + b"\n"


def _dicts(objects: list[Any]) -> list[dict[str, Any]]:
    return [o for o in objects if isinstance(o, dict)]


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path inside a JSON value."""
    found: list[tuple[Any, ...]] = []
    if isinstance(value, dict):
        for key, inner in value.items():
            found.append((*prefix, key))
            found.extend(_paths(inner, (*prefix, key)))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found.append((*prefix, index))
            found.extend(_paths(inner, (*prefix, index)))
    return found


def _set(value: Any, path: tuple[Any, ...], new: Any) -> None:
    for key in path[:-1]:
        value = value[key]
    value[path[-1]] = new


def wrong_types(rng: random.Random, data: bytes) -> bytes:
    objects = _objects(data)
    for _ in range(rng.randint(1, 6)):
        dicts = _dicts(objects)
        if not dicts:
            break
        target = rng.choice(dicts)
        paths = _paths(target)
        if paths:
            # a copy: a shared value set twice would nest into itself (json.dumps: circular reference)
            _set(target, rng.choice(paths), copy.deepcopy(rng.choice(WRONG_VALUES)))
    return _dump(objects)


def cycles(rng: random.Random, data: bytes) -> bytes:
    objects = _objects(data)
    entries = [o for o in _dicts(objects) if o.get("type") != "session" and isinstance(o.get("id"), str)]
    if len(entries) >= 2:
        for _ in range(rng.randint(1, 3)):
            a, b = sorted(rng.sample(range(len(entries)), 2))
            # a parent pointing at its descendant (or at itself): a cycle pi's own tree would loop on
            entries[a]["parentId"] = entries[b]["id"] if rng.random() < 0.7 else entries[a]["id"]
    return _dump(objects)


def duplicate_ids(rng: random.Random, data: bytes) -> bytes:
    objects = _objects(data)
    entries = [o for o in _dicts(objects) if isinstance(o.get("id"), str)]
    if len(entries) >= 2:
        for _ in range(rng.randint(1, 3)):
            rng.choice(entries)["id"] = rng.choice(entries)["id"]
    return _dump(objects)


def reorder(rng: random.Random, data: bytes) -> bytes:
    objects = _objects(data)
    choice = rng.randrange(4)
    if choice == 0 and objects:
        objects.pop(0)  # no header
    elif choice == 1:
        rng.shuffle(objects)
    elif choice == 2 and objects:
        objects.insert(rng.randrange(len(objects) + 1), copy.deepcopy(rng.choice(objects)))
    else:
        objects.insert(rng.randrange(len(objects) + 1), {"type": "session", "id": "second-header", "cwd": 3})
    return _dump(objects)


def _poison(rng: random.Random, value: Any, rate: float) -> Any:
    if isinstance(value, str):
        if rng.random() < rate:
            at = rng.randrange(len(value) + 1)
            return value[:at] + "".join(rng.choices(CONTROLS, k=rng.randint(1, 4))) + value[at:]
        return value
    if isinstance(value, list):
        return [_poison(rng, v, rate) for v in value]
    if isinstance(value, dict):
        return {_poison(rng, k, rate / 4): _poison(rng, v, rate) for k, v in value.items()}
    return value


def control_fields(rng: random.Random, data: bytes) -> bytes:
    """Control characters (JSON-escaped, as a real file would hold them) in string fields:
    ids, types, roles, names, cwds, models... and a few keys."""
    rate = rng.choice([0.1, 0.5, 1.0])
    return _dump([_poison(rng, o, rate) if isinstance(o, dict | list) else o for o in _objects(data)])


MUTATIONS: list[Callable[[random.Random, bytes], bytes]] = [
    truncate,
    flip_bytes,
    nul_bytes,
    invalid_utf8,
    raw_control_bytes,
    bom,
    line_ends,
    wrong_types,
    cycles,
    duplicate_ids,
    reorder,
    control_fields,
    control_fields,  # the point of the exercise: twice as likely
]
FILE_NAMES = [
    "s.jsonl",
    "\x1b]0;PWNED\x07\x9b\u202e.jsonl",
    "a\nb\r.jsonl",
    "[bold]x[link=y].jsonl",
    "\udcff\udcfe.jsonl",
]


def damaged(rng: random.Random) -> tuple[bytes, str, list[str]]:
    source = rng.choice(CORPUS)
    data = source.read_bytes()
    applied = [f"{source.parent.name}/{source.name}"]
    for _ in range(rng.randint(1, 3)):
        mutation = rng.choice(MUTATIONS)
        data = mutation(rng, data)
        applied.append(mutation.__name__)
    return data, rng.choice(FILE_NAMES), applied


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


def test_damaged_sessions_never_break_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_SESSIONS_DEBUG", "1")  # an internal error raises: a traceback here, not exit 1
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    rng = random.Random(SEED)
    failures: list[str] = []
    for case in range(CASES):
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
    assert not failures, f"seed {SEED}: {len(failures)} of {CASES} cases failed\n" + "\n".join(failures[:30])
