"""Two connections of one server process start following the same room at the same moment
(after a crash, both players and the AI worker of a room reconnect and resume on the same
process): every one of them must get the room's next update.

This is the race behind matches that stalled in the chaos test: ``Hub.follow`` waits for Redis
to confirm the room's subscription before it counts its connection as a follower, and
``Hub.unfollow`` (which ``resume`` and ``join_room`` call first) sees the room without
followers, drops it and unsubscribes; the first connection is then added to a room that this
process no longer hears about.
"""

from __future__ import annotations

import asyncio
import time

from protocol import codec
from protocol import messages as m
from server.blobs import RoomBlobs, encode_change
from server.connection import Connection
from server.hub import Hub
from server.ratelimit import TokenBucket
from server.room import Seat, create_room
from server.store import Store
from tests.support.seeds import seed_of


def _connection(name: str, received: list[m.ServerMessage]) -> Connection:
    async def send(frame: bytes) -> None:
        received.append(codec.decode(frame, direction="server"))  # type: ignore[arg-type]

    async def close(code: int) -> None:
        return None

    conn = Connection(send, close, TokenBucket(1000, 1000, time.monotonic()), name)
    return conn


async def test_followers_that_arrive_together_all_get_the_next_update(redis_url: str) -> None:
    store = await Store.connect(redis_url)
    feed = store.feed()
    await feed.start()
    hub = Hub(store, feed)
    hub.start()
    seen: dict[str, list[m.ServerMessage]] = {"player": [], "worker": []}
    player = _connection("player", seen["player"])
    worker = _connection("worker", seen["worker"])
    try:
        room, events = create_room(
            room_id="race",
            mode="private",
            creator=Seat(player="p1", name="Ada"),
            seed=seed_of(7),
            now=time.time(),
            invite="RACE",
        )
        blob = RoomBlobs().encode_room(room)
        assert await store.create_room("race", blob, encode_change(0, events, None))
        # The player's resume: first follower of the room on this process (the subscription
        # goes out to Redis) ...
        following = asyncio.create_task(hub.follow(player, "race", 0, 0))
        await asyncio.sleep(0)
        # ... while the worker's join_room does what it always does: unfollow, then follow.
        await hub.unfollow(worker, "race")
        subscriptions = [await following, await hub.follow(worker, "race", 1, 0)]
        for conn, subscription in zip((player, worker), subscriptions, strict=True):
            await hub.catch_up(conn, subscription)  # as after each request's ack
        print(f"\nfeed rooms after both followed: {sorted(feed.rooms)}")

        result = await store.commit("race", 0, blob, encode_change(1, [{"type": "test"}], None))
        assert result.ok
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 5
        while loop.time() < deadline and not all(seen.values()):
            await asyncio.sleep(0.02)
        got = {name: [getattr(f, "seq", None) for f in frames] for name, frames in seen.items()}
        print(f"update 1 reached: {got}")
        assert got == {"player": [1], "worker": [1]}, (
            f"followers of the room got {got}; the process follows {sorted(feed.rooms)}"
        )
    finally:
        await hub.stop()
        await feed.close()
        await store.close()
        for conn in (player, worker):
            await conn.drain_and_stop()
