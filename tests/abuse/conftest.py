"""The abuse tests flood, fuzz and guess: each gets a redis-server of its own, so that nothing
they leave behind reaches another suite's shared Redis."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.redis_server import RedisServer


@pytest.fixture
def redis_url() -> Iterator[str]:
    with RedisServer() as server:
        yield server.url
