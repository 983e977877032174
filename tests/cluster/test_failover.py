"""Chaos on a Redis Cluster: twenty matches at once on two server processes and two AI
workers, while a master of the cluster is killed (kill -9; its replica takes over, and the
old master comes back as its replica), then a server process (kill -9, started again on its
port) and then an AI worker (kill -9; another takes its seats once their leases run out).

Every match must end; every change a person's seat made must be exactly one of its requests,
each applied at most once and every acknowledged one applied; every person's log must hold
every sequence number once, in order; every hand has its replay record
(``tests.chaos.players.check_room``).
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from pathlib import Path

from client.session import Session, View
from server import keys
from server.store import Store
from tests.chaos.players import SeatPlay, check_room, play_seat
from tests.cluster.conftest import CLUSTER_CONFIG, CLUSTER_ENV
from tests.support.client_process import WorkerProcess
from tests.support.fixtures import ServerFactory
from tests.support.redis_cluster import RedisCluster

MATCHES = 20
TARGET = 30
LEVELS = ("easy", "normal", "hard")
#: The people's moves (all matches together) at which each kill happens.
KILL_MASTER_AT, KILL_SERVER_AT, KILL_WORKER_AT = 60, 160, 260
ENV = {**CLUSTER_ENV, "GIN_AI_LEASE_SECONDS": "2"}


async def test_twenty_matches_survive_a_master_a_server_and_a_worker_killed(
    server_factory: ServerFactory,
    worker_factory: type[WorkerProcess],
    redis_cluster: RedisCluster,
    redis_url: str,
    tmp_path: Path,
) -> None:
    servers = [server_factory(env=ENV), server_factory(env=ENV)]
    think = {"GIN_AI_THINK_SECONDS": "0"}
    first_worker = worker_factory(servers[0].ws_url, tmp_path, "w1", env=think).start()
    worker_factory(servers[1].ws_url, tmp_path, "w2", env=think).start()
    rng = random.Random(16)
    matches: list[tuple[str, list[SeatPlay]]] = []
    for index in range(MATCHES):
        home = servers[index % 2]
        person = await Session.connect(home.ws_url, name=f"P{index}", record=True)
        if index % 2:
            level = LEVELS[index % 3]
            created = await person.request(
                "create_room", mode="ai", level=level, rules={"target": TARGET}
            )
            room = created.result["room"]
            matches.append((room, [SeatPlay(person, room, 0)]))
            continue
        other = await Session.connect(servers[1].ws_url, name=f"Q{index}", record=True)
        created = await person.request("create_room", mode="private", rules={"target": TARGET})
        room = created.result["room"]
        await other.request("join_room", invite=created.result["invite"])
        matches.append((room, [SeatPlay(person, room, 0), SeatPlay(other, room, 1)]))

    progress: Counter[str] = Counter()
    done: list[str] = []

    async def chaos() -> None:
        victim = redis_cluster.master_of(keys.room(matches[0][0]))
        for at, what in (
            (KILL_MASTER_AT, "master"),
            (KILL_SERVER_AT, "server"),
            (KILL_WORKER_AT, "worker"),
        ):
            while progress["intents"] < at:
                await asyncio.sleep(0.05)
            if what == "master":
                await asyncio.to_thread(redis_cluster.fail_over, victim)
            elif what == "server":
                servers[0].kill()
                await asyncio.to_thread(servers[0].start)
            else:
                first_worker.kill()
                worker_factory(servers[1].ws_url, tmp_path, "w3", env=think).start()
            done.append(what)

    kills = asyncio.create_task(chaos())
    finals: list[list[View]] = await asyncio.gather(
        *(
            asyncio.gather(
                *(
                    play_seat(play, random.Random(rng.random()), timeout=300, progress=progress)
                    for play in plays
                )
            )
            for _, plays in matches
        )
    )
    await kills
    assert done == ["master", "server", "worker"], done
    store = await Store.connect(redis_url, CLUSTER_CONFIG)
    try:
        totals: Counter[str] = Counter()
        for (room, plays), views in zip(matches, finals, strict=True):
            totals.update(await check_room(store, room, plays, views, TARGET))
        assert totals["acked"] > KILL_WORKER_AT, totals
    finally:
        await store.close()
        for _, plays in matches:
            for play in plays:
                await play.session.close()
