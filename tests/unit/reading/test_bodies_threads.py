"""Bodies read back from several threads at once (search, the files view and compare read them
in workers while the event loop reads them too): every body is the file's, the cache stays whole."""

from __future__ import annotations

import json
import random
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from pi_sessions.core.reading.lines import BytesSource
from pi_sessions.core.session.session import Session

from tests.helpers.sessions import chain, header, write

THREADS = 6
READS = 20000


@pytest.fixture
def busy_switching() -> Iterator[None]:
    """Threads switch every microsecond: a check-then-act race shows within a few reads."""
    saved = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(saved)


@pytest.mark.parametrize("source", ["file", "bytes"])
def test_bodies_read_from_many_threads_are_the_files_and_the_cache_stays_whole(
    tmp_path: Path, busy_switching: None, source: str
) -> None:
    entries = chain(400)
    for i, e in enumerate(entries):  # bodies of many sizes, so the byte bound evicts too
        e["message"]["content"] = f"{i} " + "x" * (i * 37 % 900)
    path = write(tmp_path / "s.jsonl", header(), *entries)
    lines = path.read_bytes().splitlines()[1:]
    want = {json.loads(line)["id"]: json.loads(line) for line in lines}
    # A cache of 4 bodies: threads keep evicting what others just put or are moving to the end.
    # Read from the file, as the app does; and from its bytes in memory, where a read is quick
    # enough that the threads meet in the cache all the time (the unguarded cache broke there).
    if source == "file":
        session = Session.open(path, cache_entries=4)
    else:
        session = Session(BytesSource(path.read_bytes()), str(path), cache_entries=4)
        session._load()
    records = list(session.records)
    failures: list[str] = []
    start = threading.Barrier(THREADS)

    def hammer(seed: int) -> None:
        rng = random.Random(seed)
        start.wait()
        try:
            for n in range(READS):
                if n % 50 == 0:  # now and then a walk, the way the panes read a path
                    run = rng.sample(records, 20)
                    for record, body in zip(run, session.entry_dicts(run), strict=True):
                        if body != want[record.id]:
                            failures.append(f"walk: {record.id}")
                record = rng.choice(records[:6]) if n % 8 else rng.choice(records)  # mostly hot
                if session.entry_dict(record) != want[record.id]:
                    failures.append(record.id)
        except Exception as e:  # a broken cache raises in the thread: report it here
            failures.append(repr(e))

    threads = [threading.Thread(target=hammer, args=(seed,)) for seed in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures[:5]
    cache = session._bodies
    held = list(cache._items.values())
    assert len(held) <= cache.limit
    assert cache._bytes == sum(size for _, size in held)  # the byte count was never torn
    for index, (body, _) in cache._items.items():
        assert body == want[records[index].id]
