"""Fixtures of the chaos tests: AI worker processes and the local load balancer."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Generator, Iterator, Mapping, Sequence
from pathlib import Path

import pytest
import pytest_asyncio

from tests.chaos.proxy import Proxy
from tests.chaos.workers import WorkerProcess

WorkerFactory = Callable[..., WorkerProcess]
ProxyFactory = Callable[[Callable[[], Sequence[int]]], Proxy]
_WORKERS = pytest.StashKey[list[WorkerProcess]]()

#: Server settings of the chaos tests: no rate limit in the way of scripted players, and no
#: AI stand-in for a person who is away (a person's seat is played by that person only).
CHAOS_ENV = {
    "GIN_RATE_PER_SECOND": "100000",
    "GIN_RATE_BURST": "100000",
    "GIN_DISCONNECT_GRACE": "3600",
}


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
    """``worker_factory(url, env={...})`` -> a started ``python -m client.ai``; all killed
    after the test."""
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
