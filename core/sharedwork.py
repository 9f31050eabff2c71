"""Work shared by this process and one helper process, a piece at a time, until none is left.

Both take the next piece from a shared counter, so neither waits for the other when the
pieces' costs were guessed wrong (a 90 MB file of tool outputs costs less than its size
says, a thousand small files more). The helper sends what it made in one message at the
end; if it fails, the pieces it took are done here again.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from multiprocessing.sharedctypes import Synchronized
from typing import Any, TypeVar

P = TypeVar("P")
R = TypeVar("R")


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
    try:
        context: Any = multiprocessing.get_context(method)  # (typeshed's BaseContext lacks Process)
        taken = context.Value("i", 0)
        receiver, sender = context.Pipe(duplex=False)
        helper = context.Process(target=_help, args=(pieces, work, encode, taken, sender), daemon=True)
        helper.start()
    except (OSError, ValueError):
        return [r for piece in pieces for r in work(piece)]
    sender.close()  # (the helper holds its own end: its end closing is the end of its results)
    results: list[R] = []
    done: set[int] = set()
    while (index := _take(taken)) < len(pieces):
        done.add(index)
        results.extend(work(pieces[index]))
    try:
        message = receiver.recv_bytes()
        helped, made = _split_message(message)
        results.extend(decode(made))
        done.update(helped)
    except (EOFError, OSError, ValueError):
        pass  # the helper failed: what it took is done below
    finally:
        receiver.close()
        helper.join()
    for index in range(len(pieces)):
        if index not in done:
            results.extend(work(pieces[index]))
    return results


def _take(taken: Synchronized[int]) -> int:
    with taken.get_lock():
        index = taken.value
        taken.value = index + 1
    return index


def _help(
    pieces: Sequence[P],
    work: Callable[[P], list[R]],
    encode: Callable[[list[R]], bytes],
    taken: Synchronized[int],
    sender: Connection,
) -> None:
    helped: list[int] = []
    results: list[R] = []
    while (index := _take(taken)) < len(pieces):
        helped.append(index)
        results.extend(work(pieces[index]))
    head = ",".join(map(str, helped)).encode()
    sender.send_bytes(len(head).to_bytes(4, "big") + head + encode(results))
    sender.close()


def _split_message(message: bytes) -> tuple[list[int], bytes]:
    size = int.from_bytes(message[:4], "big")
    head = message[4 : 4 + size].decode()
    return ([int(i) for i in head.split(",")] if head else []), message[4 + size :]
