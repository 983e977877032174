"""Shared pytest fixtures (loaded as a plugin by ``tests/conftest.py``).

- ``redis_server`` (session): a real redis-server of our own on a free port (see
  ``tests.support.redis_server``), never the machine's Redis.
- ``redis_url`` (function): that server's URL, emptied (FLUSHALL) before the test.
- ``store`` (function, async): a connected ``server.store.Store`` on ``redis_url``.
- ``store_factory`` (function, async): ``await store_factory(url=None, config=None)`` makes
  more stores (as more server processes would), all closed after the test.
- ``private_redis`` (function): a redis-server for this test alone (``appendfsync always``),
  for tests that stop, kill or restart it.
- ``server_factory`` (function): starts real ``python -m server`` processes on ``redis_url``
  (``tests.support.server_process``), killed after the test; their logs are shown when the
  test fails. ``gin_server``: one of them, with loose rate limits.
- ``@pytest.mark.shared_server`` on a test (or ``pytestmark`` of a module): its servers are
  shared with the other marked tests of its module instead. ``server_factory(env=E)`` then
  hands out the n-th server with settings ``E`` that this worker process keeps for the
  module (``shared_servers``, ``tests.support.shared_servers``, on a redis-server of the
  module's own that is never flushed), started once and left running after the test;
  ``redis_url`` (and so ``store``) is that Redis. A call with ``start=False``, ``port=`` or
  ``redis=`` still makes a server of the test's own. Only a test that never stops, kills or
  reconfigures a server, whose players, rooms and handles are not those of another test of
  its module, and which asserts nothing that holds only when it is alone on the server
  (counts of rooms, the lobby's lists, gauges and counters, the server's log, limits per
  address, the quick-match queue) may carry the mark.

Async fixtures run in the test's own event loop (``loop_scope="function"``, the default
loop scope of tests).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Iterator, Mapping
from pathlib import Path

import pytest
import pytest_asyncio

from client.session import Session
from server.store import Store, StoreConfig
from tests.support.redis_server import RedisServer, redis_server_binary
from tests.support.server_process import ServerProcess
from tests.support.shared_servers import SharedServers

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
def redis_url(request: pytest.FixtureRequest, redis_server: RedisServer) -> str:
    shared = _shared(request)
    if shared is not None:
        return shared.redis_url
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


# --- real server processes (end-to-end tests) ----------------------------------------------------

#: Limits loose enough for scripted clients that act as fast as they can: requests, pings, and
#: the refused frames that make a flood (a fuzzer's are most of what it sends).
FAST_CLIENT_ENV = {
    "GIN_RATE_PER_SECOND": "100000",
    "GIN_RATE_BURST": "100000",
    "GIN_PING_RATE": "100000",
    "GIN_PING_BURST": "100000",
    "GIN_FLOOD_STRIKES": "1000000",
}

ServerFactory = Callable[..., ServerProcess]
_SERVERS = pytest.StashKey[list[ServerProcess]]()
#: The shared servers a test used, with the size of each one's log when the test took it.
_SHARED_USED = pytest.StashKey[list[tuple[ServerProcess, int]]]()
SHARED_MARK = "shared_server"


def _shared(request: pytest.FixtureRequest) -> SharedServers | None:
    """The worker's shared servers, set to the test's module, if the test is marked."""
    if request.node.get_closest_marker(SHARED_MARK) is None:
        return None
    shared: SharedServers = request.getfixturevalue("shared_servers")
    shared.use(str(request.node.path))
    return shared


@pytest.fixture(scope="session")
def shared_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedServers]:
    """This worker process's shared servers (see ``tests.support.shared_servers``)."""
    if redis_server_binary() is None:
        pytest.fail(_MISSING, pytrace=False)
    pool = SharedServers(tmp_path_factory.mktemp("shared-servers"))
    try:
        yield pool
    finally:
        pool.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Show the logs of the test's server processes when it fails."""
    report = yield
    if report.failed:
        for server in item.stash.get(_SERVERS, []):
            report.sections.append(
                (f"server log (port {server.port}, {server.log_path})", server.log_tail(80))
            )
        for server, offset in item.stash.get(_SHARED_USED, []):
            report.sections.append(
                (
                    f"shared server log from this test on (port {server.port}, {server.log_path})",
                    server.log_tail(80, since=offset),
                )
            )
    return report


@pytest.fixture
def server_factory(
    request: pytest.FixtureRequest, redis_url: str, tmp_path: Path
) -> Iterator[ServerFactory]:
    """``server_factory(env={...}, start=True, port=None)`` -> a ``ServerProcess`` on the
    test's Redis (``redis_url``), started unless ``start=False``; all killed after the test.
    In a test marked ``shared_server``, a plain ``server_factory(env=E)`` is the next of this
    worker's shared servers with settings ``E`` instead, left running."""
    servers: list[ServerProcess] = []
    request.node.stash[_SERVERS] = servers
    shared = _shared(request)
    shared_used: list[tuple[ServerProcess, int]] = []
    request.node.stash[_SHARED_USED] = shared_used

    def make(
        *,
        env: Mapping[str, str] | None = None,
        start: bool = True,
        port: int | None = None,
        redis: str | None = None,
    ) -> ServerProcess:
        if shared is not None and start and port is None and redis is None:
            nth = sum(1 for used, _ in shared_used if used.extra_env == dict(env or {}))
            taken = shared.get(env or {}, nth)
            shared_used.append((taken, taken.log_size()))
            return taken
        server = ServerProcess(redis or redis_url, env=env, port=port, log_dir=tmp_path)
        servers.append(server)
        if start:
            server.start()
        return server

    yield make
    for server in servers:
        server.kill()


@pytest.fixture
def gin_server(server_factory: ServerFactory) -> ServerProcess:
    """One running server process with loose rate limits (see ``FAST_CLIENT_ENV``)."""
    return server_factory(env=FAST_CLIENT_ENV)


@pytest_asyncio.fixture(loop_scope="function")
async def sessions() -> AsyncIterator[list[Session]]:
    """A list the test puts the client sessions it opens in: each is closed after the test."""
    opened: list[Session] = []
    yield opened
    for session in opened:
        await session.close()
