"""Collections held back while the browser answers a key, and given back as they were."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest
from pi_sessions.core.common.gcpause import CollectionHold, paused_gc


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    was_enabled = gc.isenabled()
    yield
    (gc.enable if was_enabled else gc.disable)()


def test_a_hold_stops_collections_until_it_is_released() -> None:
    gc.enable()
    hold = CollectionHold()
    hold.hold()
    assert not gc.isenabled() and hold.held
    hold.hold()  # a second key before the frame is out: still one hold
    hold.release()
    assert gc.isenabled() and not hold.held


def test_a_hold_while_collections_are_off_leaves_them_off() -> None:
    """Someone else turned the collector off (a bulk read, or the embedding program): the
    release must not turn it back on under them."""
    hold = CollectionHold()
    with paused_gc():
        hold.hold()
        hold.release()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    hold.hold()
    hold.release()
    assert not gc.isenabled()


def test_what_a_move_replaced_is_freed_only_at_the_release() -> None:
    class Replaced:
        pass

    hold = CollectionHold()
    replaced = Replaced()
    gone = weakref.ref(replaced)
    hold.keep(replaced)
    del replaced
    assert gone() is not None  # the frame is not out yet
    hold.release()
    assert gone() is None
