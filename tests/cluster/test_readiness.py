"""``/readyz`` on a cluster: not ready while some slots have no master this process can
reach (a whole shard down: its master and its replica killed), ready again, and serving,
once the shard is back."""

from __future__ import annotations

import asyncio
import time

from client.session import Session
from tests.cluster.conftest import CLUSTER_ENV
from tests.support.fixtures import ServerFactory
from tests.support.redis_cluster import RedisCluster
from tests.support.server_process import ServerProcess, http_get

PATIENCE = 60.0


async def _readyz_becomes(server: ServerProcess, status: int) -> bytes:
    deadline = time.monotonic() + PATIENCE
    while True:
        got, body = await asyncio.to_thread(http_get, f"{server.http_url}/readyz")
        if got == status:
            return body
        assert time.monotonic() < deadline, f"/readyz stayed {got} {body!r}, not {status}"
        await asyncio.sleep(0.2)


async def test_readyz_says_not_ready_while_a_shard_is_down(
    server_factory: ServerFactory, redis_cluster: RedisCluster
) -> None:
    server = server_factory(env=CLUSTER_ENV)
    await _readyz_becomes(server, 200)
    master = redis_cluster.masters()[0]
    shard = [master, *redis_cluster.replicas_of(master)]
    for node in shard:
        redis_cluster.kill(node)
    await _readyz_becomes(server, 503)
    for node in shard:
        redis_cluster.restart(node)
    await _readyz_becomes(server, 200)
    person = await Session.connect(server.ws_url, name="Ada")
    try:
        for _ in range(6):  # rooms on every shard
            created = await person.request("create_room", mode="private", rules={"target": 10})
            assert created.result["room"]
    finally:
        await person.close()
