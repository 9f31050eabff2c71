"""The main screen's frame timer: at most 60 frames a second, each one as soon as that allows.

Textual paces a screen's frames with a timer on a fixed grid that, after a pause (nothing to
draw), skips to the grid point after the next one. So a change that follows a frame by a few
milliseconds, a search's answer after the echo of the letter typed, waited 17-33 ms for its
frame (measured: most of a keystroke's 37 ms at 2,000 sessions). This timer ticks once it is
resumed (something to draw) and a period has passed since its last tick: never more frames
than before, none later than needed. (Textual is pinned: `Screen._update_timer` is the timer
its frames wait for, and `_active`, `_reset` and `_tick` are how a Timer is paused, reset and
fired.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from textual import _time, events
from textual.screen import UPDATE_PERIOD, Screen
from textual.timer import EventTargetGone, Timer

ResultType = TypeVar("ResultType")


class PacedTimer(Timer):
    """A repeating timer whose ticks are at least one interval apart, not on a grid."""

    async def _run(self) -> None:
        count = 0
        last = float("-inf")
        while True:
            await self._active.wait()
            wait = last + self._interval - _time.get_time()
            if wait > 0:
                await _time.sleep(wait)
                await self._active.wait()  # (paused again meanwhile)
            self._reset = False
            last = _time.get_time()
            count += 1
            try:
                await self._tick(next_timer=last, count=count)
            except EventTargetGone:
                break


class PacedScreen(Screen[ResultType]):
    """A screen whose frames a PacedTimer paces, which draws no frame while the app batches
    updates or while it is asked to wait, and whose first resume does not style again what
    its mount just styled."""

    _paced_timer: PacedTimer | None = None
    _frame_held = False
    _on_hold = False

    def hold_frames(self, limit: float) -> None:
        """No frame until `release_frames`, or for `limit` seconds at most (the first screen
        waits for its first session: drawn without it, the listing alone was a frame, or
        several, that the one with the session had to wait for)."""
        if not self._on_hold:
            self._on_hold = True
            self.set_timer(limit, self.release_frames)

    def release_frames(self) -> None:
        if self._on_hold:
            self._on_hold = False
            self.refresh()

    _after_frame: list[Callable[[], object]] | None = None

    def call_after_frame(self, callback: Callable[[], object]) -> None:
        """`callback` soon after this screen hands its next frame out (Textual's
        `call_after_refresh` may come before: a refresh during a batch draws nothing)."""
        if self._after_frame is None:
            self._after_frame = []
        self._after_frame.append(callback)

    def _compositor_refresh(self) -> None:
        # Textual draws a laid-out screen even while the app batches its updates (as it does
        # through its start-up), and then throws the frame away unseen in `App._display`: at
        # start-up that was a whole screen drawn for nothing (~25 ms of the first frame).
        # Held instead: what is dirty stays dirty (the first frame out is then a full one),
        # and the app asks for it once the batch is over (the app's own messages wait for
        # its start-up to end). (Textual is pinned: `_compositor_refresh` is where a screen
        # draws, `App._batch_count` its batch.)
        app = self.app
        if (app._batch_count or self._on_hold) and self is app.screen and not app.is_inline:
            if app._batch_count and not self._frame_held:
                self._frame_held = True
                app.call_later(self._release_frame)
            return  # (on hold: `release_frames` asks for the frame)
        super()._compositor_refresh()
        callbacks, self._after_frame = self._after_frame, None
        for callback in callbacks or ():
            self.call_later(callback)

    _styled = False

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        # (runs before Screen's handler) Resumed the first time, the screen was just mounted
        # with the styles a refresh would apply to every widget again (~12 ms of the start).
        if not self._styled and self.is_attached:
            self._styled = True
            event.refresh_styles = False

    def _release_frame(self) -> None:
        self._frame_held = False
        self.refresh()

    @property
    def _update_timer(self) -> Timer:
        timer = self._paced_timer
        if timer is None:
            timer = self._paced_timer = PacedTimer(
                self, UPDATE_PERIOD, name="screen_update", callback=self._on_timer_update, pause=True
            )
            timer._start()
            self._timers.add(timer)
        return timer
