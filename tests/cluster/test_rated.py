"""Rated play on a Redis Cluster, two server processes in cluster mode (commits wait for a
replica): a server killed with ``kill -9`` at a rated match's end, each rating moving exactly
once; a rated quick match paired across the two processes and played to its end, with the
leaderboard read from either process (``tests.support.rated``: the same scenarios as on one
Redis, ``tests/chaos/test_rated_end.py`` and ``tests/e2e/test_ratings.py``)."""

from __future__ import annotations

from redis.asyncio.cluster import RedisCluster as RedisClusterClient

from server.store import Store
from tests.cluster.conftest import CLUSTER_CONFIG, CLUSTER_ENV
from tests.support.fixtures import ServerFactory
from tests.support.rated import killed_at_rated_ends, rated_quick_match_across

MATCHES = 2


async def test_a_server_killed_at_a_rated_matchs_end_on_the_cluster(
    server_factory: ServerFactory, raw: RedisClusterClient
) -> None:
    await killed_at_rated_ends(lambda: server_factory(env=CLUSTER_ENV), raw, MATCHES)


async def test_rated_quick_match_and_the_leaderboard_across_processes_on_the_cluster(
    server_factory: ServerFactory, raw: RedisClusterClient, redis_url: str
) -> None:
    first, second = server_factory(env=CLUSTER_ENV), server_factory(env=CLUSTER_ENV)
    store = await Store.connect(redis_url, CLUSTER_CONFIG)
    try:
        await rated_quick_match_across(first, second, store, raw)
    finally:
        await store.close()
