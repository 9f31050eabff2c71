"""Which session files are being written right now: grown by someone else in the last moments.

pi appends to a session while it runs, so a file that grew a few seconds ago is probably open in
a pi (resuming it then would make two writers interleave their entries). Growth we caused
ourselves (a label, a name) does not count. Times are passed in, so callers and tests choose
the clock.
"""

from __future__ import annotations

LIVE_SECONDS = 20.0


class Activity:
    """When each session file last grew (by another writer), and what counts as live."""

    __slots__ = ("_grew",)

    def __init__(self) -> None:
        self._grew: dict[str, float] = {}  # path -> when it last grew

    def grew(self, path: str, now: float) -> None:
        self._grew[path] = now

    def moved(self, old: str, new: str) -> None:
        when = self._grew.pop(old, None)
        if when is not None:
            self._grew[new] = when

    def forget(self, path: str) -> None:
        self._grew.pop(path, None)

    def last_growth(self, path: str) -> float | None:
        return self._grew.get(path)

    def is_live(self, path: str, now: float) -> bool:
        """Grown in the last LIVE_SECONDS: a pi is probably writing it right now."""
        when = self._grew.get(path)
        return when is not None and now - when < LIVE_SECONDS
