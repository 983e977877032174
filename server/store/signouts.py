"""Sign-outs between server processes: "sign out everywhere" publishes the player id on
``accounts:signed-out`` (``server.keys.signouts_channel``), and every process cuts off its own
connections of that player as the message arrives.

The tokens themselves are revoked in Redis before the message goes out (``AccountOps``), and
every hello and every account request reads them there: a message lost while a process was
away from Redis leaves at most an open connection, never a token that works again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from redis.exceptions import RedisError

from server import keys
from server.store._base import Client, as_text

log = logging.getLogger(__name__)

#: Seconds between attempts to subscribe again after Redis went away.
RETRY_SECONDS = 1.0


class SignOuts:
    """One process's subscription to sign-outs; ``on_sign_out(player_id)`` runs for each."""

    def __init__(self, redis: Client, on_sign_out: Callable[[str], None]) -> None:
        self._redis = redis
        self._on_sign_out = on_sign_out
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()

    async def start(self, timeout: float = 5.0) -> None:
        self._task = asyncio.create_task(self._run(), name="sign-outs")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._ready.wait(), timeout)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def publish(self, player_id: str) -> None:
        await self._redis.publish(keys.signouts_channel(), keys.check_id(player_id))

    async def _run(self) -> None:
        channel = keys.signouts_channel()
        while True:
            pubsub = self._redis.pubsub()
            try:
                await pubsub.subscribe(channel)
                self._ready.set()
                while True:
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=30)
                    if message is not None and message.get("type") == "message":
                        self._deliver(as_text(message["data"]))
            except (RedisError, OSError) as error:
                log.warning(
                    "sign-out subscription lost; subscribing again", extra={"error": str(error)}
                )
                await asyncio.sleep(RETRY_SECONDS)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]

    def _deliver(self, player_id: str) -> None:
        try:
            keys.check_id(player_id, "player id")
        except keys.InvalidId:
            return
        self._on_sign_out(player_id)
