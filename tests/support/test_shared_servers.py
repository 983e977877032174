"""The shared servers of ``tests.support.shared_servers`` and the ``shared_server`` mark."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.redis_server import RedisServer
from tests.support.server_process import ServerProcess
from tests.support.shared_servers import SharedServers


def test_the_pool_keeps_one_running_server_per_settings_and_place(tmp_path: Path) -> None:
    pool = SharedServers(tmp_path)
    try:
        pool.use("tests/one.py")
        first = pool.get(FAST_CLIENT_ENV)
        pid = first.pid
        assert first.running and first.redis_url == pool.redis_url
        pool.use("tests/one.py")
        assert pool.get(dict(FAST_CLIENT_ENV)) is first and first.pid == pid  # not restarted
        second = pool.get(FAST_CLIENT_ENV, 1)
        other = pool.get({**FAST_CLIENT_ENV, "GIN_TURN_SECONDS": "30"})
        assert len({first.port, second.port, other.port}) == 3
        assert other.extra_env["GIN_TURN_SECONDS"] == "30"
        assert pool.started() == [first, second, other]
        first.kill()  # a test that took it down: the next one gets it back, same port
        assert pool.get(FAST_CLIENT_ENV) is first and first.running and first.pid != pid
        assert first.get("/readyz")[0] == 200
        # another module: servers and a Redis of its own, the first module's are gone
        redis.Redis.from_url(pool.redis_url).set("left-by-one", "1")
        pool.use("tests/two.py")
        assert not any(server.running for server in (first, second, other))
        assert pool.started() == []
        assert redis.Redis.from_url(pool.redis_url).get("left-by-one") is None
        theirs = pool.get(FAST_CLIENT_ENV)
        assert theirs is not first and theirs.running and theirs.redis_url == pool.redis_url
    finally:
        pool.close()
    assert not theirs.running


@pytest.mark.shared_server
def test_a_marked_test_gets_its_workers_shared_servers_and_their_redis(
    gin_server: ServerProcess,
    server_factory: ServerFactory,
    redis_url: str,
    shared_servers: SharedServers,
) -> None:
    assert gin_server is shared_servers.get(FAST_CLIENT_ENV)
    assert server_factory(env=FAST_CLIENT_ENV) is shared_servers.get(FAST_CLIENT_ENV, 1)
    assert redis_url == shared_servers.redis_url == gin_server.redis_url
    own = server_factory(env=FAST_CLIENT_ENV, start=False)  # asked for its own: its own
    assert own not in shared_servers.started() and own.redis_url == redis_url


def test_an_unmarked_test_gets_its_own_server_on_the_flushed_redis(
    gin_server: ServerProcess,
    redis_url: str,
    redis_server: RedisServer,
    shared_servers: SharedServers,
) -> None:
    assert gin_server not in shared_servers.started()
    assert gin_server.redis_url == redis_url == redis_server.url != shared_servers.redis_url


def test_a_failed_shared_test_is_shown_the_log_from_its_start_on(tmp_path: Path) -> None:
    server = ServerProcess("redis://127.0.0.1:1/0", log_dir=tmp_path)
    assert server.log_size() == 0 and server.log_tail() == ""
    server.log_path.write_text("earlier test\n")
    offset = server.log_size()
    with server.log_path.open("a") as log:
        log.write("this test\nits end\n")
    assert server.log_tail(since=offset) == "this test\nits end"
    assert server.log_tail(1) == "its end"
