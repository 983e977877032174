"""The cluster suite: a Redis Cluster of the session's own (``tests.support.redis_cluster``:
six nodes on free ports, three masters with a replica each), emptied before each test;
``redis_url`` is a startup node of it, so ``server_factory`` starts servers on it (with
``CLUSTER_ENV``)."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Self

import pytest
import pytest_asyncio
from redis.asyncio.cluster import RedisCluster as RedisClusterClient

from server.store import Store, StoreConfig
from tests.support.client_process import WorkerProcess
from tests.support.fixtures import FAST_CLIENT_ENV, StoreFactory
from tests.support.redis_cluster import RedisCluster, redis_cli_binary
from tests.support.redis_server import redis_server_binary

#: A server process in cluster mode whose commits wait for one replica.
CLUSTER_ENV = {**FAST_CLIENT_ENV, "GIN_REDIS_CLUSTER": "1", "GIN_REDIS_WAIT_REPLICAS": "1"}
CLUSTER_CONFIG = StoreConfig(cluster=True, wait_replicas=1)


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[RedisCluster]:
    if redis_server_binary() is None or redis_cli_binary() is None:
        pytest.fail("the cluster tests need redis-server and redis-cli", pytrace=False)
    with RedisCluster() as cluster:
        yield cluster


@pytest.fixture
def redis_url(redis_cluster: RedisCluster) -> str:
    redis_cluster.ensure_running()  # a test killed a node: bring it back (as a replica)
    redis_cluster.flushall()
    return redis_cluster.url


@pytest_asyncio.fixture(loop_scope="function")
async def store_factory(redis_url: str) -> AsyncIterator[StoreFactory]:
    stores: list[Store] = []

    async def make(url: str | None = None, config: StoreConfig | None = None) -> Store:
        # a test's own configuration (short TTLs, small caps) on the cluster, in cluster mode
        config = CLUSTER_CONFIG if config is None else dataclasses.replace(config, cluster=True)
        made = await Store.connect(url or redis_url, config)
        stores.append(made)
        return made

    yield make
    for made in stores:
        await made.close()


@pytest.fixture
def worker_factory(tmp_path: Path) -> Iterator[type[WorkerProcess]]:
    workers: list[WorkerProcess] = []

    class Worker(WorkerProcess):
        def start(self) -> Self:
            workers.append(self)
            return super().start()

    yield Worker
    for worker in workers:
        worker.kill()


@pytest_asyncio.fixture(loop_scope="function")
async def raw(redis_url: str) -> AsyncIterator[RedisClusterClient]:
    """redis-py's cluster client, to look behind the Store's back (as the store tests do)."""
    client = RedisClusterClient.from_url(redis_url, protocol=2)
    yield client
    await client.aclose()
