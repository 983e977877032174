"""The store's retryable errors on a Redis Cluster: a commit whose shard's replica is frozen
is answered ``not_replicated``, a request whose shard has lost its master (not yet replaced)
``store_unavailable``; the same request sent again is applied exactly once."""

from __future__ import annotations

import asyncio
import time

from server import keys
from server.store import Store
from tests.cluster.conftest import CLUSTER_CONFIG, CLUSTER_ENV
from tests.e2e.retries import assert_applied_once, next_move
from tests.support.fixtures import ServerFactory
from tests.support.players import close_all, expect_error, private_match
from tests.support.redis_cluster import RedisCluster
from tests.support.redis_server import RedisServerError


async def test_a_commit_its_replica_did_not_confirm_is_not_replicated_then_applied_once(
    server_factory: ServerFactory, redis_cluster: RedisCluster, redis_url: str
) -> None:
    server = server_factory(env={**CLUSTER_ENV, "GIN_REDIS_WAIT_TIMEOUT_MS": "300"})
    a, b, room = await private_match(server.ws_url, server.ws_url)
    store = await Store.connect(redis_url, CLUSTER_CONFIG)
    try:
        seat, act = next_move((a, b), room)
        (replica,) = redis_cluster.replicas_of(redis_cluster.master_of(keys.room(room)))
        replica.server.pause()  # shorter than the cluster's node timeout: no failover
        try:
            await expect_error("not_replicated", (a, b)[seat].request(act))
        finally:
            replica.server.resume()
        await expect_error("duplicate_request", (a, b)[seat].request(act))
        await assert_applied_once(store, room, seat, act)
    finally:
        await store.close()
        await close_all(a, b)


async def test_a_request_to_a_shard_without_master_is_store_unavailable_then_applied_once(
    server_factory: ServerFactory, redis_cluster: RedisCluster, redis_url: str
) -> None:
    server = server_factory(env={**CLUSTER_ENV, "GIN_REDIS_FAILOVER_SECONDS": "0.2"})
    a, b, room = await private_match(server.ws_url, server.ws_url)
    store = await Store.connect(redis_url, CLUSTER_CONFIG)
    try:
        seat, act = next_move((a, b), room)
        master = redis_cluster.master_of(keys.room(room))
        redis_cluster.kill(master)  # its replica takes over after the node timeout, not yet
        await expect_error("store_unavailable", (a, b)[seat].request(act))
        await asyncio.to_thread(_promoted, redis_cluster, keys.room(room))
        redis_cluster.restart(master)  # the new master's replica: WAIT 1 can be met again
        await asyncio.to_thread(redis_cluster.wait_ok)
        ack = await (a, b)[seat].request(act)
        assert ack.result["seq"] == act.seq + 1
        await expect_error("duplicate_request", (a, b)[seat].request(act))
        await assert_applied_once(store, room, seat, act)
    finally:
        await store.close()
        await close_all(a, b)


def _promoted(cluster: RedisCluster, key: str, timeout: float = 30.0) -> None:
    """Until a running master serves ``key``'s slot again."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            cluster.master_of(key)
            return
        except RedisServerError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
