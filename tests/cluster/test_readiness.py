"""``/readyz`` on a cluster: not ready while some slots have no master this process can
reach (a whole shard down: its master and its replica killed), ready again, and serving,
once the shard is back."""

from __future__ import annotations

import asyncio

from client.session import Session
from tests.cluster.conftest import CLUSTER_ENV
from tests.support.fixtures import ServerFactory
from tests.support.polling import eventually
from tests.support.redis_cluster import RedisCluster
from tests.support.server_process import ServerProcess, http_get

PATIENCE = 60.0


async def _readyz_becomes(server: ServerProcess, status: int) -> bytes:
    got, body = await eventually(
        lambda: asyncio.to_thread(http_get, f"{server.http_url}/readyz"),
        lambda answer: answer[0] == status,
        timeout=PATIENCE,
    )
    assert got == status, f"/readyz stayed {got} {body!r}, not {status}"
    return body


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
