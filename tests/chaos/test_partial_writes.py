"""A move is committed (one atomic Lua script), and only afterwards does the server write the
hand's replay record and the players' statistics. When that second write fails (the process
is killed between the two, Redis goes away for a moment: the chaos test can hit this at
random), the move stands, yet the client is answered ``internal`` ("internal error; nothing
was changed"), and the finished hand never gets its replay record.

Here the failure is made deterministic: while the first hand ends, the server's Redis user
(an ACL user of this test's own redis-server) may write every key but the hand records
(``hand:ID``); then the permission comes back and the match goes on. Nothing may be lost:
every finished hand gets its replay record (the server's sweep of owed records writes it
once it can), and a move the server knows it committed is not answered ``internal``.
"""

from __future__ import annotations

import asyncio
import random

import pytest
import redis
from redis.exceptions import NoPermissionError

from client.session import Session
from server.store import Store
from tests.chaos.players import SeatPlay, check_room, play_seat, wait_for_record
from tests.support.fixtures import ServerFactory
from tests.support.redis_server import RedisServer

TARGET = 30
USER, PASSWORD = "gin", "partial-writes"
#: Every key but ``hand:*`` (ACL key patterns cannot exclude, so: not h..., h but not ha...).
NOT_HAND_RECORDS = "~[^h]* ~h[^a]* ~ha[^n]* ~han[^d]* ~hand[^:]*"


def _hand_over(session: Session, room: str) -> bool:
    view = session.room(room).view
    return view is not None and bool((view["game"] or {}).get("results"))


def _acl(admin: redis.Redis, keys: str) -> None:
    admin.execute_command(  # type: ignore[no-untyped-call]
        f"ACL SETUSER {USER} on >{PASSWORD} resetkeys {keys} &* +@all"
    )


def _check_acl(url: str) -> None:
    """The server's user may write anything but a hand record."""
    user = redis.Redis.from_url(url)
    try:
        with pytest.raises(NoPermissionError):
            user.set("hand:probe-1", "x")
        for key in ("hands:probe", "{room:probe}:room", "player:probe", "ai:probe", "x"):
            assert user.set(key, "x")
            user.delete(key)
    finally:
        user.close()


async def test_a_hand_that_ends_while_its_record_cannot_be_written(
    private_redis: RedisServer, server_factory: ServerFactory
) -> None:
    admin = redis.Redis.from_url(private_redis.url)
    _acl(admin, NOT_HAND_RECORDS)
    url = f"redis://{USER}:{PASSWORD}@127.0.0.1:{private_redis.port}/0"
    _check_acl(url)
    server = server_factory(redis=url)
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
        hands = len(finals[0]["game"]["results"])
        missing = [
            number
            for number in range(1, hands + 1)
            if await wait_for_record(store, f"{room}-{number}") is None
        ]
        print(
            f"\nanswers while hand records could not be written: internal x{internal}; "
            f"{hands} hands, without a replay record: {missing}"
        )
        assert not missing, f"finished hands without a replay record: {missing}"
        counts = await check_room(store, room, plays, finals, TARGET, internal_means_unchanged=True)
        print(f"match: {counts}")
    finally:
        admin.close()
        await a.close()
        await b.close()
        await store.close()
