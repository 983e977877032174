"""The chaos tests kill and reconfigure Redis: every fixture of theirs that leads to a Redis must
be the test's own redis-server, never the session's shared one (``tests/chaos/conftest.py``).
"""

from __future__ import annotations

import pytest
import redis

from server.store import Store
from tests.support.fixtures import ServerFactory, StoreFactory
from tests.support.redis_server import RedisServer


async def test_every_redis_fixture_is_the_tests_own(
    request: pytest.FixtureRequest,
    chaos_redis: RedisServer,
    redis_url: str,
    private_redis: RedisServer,
    store: Store,
    store_factory: StoreFactory,
    server_factory: ServerFactory,
) -> None:
    assert "redis_server" not in request.fixturenames, request.fixturenames
    assert redis_url == chaos_redis.url
    assert private_redis is chaos_redis
    # the stores write to the test's own redis-server
    other = await store_factory()
    for index, made in enumerate((store, other)):
        await made.create_player(f"pisolation{index}", "hash", f"Isolation {index}")
    own = redis.Redis.from_url(chaos_redis.url)
    try:
        names = sorted(key.decode() for key in own.scan_iter("*isolation*"))
    finally:
        own.close()
    assert len(names) == 2, names
    # a server process gets the test's own Redis, and no other one
    server = server_factory(start=False)
    assert server.env()["REDIS_URL"] == chaos_redis.url
    assert server.env()["GIN_AI_LEASE_SECONDS"] == "2"
    with pytest.raises(AssertionError, match="only use its own Redis"):
        server_factory(start=False, redis="redis://127.0.0.1:6379/0")
