"""The floor of ``bench.load`` on a Redis Cluster (``--cluster --wait-replicas 1``): every move
is one commit on the master of its room's slot, published by sharded pub/sub to the floor's
``SSUBSCRIBE`` connection there, and held by a replica before it is answered."""

from __future__ import annotations

import asyncio
from pathlib import Path

import redis
from redis.asyncio.cluster import RedisCluster as RedisClusterClient

from bench import floor_server
from bench.load import FloorPair, PairLoad, Stats, start_floor_server
from server import keys
from tests.support.redis_cluster import RedisCluster


async def test_every_move_is_committed_on_its_shard_and_reaches_both_sides(
    redis_cluster: RedisCluster, redis_url: str, raw: RedisClusterClient, tmp_path: Path
) -> None:
    floor, port = await start_floor_server(tmp_path, redis_url, cluster=True, wait_replicas=1)
    load = PairLoad(port, FloorPair)
    try:
        # twelve rooms of random ids: all on one of three masters once in about 180,000 runs
        # (six: once in 243, seen in CI), which would make the routing check below vacuous
        await load.open(12)
        stats = Stats("floor")
        stats.measuring = True
        load.go(stats, 0.0)
        await asyncio.sleep(1.0)
        load.stop()
        await asyncio.sleep(0.5)  # the moves in flight end
        assert floor.alive(), floor.log_tail()
        assert stats.done >= 30, floor.log_tail()
        shards = set()
        for pair in load.pairs:
            assert isinstance(pair, FloorPair)
            assert pair.held == [pair.n, pair.n]  # both sides got the last move's update
            room = keys.room_keys(pair.room)
            assert await raw.get(room.version) == str(pair.n).encode()
            assert await raw.xlen(room.events) == pair.n
            # every move's request key, up to the newest the room remembers
            assert await raw.zcard(room.requests) == min(pair.n, floor_server.REQUEST_KEYS_MAX)
            master = redis_cluster.master_of(room.channel)
            shards.add(master.port)
            node = raw.get_node(host="127.0.0.1", port=master.port)
            subscribers = await raw.execute_command(
                "PUBSUB", "SHARDNUMSUB", room.channel, target_nodes=node
            )
            assert subscribers == [room.channel.encode(), 1], subscribers
            (replica,) = redis_cluster.replicas_of(master)
            assert _read_replica(replica.port, room.version) == str(pair.n).encode()
        assert len(shards) > 1, (
            "every room on one shard: the test shows nothing about routing",
            redis_cluster.slot_owners(),
        )
    finally:
        await load.close()
        floor.stop()


def _read_replica(port: int, key: str) -> bytes | None:
    """``key`` as the replica on ``port`` holds it (READONLY: a replica's own copy)."""
    client = redis.Redis(port=port, single_connection_client=True)
    try:
        client.readonly()
        value = client.get(key)
        assert value is None or isinstance(value, bytes)
        return value
    finally:
        client.close()
