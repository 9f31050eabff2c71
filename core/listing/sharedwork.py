"""Work shared by this process and one helper process, a piece at a time, until none is left.

Both take the next piece from one queue, so neither waits for the other when the pieces'
costs were guessed wrong (a 90 MB file of tool outputs costs less than its size says, a
thousand small files more). The helper sends what it made in one message at the end; if it
fails, the pieces it took are done here again.

A forked helper (the usual: a command line has one thread) costs no import of
multiprocessing (15 ms of a 0.4 s cold listing): the queue is a pipe holding every piece's
number, which both read two bytes at a time (a pipe's reads of what one write put there
are atomic), and its message comes back through another pipe. A helper started afresh
("spawn": threads are running) goes through multiprocessing, with a shared counter.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.sharedctypes import Synchronized

P = TypeVar("P")
R = TypeVar("R")

_NUMBER = 2  # bytes per piece number in the queue: up to 65,535 pieces (a pipe holds 64 KiB)


def share_work(
    pieces: Sequence[P],
    work: Callable[[P], list[R]],
    encode: Callable[[list[R]], bytes],
    decode: Callable[[bytes], list[R]],
    method: str,
) -> list[R]:
    """`work` of every piece (results in no particular order), pieces taken in order by this
    process and a helper started with `method` ("fork" or "spawn"). `work`, `encode` and
    `decode` are module-level functions (a spawned helper imports them)."""
    if method == "fork" and len(pieces) * _NUMBER <= 65536:
        return _forked(pieces, work, encode, decode)
    import multiprocessing  # (a helper started afresh: through multiprocessing, a shared counter)

    try:
        context: Any = multiprocessing.get_context(method)  # (typeshed's BaseContext lacks Process)
        counter = context.Value("i", 0)
        receiver, sender = context.Pipe(duplex=False)
        helper = context.Process(target=_help, args=(pieces, work, encode, counter, sender), daemon=True)
        helper.start()
    except (OSError, ValueError):
        return [r for piece in pieces for r in work(piece)]
    sender.close()  # (the helper holds its own end: its end closing is the end of its results)
    taken, results = _work_through(pieces, work, lambda: _count(counter))
    done = set(taken)
    try:
        helped, made = _split_message(receiver.recv_bytes())
        results.extend(decode(made))
        done.update(helped)
    except (EOFError, OSError, ValueError):
        pass  # the helper failed: what it took is done below
    finally:
        receiver.close()
        helper.join()
    return _the_rest(pieces, work, results, done)


def _work_through(
    pieces: Sequence[P], work: Callable[[P], list[R]], take: Callable[[], int]
) -> tuple[list[int], list[R]]:
    """The pieces this process takes, until none is left: their numbers and their results."""
    taken: list[int] = []
    results: list[R] = []
    while (index := take()) < len(pieces):
        taken.append(index)
        results.extend(work(pieces[index]))
    return taken, results


def _the_rest(pieces: Sequence[P], work: Callable[[P], list[R]], results: list[R], done: set[int]) -> list[R]:
    """`results` with the work of every piece not `done` (those a failed helper took)."""
    for index in range(len(pieces)):
        if index not in done:
            results.extend(work(pieces[index]))
    return results


def _message(taken: list[int], made: bytes) -> bytes:
    head = ",".join(map(str, taken)).encode()
    return len(head).to_bytes(4, "big") + head + made


def _split_message(message: bytes) -> tuple[list[int], bytes]:
    size = int.from_bytes(message[:4], "big")
    head = message[4 : 4 + size].decode()
    return ([int(i) for i in head.split(",")] if head else []), message[4 + size :]


# ---------------------------------------------------------------------- fork: two pipes
def _forked(
    pieces: Sequence[P],
    work: Callable[[P], list[R]],
    encode: Callable[[list[R]], bytes],
    decode: Callable[[bytes], list[R]],
) -> list[R]:
    try:
        queue, queue_end = os.pipe()
        with os.fdopen(queue_end, "wb") as filling:  # (closed before the fork: read to its end)
            filling.write(b"".join(i.to_bytes(_NUMBER, "big") for i in range(len(pieces))))
        inbox, outbox = os.pipe()
        pid = os.fork()
    except OSError:
        return [r for piece in pieces for r in work(piece)]
    if pid == 0:  # the helper: its pieces, its message, and out (nothing of the parent's runs)
        status = 1
        try:
            os.close(inbox)
            taken, made = _work_through(pieces, work, _taker(queue))
            message = _message(taken, encode(made))
            with os.fdopen(outbox, "wb") as out:
                out.write(len(message).to_bytes(8, "big") + message)
            status = 0
        finally:
            os._exit(status)
    os.close(outbox)
    try:
        taken, results = _work_through(pieces, work, _taker(queue))
    except BaseException:  # (ctrl+c: out at once, the helper ended, not waited for)
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
        os.close(inbox)
        os.close(queue)
        with contextlib.suppress(OSError):
            os.waitpid(pid, 0)
        raise
    os.close(queue)
    done = set(taken)
    try:
        with os.fdopen(inbox, "rb") as received:
            message = received.read()
        if len(message) < 8 or int.from_bytes(message[:8], "big") != len(message) - 8:
            raise ValueError("the helper's message is cut short")
        helped, theirs = _split_message(message[8:])
        results.extend(decode(theirs))
        done.update(helped)
    except (OSError, ValueError):
        pass  # the helper failed: what it took is done below
    finally:
        with contextlib.suppress(OSError):
            os.waitpid(pid, 0)
    return _the_rest(pieces, work, results, done)


def _taker(queue: int) -> Callable[[], int]:
    """Taking the next piece's number from the queue (past the end once it is empty)."""

    def take() -> int:
        number = os.read(queue, _NUMBER)
        return int.from_bytes(number, "big") if len(number) == _NUMBER else 1 << 30

    return take


# ---------------------------------------------------------------------- spawn: multiprocessing
def _count(counter: Synchronized[int]) -> int:
    with counter.get_lock():
        index = counter.value
        counter.value = index + 1
    return index


def _help(
    pieces: Sequence[P],
    work: Callable[[P], list[R]],
    encode: Callable[[list[R]], bytes],
    counter: Synchronized[int],
    sender: Connection,
) -> None:
    taken, made = _work_through(pieces, work, lambda: _count(counter))
    sender.send_bytes(_message(taken, encode(made)))
    sender.close()
