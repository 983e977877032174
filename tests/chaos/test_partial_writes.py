"""A move is committed (one atomic Lua script), and only afterwards does the server write the
hand's replay record and the players' statistics. When that second write fails (the process is
killed between the two, Redis goes away for a moment: the chaos test hits this at random), the
move stands, but the client is told ``internal`` ("nothing was changed") and the finished hand
has no replay record, ever.

Here the failure is made deterministic: the server's Redis user may write every key but the
hand records (a Redis ACL) while the first hand ends; then the permission comes back and the
match goes on. Nothing may be lost: every finished hand keeps a replay record, and an action
answered ``internal`` must not have been applied.
"""

from __future__ import annotations

import asyncio
import random

import redis

from client.session import Session
from server.store import Store
from tests.chaos.conftest import CHAOS_ENV
from tests.chaos.players import SeatPlay, check_room, play_seat
from tests.support.fixtures import ServerFactory
from tests.support.redis_server import RedisServer

TARGET = 30
USER, PASSWORD = "gin", "partial-writes"
#: Every key family of server/keys.py except ``hand:ID``.
NOT_HANDS = "~{room:* ~player:* ~invite:* ~{quickmatch}:* ~rooms:active ~hands:recent ~ai:requests"


def _hand_over(session: Session, room: str) -> bool:
    view = session.room(room).view
    return view is not None and bool((view["game"] or {}).get("results"))


def _acl(admin: redis.Redis, keys: str) -> None:
    admin.execute_command(  # type: ignore[no-untyped-call]
        f"ACL SETUSER {USER} on >{PASSWORD} resetkeys {keys} &* +@all"
    )


async def test_a_hand_that_ends_while_its_record_cannot_be_written(
    private_redis: RedisServer, server_factory: ServerFactory
) -> None:
    admin = redis.Redis.from_url(private_redis.url)
    _acl(admin, NOT_HANDS)
    url = f"redis://{USER}:{PASSWORD}@127.0.0.1:{private_redis.port}/0"
    server = server_factory(env=CHAOS_ENV, redis=url)
    store = await Store.connect(private_redis.url)
    a = await Session.connect(server.ws_url, name="Ada", record=True)
    b = await Session.connect(server.ws_url, name="Bob", record=True)
    try:
        created = await a.request("create_room", mode="private", rules={"target": TARGET})
        room = created.result["room"]
        await b.request("join_room", invite=created.result["invite"])
        plays = [SeatPlay(a, room, 0), SeatPlay(b, room, 1)]
        playing = asyncio.gather(
            *(play_seat(play, random.Random(f"partial/{play.seat}"), timeout=60) for play in plays)
        )
        # the first hand ends while hand records cannot be written (or, if the server writes
        # the record with the move, the move that ends it fails) ...
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        while not (_hand_over(a, room) or any(play.errors["internal"] for play in plays)):
            assert loop.time() < deadline, "the first hand did not end"
            await asyncio.sleep(0.01)
        # ... then Redis takes them again, and the match goes on
        _acl(admin, "~*")
        finals = await asyncio.wait_for(playing, 60)
        internal = sum(play.errors["internal"] for play in plays)
        print(f"\nanswers while hand records could not be written: internal x{internal}")
        counts = await check_room(store, room, plays, finals, TARGET)
        print(f"match: {counts}")
    finally:
        admin.close()
        await a.close()
        await b.close()
        await store.close()
