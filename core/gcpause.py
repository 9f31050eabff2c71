"""Pausing Python's cyclic garbage collector while a bulk read allocates."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Bulk reads allocate many small objects that are never cyclic: collecting during them
    only burns time (measured: 40% of a cold listing, 20% of opening a long session)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
