"""The work a caller hands the direct connection to run right after its command is written
(``written``, ``Store.commit(while_waiting=...)``) on a real Redis Cluster: it runs once,
while the command is in flight, also when the command is sent again to another master."""

from __future__ import annotations

import asyncio

from server import keys
from server.store import Store, StoreConfig
from server.store.cluster import ClusterConnection
from tests.support.redis_cluster import RedisCluster

CONFIG = StoreConfig(cluster=True)


async def test_written_runs_once_while_the_command_is_in_flight(
    redis_cluster: RedisCluster, redis_url: str
) -> None:
    connection = ClusterConnection(redis_url, CONFIG)
    try:
        assert await connection.execute("GET", "{written}open") is None  # the table is read
        seen: list[bool] = []
        command = asyncio.ensure_future(
            connection.execute(
                "BLPOP", "{written}nothing", "0.2", written=lambda: seen.append(command.done())
            )
        )
        assert seen == []  # not run while the command is being queued
        assert await command is None
        assert seen == [False]
    finally:
        connection.close()


async def test_written_runs_once_when_moved_to_another_master(
    redis_cluster: RedisCluster, redis_url: str
) -> None:
    connection = ClusterConnection(redis_url, CONFIG)
    key = "{written}moved"
    try:
        assert await connection.execute("SET", key, "v") == b"OK"
        source = redis_cluster.master_of(key)
        target = next(node for node in redis_cluster.masters() if node.port != source.port)
        redis_cluster.start_moving(key, target)
        await asyncio.to_thread(redis_cluster.finish_moving, key, target)
        seen: list[int] = []
        # sent to the old master (its table says so), answered MOVED, sent again to the new
        assert await connection.execute("GET", key, written=lambda: seen.append(1)) == b"v"
        assert seen == [1]
        owner = connection.owner(keys.hash_slot(key))
        assert owner is not None and owner[1] == target.port  # it did follow the MOVED
    finally:
        connection.close()


async def test_a_commit_on_a_cluster_runs_while_waiting_before_it_returns(store: Store) -> None:
    """The cluster store's commit (its script, then WAIT for a replica) runs the hook once,
    whatever the outcome."""
    assert await store.create_room("r1", b"s0")
    seen: list[str] = []
    result = await store.commit("r1", 0, b"s1", b"c1", while_waiting=lambda: seen.append("w"))
    assert result.ok and seen == ["w"]
    refused = await store.commit("r1", 0, b"s2", b"c2", while_waiting=lambda: seen.append("x"))
    assert not refused.ok and seen == ["w", "x"]
