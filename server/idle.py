"""The idle timeout of one connection, without a timer per frame.

``asyncio.timeout`` around every receive schedules and cancels a timer handle per frame, a
visible part of a busy server's CPU. Here a frame only notes the time; the one timer of the
connection fires when the connection may have gone idle, and either finds a frame since (it
sets itself again for the rest of the window) or interrupts the reader's wait.
"""

from __future__ import annotations

import asyncio


class IdleWatch:
    """Cancels the current task while it waits for a frame (between ``waiting()`` and
    ``got_frame()``) once no frame came for ``seconds``; ``expired`` then tells that the
    cancellation was this watch's. A request being handled is never interrupted: the watch
    looks again a window later."""

    __slots__ = ("_handle", "_last", "_loop", "_seconds", "_task", "_waiting", "expired")

    def __init__(self, seconds: float) -> None:
        self._loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None, "an IdleWatch belongs to a task"
        self._task = task
        self._seconds = seconds
        self._last = self._loop.time()
        self._waiting = False
        self.expired = False
        self._handle = self._loop.call_at(self._last + seconds, self._check)

    def waiting(self) -> None:
        """The task is about to wait for the next frame."""
        self._waiting = True

    def got_frame(self) -> None:
        self._waiting = False
        self._last = self._loop.time()

    def stop(self) -> None:
        self._handle.cancel()

    def _check(self) -> None:
        now = self._loop.time()
        due = self._last + self._seconds
        if now < due:
            self._handle = self._loop.call_at(due, self._check)
            return
        if not self._waiting:
            self._handle = self._loop.call_at(now + self._seconds, self._check)
            return
        self.expired = True
        self._task.cancel()
