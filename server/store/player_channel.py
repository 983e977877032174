"""Player ids told to every server process over Redis pub/sub, each channel for one purpose:
"sign out everywhere" (``accounts:signed-out``: every process cuts off its own connections of
that player) and nudges (``players:nudged:ABOUT``: every process tells the player's
connections to read ABOUT again, ``server.challenges``).

What the message says is in Redis before it goes out (the revoked tokens, the challenge), and
every request reads it there: a message lost while a process was away from Redis leaves at
most an open connection, or a client that reads on its own a second later; never a token that
works again or a challenge that is not stored.
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


class PlayerChannel:
    """One process's subscription to ``channel``; ``on_player(player_id)`` runs for each
    message, on this process, as it arrives; ``publish`` tells every process."""

    def __init__(self, redis: Client, channel: str, on_player: Callable[[str], None]) -> None:
        self._redis = redis
        self._channel = channel
        self._on_player = on_player
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()

    async def start(self, timeout: float = 5.0) -> None:
        self._task = asyncio.create_task(self._run(), name=self._channel)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._ready.wait(), timeout)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def publish(self, player_id: str) -> None:
        await self._redis.publish(self._channel, keys.check_id(player_id))

    async def _run(self) -> None:
        while True:
            pubsub = self._redis.pubsub()
            try:
                await pubsub.subscribe(self._channel)
                self._ready.set()
                while True:
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=30)
                    if message is not None and message.get("type") == "message":
                        self._deliver(as_text(message["data"]))
            except (RedisError, OSError) as error:
                log.warning(
                    "subscription lost; subscribing again",
                    extra={"channel": self._channel, "error": str(error)},
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
        self._on_player(player_id)
