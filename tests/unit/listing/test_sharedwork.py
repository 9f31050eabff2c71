"""Work shared with a helper process: every piece done once, whoever takes it, and all of it
done here when the helper fails."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import msgspec
import pytest
from pi_sessions.core.listing import store as store_module
from pi_sessions.core.listing.sharedwork import share_work
from pi_sessions.core.listing.store import SessionStore

from tests.helpers.sessions import assistant, header, user, write

PARENT = os.getpid()


def square_all(piece: list[int]) -> list[tuple[int, ...]]:
    return [(n, n * n, os.getpid()) for n in piece]


def fail_in_helper(piece: list[int]) -> list[tuple[int, ...]]:
    if os.getpid() != PARENT:
        os._exit(3)  # the helper dies without a word
    return square_all(piece)


def encode(results: list[tuple[int, ...]]) -> bytes:
    return msgspec.msgpack.encode(results)


def decode(data: bytes) -> list[tuple[int, ...]]:
    return [tuple(r) for r in msgspec.msgpack.decode(data)]


def one_piece_each(piece: tuple[int, str]) -> list[tuple[int, ...]]:
    """Each process stays in its first piece until the other has one too (each leaves a file
    saying it has one): neither can take both."""
    number, folder = piece
    here = "helper" if os.getpid() != PARENT else "parent"
    Path(folder, here).touch()
    other = Path(folder, "parent" if here == "helper" else "helper")
    given_up = time.monotonic() + 30
    while not other.exists() and time.monotonic() < given_up:
        threading.Event().wait(0.01)
    return [(number, os.getpid())]


def test_a_piece_the_helper_did_is_not_done_again(tmp_path: Path) -> None:
    """Also when the helper did only a piece or two (its message's head then only a few bytes
    long)."""
    pieces = [(0, str(tmp_path)), (1, str(tmp_path))]
    results = share_work(pieces, one_piece_each, encode, decode, "fork")
    assert sorted(n for n, _ in results) == [0, 1]
    assert len({pid for _, pid in results}) == 2  # one each


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
    # A first message msgpack cannot hold (a lone surrogate): whoever read it, it is read again
    # here, the helper cannot send it.
    for i in range(24, 28):
        write(tmp_path / "--p0--" / f"s{i}.jsonl", header(id=f"s{i}"), user("a", None, f"odd \ud800 {i}"))
    monkeypatch.setattr(store_module, "PARALLEL_MIN_BYTES", 0)
    alone = SessionStore(tmp_path, use_cache=False)
    alone.scan(workers=1)
    shared = SessionStore(tmp_path, use_cache=False)
    shared.scan(workers=2)
    assert shared.listing() == alone.listing()
    assert {p: e.builder for p, e in shared.entries.items()} == {
        p: e.builder for p, e in alone.entries.items()
    }


HELPER_STILL_BUSY = """
import os, threading, time
from pi_sessions.core.listing.sharedwork import share_work

PARENT = os.getpid()


def work(piece):
    if os.getpid() == PARENT:
        raise KeyboardInterrupt  # ctrl+c while this process reads its piece
    # The helper is still on its own piece when the program ends (and gives up once that
    # program is gone, or after half a minute: a failing run leaves nothing behind).
    given_up = time.monotonic() + 30
    while os.getppid() == PARENT and time.monotonic() < given_up:
        threading.Event().wait(0.05)
    return []


def nothing(results):
    return b""


if __name__ == "__main__":
    share_work([0, 1, 2], work, nothing, lambda data: [], "fork")
"""


def test_an_interrupt_ends_the_program_without_waiting_for_the_helper(tmp_path: Path) -> None:
    script = tmp_path / "interrupted.py"
    script.write_text(HELPER_STILL_BUSY)
    process = subprocess.Popen(
        [sys.executable, str(script)], stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        _, err = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # the helper too
        process.communicate()
        pytest.fail("the program waited for its helper after ctrl+c")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode != 0 and "KeyboardInterrupt" in err
