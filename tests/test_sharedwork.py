"""Work shared with a helper process: every piece done once, whoever takes it, and all of it
done here when the helper fails."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
import pytest
from pi_sessions.core import store as store_module
from pi_sessions.core.sharedwork import share_work
from pi_sessions.core.store import SessionStore

from .helpers import assistant, header, user, write

PARENT = os.getpid()


def square_all(piece: list[int]) -> list[tuple[int, int, int]]:
    return [(n, n * n, os.getpid()) for n in piece]


def fail_in_helper(piece: list[int]) -> list[tuple[int, int, int]]:
    if os.getpid() != PARENT:
        os._exit(3)  # the helper dies without a word
    return square_all(piece)


def encode(results: list[tuple[int, int, int]]) -> bytes:
    return msgspec.msgpack.encode(results)


def decode(data: bytes) -> list[tuple[int, int, int]]:
    return [tuple(r) for r in msgspec.msgpack.decode(data)]  # type: ignore[misc]


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_every_piece_is_done_once(method: str) -> None:
    pieces = [list(range(i * 10, i * 10 + 10)) for i in range(40)]
    results = share_work(pieces, square_all, encode, decode, method)
    assert sorted((n, sq) for n, sq, _ in results) == [(n, n * n) for n in range(400)]


def test_a_failing_helper_leaves_its_pieces_to_this_process() -> None:
    pieces = [[i] for i in range(30)]
    results = share_work(pieces, fail_in_helper, encode, decode, "fork")
    assert sorted(n for n, _, _ in results) == list(range(30))
    assert {pid for _, _, pid in results} == {PARENT}


def test_a_cold_scan_in_two_processes_lists_what_one_process_lists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(24):
        write(
            tmp_path / f"--p{i % 3}--" / f"s{i}.jsonl",
            header(id=f"s{i}"),
            user("a", None, f"question {i}"),
            *[assistant(f"b{k}", "a", "x" * (100 * i), k) for k in range(i % 5)],
        )
    monkeypatch.setattr(store_module, "PARALLEL_MIN_BYTES", 0)
    alone = SessionStore(tmp_path, use_cache=False)
    alone.scan(workers=1)
    shared = SessionStore(tmp_path, use_cache=False)
    shared.scan(workers=2)
    assert shared.listing() == alone.listing()
    assert {p: e.builder for p, e in shared.entries.items()} == {
        p: e.builder for p, e in alone.entries.items()
    }
