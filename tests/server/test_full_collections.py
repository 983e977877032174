"""A server process runs a full collection every ``GIN_FULL_GC_SECONDS`` (server/collector.py),
counted in ``/metrics``; none on a timer when it is 0."""

from __future__ import annotations

import asyncio

import pytest

from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.server_process import ServerProcess

pytestmark = pytest.mark.asyncio(loop_scope="function")


async def full_collections(server: ServerProcess) -> float:
    status, body = await server.aget("/metrics")
    assert status == 200
    for line in body.decode().splitlines():
        if line.startswith('python_gc_collections_total{generation="2"}'):
            return float(line.split()[-1])
    raise AssertionError("no python_gc_collections_total for generation 2 in /metrics")


async def test_a_full_collection_comes_on_the_timer(server_factory: ServerFactory) -> None:
    server = server_factory(env={**FAST_CLIENT_ENV, "GIN_FULL_GC_SECONDS": "0.5"})
    first = await full_collections(server)
    for _ in range(100):
        await asyncio.sleep(0.1)
        if await full_collections(server) >= first + 3:
            return
    raise AssertionError(f"full collections: {first} then {await full_collections(server)}")


async def test_none_on_a_timer_when_turned_off(server_factory: ServerFactory) -> None:
    server = server_factory(env={**FAST_CLIENT_ENV, "GIN_FULL_GC_SECONDS": "0"})
    first = await full_collections(server)
    await asyncio.sleep(2.0)
    assert await full_collections(server) == first
