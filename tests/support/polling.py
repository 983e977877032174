"""Waiting for a condition that another process makes true: the one place tests poll.

- ``await eventually(probe, ok, timeout=...)``: ``probe()`` (async) again until ``ok`` holds of
  its answer; the last answer is returned either way, so the assertion that follows shows
  what was seen.
- ``wait_until(predicate, timeout, what)``: the same for a synchronous ``predicate``; raises
  ``AssertionError`` naming ``what`` when the time runs out, else returns the seconds it took.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

__all__ = ["eventually", "wait_until"]

T = TypeVar("T")


async def eventually(
    probe: Callable[[], Awaitable[T]],
    ok: Callable[[T], bool],
    *,
    timeout: float,
    interval: float = 0.2,
) -> T:
    deadline = time.monotonic() + timeout
    while True:
        answer = await probe()
        if ok(answer) or time.monotonic() > deadline:
            return answer
        await asyncio.sleep(interval)


def wait_until(
    predicate: Callable[[], bool], timeout: float, what: str, *, interval: float = 0.05
) -> float:
    started = time.monotonic()
    while not predicate():
        if time.monotonic() - started > timeout:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)
    return time.monotonic() - started
