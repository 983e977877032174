"""What every worker of ``client/`` (the AI worker, the review worker) does the same way: its
first connection, tried again with a growing pause until a server answers, and its life in
the process, stopped by SIGTERM or SIGINT."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Protocol

import websockets

from client.session import Session

__all__ = ["FIRST_CONNECT_BACKOFF", "Stoppable", "first_connection", "serve_worker"]

log = logging.getLogger(__name__)

#: The pause before trying the first connection again: from the first, doubled up to the last.
FIRST_CONNECT_BACKOFF = (0.1, 2.0)


class Stoppable(Protocol):
    async def run(self) -> None: ...

    def stop(self) -> None: ...


async def first_connection(
    url: str, *, name: str, client: str, worker_key: str, stopped: asyncio.Event
) -> Session | None:
    """The worker's session, once a server answers; None when ``stopped`` before that. A
    refused hello (a wrong worker key) is raised: waiting would not mend it."""
    delay = FIRST_CONNECT_BACKOFF[0]
    while not stopped.is_set():
        try:
            return await Session.connect(
                url,
                name=name,
                client=client,
                worker_key=worker_key,
                keep_log=False,  # a match's updates would stay until its end
            )
        except (OSError, TimeoutError, websockets.exceptions.WebSocketException) as error:
            log.warning(
                "server not reachable yet: retrying",
                extra={"url": url, "error": repr(error), "delay": delay},
            )
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(delay):
                await stopped.wait()
        delay = min(delay * 2, FIRST_CONNECT_BACKOFF[1])
    return None


async def serve_worker(processes: int, make: Callable[[Executor | None], Stoppable]) -> None:
    """Run the worker ``make`` builds (with a pool of ``processes`` for its heavy work, none
    at 0) until SIGTERM or SIGINT stops it and it has finished."""
    executor = ProcessPoolExecutor(processes) if processes > 0 else None
    worker = make(executor)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, worker.stop)
    try:
        await worker.run()
    finally:
        if executor is not None:
            executor.shutdown(cancel_futures=True)
