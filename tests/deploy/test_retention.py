"""Retention, as a self-hoster sets it in ``.env``: ``GIN_HAND_RETENTION`` and
``GIN_ROOM_IDLE`` (here 12 s), passed by the compose file to the server command (see
``tests.deploy.local``), on a private redis-server.

- a finished hand's replay record lives GIN_HAND_RETENTION, then it is gone: from Redis, from
  ``GET /api/hands/ID`` and from ``GET /api/hands``;
- a finished room lives GIN_ROOM_IDLE after its end, then every key of it is gone and a resume
  of it is answered ``not_found``;
- an unfinished room (a waiting room nobody joined, a match both players walked away from) is
  deleted GIN_ROOM_IDLE after its last change (Redis expires it), and the retention sweep of a
  server process (at its start, then every 60 s or GIN_ROOM_IDLE / 4 when shorter) takes it out
  of ``rooms:active``; a younger room is kept;
- the players themselves (names, statistics) are kept.

The waiting is real: Redis expires the keys on its own clock.
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from client.session import RequestError, Session
from tests.deploy.local import LocalCompose
from tests.deploy.matches import play_to_end
from tests.support.redis_server import RedisServer
from tests.support.server_process import http_get

RETENTION = 12
HOST_ENV = {
    "GIN_AI_WORKER_KEY": secrets.token_urlsafe(24),
    "GIN_HAND_RETENTION": str(RETENTION),
    "GIN_ROOM_IDLE": str(RETENTION),
}
TARGET = 10
THINK = 0.015


@pytest.fixture
def deployment(tmp_path: Path, private_redis: RedisServer) -> Iterator[LocalCompose]:
    compose = LocalCompose(tmp_path, HOST_ENV)
    assert private_redis.port is not None
    compose.use_redis(private_redis.port)
    yield compose
    compose.kill_all()


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _room_keys(client: redis.Redis, room: str) -> list[str]:
    return sorted(_text(key) for key in client.scan_iter(match=f"{{room:{room}}}*"))


async def test_hands_and_rooms_are_forgotten_after_the_retention_set_in_the_env(
    deployment: LocalCompose,
) -> None:
    compose = deployment
    env = compose.environment("server")
    assert env["GIN_HAND_RETENTION"] == env["GIN_ROOM_IDLE"] == str(RETENTION), env
    compose.start_server("server-1")
    url = f"ws://127.0.0.1:{compose.server_ports['server-1']}/ws"
    api = f"http://127.0.0.1:{compose.server_ports['server-1']}"
    assert compose.redis_port is not None
    client = redis.Redis(port=compose.redis_port)
    sessions: list[Session] = []
    try:

        async def person(name: str) -> Session:
            session = await Session.connect(url, name=name)
            sessions.append(session)
            return session

        # --- a finished match, a waiting room, a match abandoned midway ------------------------
        ada, bob = await person("Ada"), await person("Bob")
        created = await ada.request("create_room", mode="private", rules={"target": TARGET})
        finished_room = created.result["room"]
        await bob.request("join_room", invite=created.result["invite"])
        await asyncio.gather(
            play_to_end(ada, finished_room, random.Random(1), think=THINK),
            play_to_end(bob, finished_room, random.Random(2), think=THINK),
        )
        ended = time.time()
        hands = sorted(_text(key) for key in client.scan_iter(match="hand:*"))
        assert hands, "no hand record"
        waiting_room = (await (await person("Cy")).request("create_room", mode="private")).result[
            "room"
        ]
        dan, eve = await person("Dan"), await person("Eve")
        created = await dan.request("create_room", mode="private", rules={"target": 100})
        abandoned_room = created.result["room"]
        await eve.request("join_room", invite=created.result["invite"])
        await dan.wait_for(abandoned_room, lambda view: view["game"] is not None)
        old_rooms = {"waiting": waiting_room, "abandoned": abandoned_room}

        hand_ttls = sorted({client.ttl(key) for key in hands})
        finished_keys = _room_keys(client, finished_room)
        room_ttls = sorted({client.ttl(key) for key in finished_keys})
        assert all(0 < ttl <= RETENTION for ttl in hand_ttls), hand_ttls
        assert all(0 < ttl <= RETENTION for ttl in room_ttls), room_ttls
        for room in old_rooms.values():  # unfinished: GIN_ROOM_IDLE from their last change
            ttls = {client.ttl(key) for key in _room_keys(client, room)}
            assert all(0 < ttl <= RETENTION for ttl in ttls), (room, ttls)
        status, _ = http_get(f"{api}/api/hands/{hands[0][5:]}")
        assert status == 200
        print(
            f"\n{len(hands)} hand records (TTL {hand_ttls} s), finished room {finished_room} "
            f"({len(finished_keys)} keys, TTL {room_ttls} s); unfinished rooms {old_rooms} "
            f"with TTLs"
        )
        await asyncio.gather(*(session.close() for session in sessions))
        sessions.clear()

        # --- half-way: a younger room, which the sweep must keep ---------------------------
        await asyncio.sleep(RETENTION / 2)
        fay = await person("Fay")
        young_room = (await fay.request("create_room", mode="private")).result["room"]
        await fay.close()

        # --- the retention is over: the records and the finished room are gone --------------
        deadline = ended + RETENTION + 5
        while time.time() < deadline and any(client.exists(key) for key in hands):
            await asyncio.sleep(0.5)
        waited = time.time() - ended
        assert not any(client.exists(key) for key in hands), f"hand records after {waited:.0f} s"
        assert waited >= RETENTION - 2, f"hand records gone after {waited:.0f} s only"
        for key in hands:
            status, _ = http_get(f"{api}/api/hands/{key[5:]}")
            assert status == 404, (key, status)
        status, body = http_get(f"{api}/api/hands?limit=100")
        assert status == 200 and json.loads(body)["hands"] == [], body[:300]
        while time.time() < deadline and _room_keys(client, finished_room):
            await asyncio.sleep(0.5)
        assert not _room_keys(client, finished_room), _room_keys(client, finished_room)
        back = await Session.connect(url, token=ada.token)
        sessions.append(back)
        with pytest.raises(RequestError) as refused:
            await back.resume(finished_room, -1)
        assert refused.value.code == "not_found", refused.value

        # --- the unfinished rooms expired; a replica started now cleans the index -----------
        # (Redis deletes the keys; a sweep, every GIN_ROOM_IDLE / 4 here, the index entries)
        compose.start_server("server-2")
        started = time.monotonic()

        def indexed() -> set[str]:
            return {_text(member) for member in client.zrange("rooms:active", 0, -1)}

        while time.monotonic() - started < 10 and (
            any(_room_keys(client, room) for room in old_rooms.values())
            or indexed() & set(old_rooms.values())
        ):
            await asyncio.sleep(0.2)
        left = {name: _room_keys(client, room) for name, room in old_rooms.items()}
        assert not any(left.values()), f"not swept: {left}"
        active = indexed()
        assert young_room in active and _room_keys(client, young_room), "the young room is gone"
        assert not active & set(old_rooms.values()), active
        players = len(list(client.scan_iter(match="player:*")))
        assert players >= 6, players
        print(
            f"after {waited:.0f} s: hand records gone (GET /api/hands/ID 404, /api/hands "
            f"empty), finished room gone (resume: not_found); a replica started at "
            f"{time.time() - ended:.0f} s found the unfinished rooms {sorted(old_rooms)} "
            f"expired, the index clean in "
            f"{time.monotonic() - started:.1f} s and kept the {RETENTION // 2} s younger one; "
            f"{players} players kept"
        )
    finally:
        await asyncio.gather(*(session.close() for session in sessions))
        client.close()
