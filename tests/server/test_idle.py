"""The idle watch: interrupts a wait for a frame after the window, never a request."""

from __future__ import annotations

import asyncio

import pytest

from server.idle import IdleWatch


async def test_a_silent_wait_is_interrupted_after_the_window() -> None:
    async def wait_forever() -> IdleWatch:
        watch = IdleWatch(0.1)
        watch.waiting()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            assert watch.expired
            return watch
        finally:
            watch.stop()
        raise AssertionError("the wait ended on its own")

    loop = asyncio.get_running_loop()
    started = loop.time()
    watch = await asyncio.wait_for(wait_forever(), 5)
    assert watch.expired
    assert loop.time() - started >= 0.1


async def test_frames_keep_the_connection_alive() -> None:
    async def chatty() -> bool:
        watch = IdleWatch(0.2)
        try:
            for _ in range(12):  # 0.6 s in all, three windows
                watch.waiting()
                await asyncio.sleep(0.05)
                watch.got_frame()
        finally:
            watch.stop()
        return watch.expired

    assert await chatty() is False


async def test_a_request_longer_than_the_window_is_not_interrupted() -> None:
    async def slow_request() -> IdleWatch:
        watch = IdleWatch(0.1)
        watch.waiting()
        watch.got_frame()
        await asyncio.sleep(0.35)  # handling the frame: not waiting
        watch.waiting()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            return watch
        finally:
            watch.stop()
        raise AssertionError("the wait ended on its own")

    watch = await asyncio.wait_for(slow_request(), 5)
    assert watch.expired


async def test_another_cancellation_is_not_mistaken_for_idleness() -> None:
    async def waiter(ready: asyncio.Event) -> IdleWatch:
        watch = IdleWatch(60)
        watch.waiting()
        ready.set()
        try:
            await asyncio.Event().wait()
        finally:
            watch.stop()
        return watch

    ready = asyncio.Event()
    task = asyncio.create_task(waiter(ready))
    await ready.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
