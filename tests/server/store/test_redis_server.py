"""The test helper's own promises: its own port and folder, never another server."""

from __future__ import annotations

import pytest

from tests.support.redis_server import RedisServer, RedisServerError


def test_own_port_and_folder(redis_server: RedisServer) -> None:
    assert redis_server.running
    assert redis_server.port not in (None, 6379)
    assert redis_server.url == f"redis://127.0.0.1:{redis_server.port}/0"
    assert redis_server.dir.is_dir()


def test_flushall_is_refused_once_stopped() -> None:
    server = RedisServer()
    with pytest.raises(RedisServerError):
        server.flushall()  # never started
    with server:
        server.flushall()
        server.stop()
        with pytest.raises(RedisServerError):
            server.flushall()
    assert not server.dir.exists()
