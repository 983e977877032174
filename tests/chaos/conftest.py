"""Fixtures of the chaos tests: a Redis of each test's own, AI worker processes and the local
load balancer.

Chaos tests kill, restart and reconfigure Redis (kill -9, ACL users): none of them may touch
the session's shared redis-server (``redis_server`` in ``tests/support/fixtures.py``), which
the other suites keep using afterwards. So every test here gets ``chaos_redis``, a
redis-server of its own (append-only file on, ``appendfsync always``), and every fixture that
leads to a Redis resolves to it:

- ``redis_url`` (used by ``store``, ``store_factory`` and the shared ``server_factory``) and
  ``private_redis`` are overridden to be ``chaos_redis``;
- ``server_factory`` is wrapped: a server process may only be started on ``chaos_redis``
  (any other URL fails the test), with ``CHAOS_ENV`` as its base settings;
- ``_only_private_redis`` (autouse) fails a test whose fixture closure still reaches the
  shared ``redis_server``, and checks after the test that every server process it started
  had ``chaos_redis`` as its ``REDIS_URL``.

``test_isolation.py`` checks this resolution itself.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Generator, Iterator, Mapping, Sequence
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import pytest_asyncio

from tests.chaos.proxy import Proxy
from tests.support.client_process import WorkerProcess
from tests.support.fixtures import ServerFactory
from tests.support.redis_server import RedisServer, redis_server_binary
from tests.support.server_process import ServerProcess

WorkerFactory = Callable[..., WorkerProcess]
ProxyFactory = Callable[[Callable[[], Sequence[int]]], Proxy]
_WORKERS = pytest.StashKey[list[WorkerProcess]]()
_STARTED = pytest.StashKey[tuple[int, list[ServerProcess]]]()

#: Server settings of the chaos tests: no rate limit in the way of scripted players; no AI
#: stand-in for a person who is away (a person's seat is played by that person only); a short
#: AI seat lease, so that a seat whose worker vanished with its server is asked for again
#: within a few seconds (``server/ai_seats.py``).
CHAOS_ENV = {
    "GIN_RATE_PER_SECOND": "100000",
    "GIN_RATE_BURST": "100000",
    "GIN_DISCONNECT_GRACE": "3600",
    "GIN_AI_LEASE_SECONDS": "2",
}


@pytest.fixture
def chaos_redis() -> Iterator[RedisServer]:
    """This test's own redis-server: AOF on, ``appendfsync always`` (every acknowledged
    write survives a kill -9), no RDB snapshots; stopped and deleted after the test."""
    if redis_server_binary() is None:
        pytest.fail("redis-server is not installed (scripts/ensure-redis.sh)", pytrace=False)
    with RedisServer(appendfsync="always") as server:
        yield server


@pytest.fixture
def redis_url(chaos_redis: RedisServer) -> str:
    return chaos_redis.url


@pytest.fixture
def private_redis(chaos_redis: RedisServer) -> RedisServer:
    return chaos_redis


@pytest.fixture
def server_factory(
    request: pytest.FixtureRequest, server_factory: ServerFactory, chaos_redis: RedisServer
) -> ServerFactory:
    """The shared ``server_factory`` (processes killed after the test, logs shown on failure),
    restricted to this test's ``chaos_redis`` and with ``CHAOS_ENV`` under ``env``."""
    assert chaos_redis.port is not None
    started: list[ServerProcess] = []
    request.node.stash[_STARTED] = (chaos_redis.port, started)

    def make(
        *,
        env: Mapping[str, str] | None = None,
        start: bool = True,
        port: int | None = None,
        redis: str | None = None,
    ) -> ServerProcess:
        url = redis or chaos_redis.url
        if urlsplit(url).port != chaos_redis.port:
            raise AssertionError(f"a chaos test may only use its own Redis, not {url}")
        server = server_factory(env={**CHAOS_ENV, **(env or {})}, start=start, port=port, redis=url)
        started.append(server)
        return server

    return make


@pytest.fixture(autouse=True)
def _only_private_redis(request: pytest.FixtureRequest) -> Iterator[None]:
    assert "redis_server" not in request.fixturenames, (
        f"{request.node.nodeid} reaches the session's shared Redis: {request.fixturenames}"
    )
    yield
    port, started = request.node.stash.get(_STARTED, (None, []))
    for server in started:
        assert urlsplit(server.env()["REDIS_URL"]).port == port, server.env()["REDIS_URL"]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Show the AI workers' logs when a test fails."""
    report = yield
    if report.failed:
        for worker in item.stash.get(_WORKERS, []):
            report.sections.append((f"worker log ({worker.name})", worker.log_tail(40)))
    return report


@pytest.fixture
def worker_factory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[WorkerFactory]:
    """``worker_factory(url, env={...})`` -> a started ``python -m client.ai`` (think time 0,
    no process pool); all killed after the test."""
    workers: list[WorkerProcess] = []
    request.node.stash[_WORKERS] = workers

    def make(url: str, env: Mapping[str, str] | None = None) -> WorkerProcess:
        worker = WorkerProcess(url, tmp_path, f"w{len(workers)}", env)
        workers.append(worker)
        return worker.start()

    yield make
    for worker in workers:
        worker.kill()


@pytest_asyncio.fixture(loop_scope="function")
async def proxy_factory() -> AsyncIterator[ProxyFactory]:
    proxies: list[Proxy] = []

    def make(ports: Callable[[], Sequence[int]]) -> Proxy:
        proxy = Proxy(ports)
        proxies.append(proxy)
        return proxy

    yield make
    for proxy in proxies:
        await proxy.close()
