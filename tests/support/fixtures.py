"""Shared pytest fixtures (loaded as a plugin by ``tests/conftest.py``).

- ``redis_server`` (session): a real redis-server of our own on a free port (see
  ``tests.support.redis_server``), never the machine's Redis.
- ``redis_url`` (function): that server's URL, emptied (FLUSHALL) before the test.
- ``store`` (function, async): a connected ``server.store.Store`` on ``redis_url``.
- ``store_factory`` (function, async): ``await store_factory(url=None, config=None)`` makes
  more stores (as more server processes would), all closed after the test.
- ``private_redis`` (function): a redis-server for this test alone (``appendfsync always``),
  for tests that stop, kill or restart it.

Async fixtures run in the test's own event loop (``loop_scope="function"``, the default
loop scope of tests).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator

import pytest
import pytest_asyncio

from server.store import Store, StoreConfig
from tests.support.redis_server import RedisServer, redis_server_binary

StoreFactory = Callable[..., Awaitable[Store]]

_MISSING = (
    "redis-server is not installed, and the store tests need a real one. "
    "Run scripts/ensure-redis.sh (`make test` runs it), or install Debian's redis-server."
)


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    if redis_server_binary() is None:
        pytest.fail(_MISSING, pytrace=False)
    server = RedisServer()
    server.start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    if not redis_server.running:  # a test took it down: bring it back, same port
        redis_server.start()
    redis_server.flushall()
    return redis_server.url


@pytest.fixture
def private_redis() -> Iterator[RedisServer]:
    if redis_server_binary() is None:
        pytest.fail(_MISSING, pytrace=False)
    with RedisServer(appendfsync="always") as server:
        yield server


@pytest_asyncio.fixture(loop_scope="function")
async def store_factory(redis_url: str) -> AsyncIterator[StoreFactory]:
    stores: list[Store] = []

    async def make(url: str | None = None, config: StoreConfig | None = None) -> Store:
        made = await Store.connect(url or redis_url, config)
        stores.append(made)
        return made

    yield make
    for made in stores:
        await made.close()


@pytest_asyncio.fixture(loop_scope="function")
async def store(store_factory: StoreFactory) -> Store:
    return await store_factory()
