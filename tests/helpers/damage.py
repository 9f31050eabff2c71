"""Damaged copies of the corpus sessions, drawn from a seeded random source (`damaged`), for the
fuzz tests of the command line and the browser (tests/hostile/): truncation, byte flips, NUL,
invalid UTF-8, a BOM, CRLF, raw control bytes, wrong field types, cycles, duplicate ids, control
characters in every string field, a hostile file name. PI_SESSIONS_FUZZ_SEED picks another seed.
"""

from __future__ import annotations

import copy
import json
import os
import random
from collections.abc import Callable
from typing import Any

from tests.helpers.corpus import FIXTURES

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


def case_rng(seed: int, case: int) -> random.Random:
    """The generator of one fuzz case: the same case whichever chunk or worker runs it."""
    return random.Random(f"{seed}:{case}")
