"""Fixtures of the store tests: a raw redis-py client to look behind the Store's back."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest_asyncio
from redis.asyncio import Redis

from server.store import FeedItem, RoomFeed


@pytest_asyncio.fixture(loop_scope="function")
async def raw(redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url, protocol=2)
    yield client
    await client.aclose()


async def next_item(feed: RoomFeed, timeout: float = 5.0) -> FeedItem:
    """The feed's next item, failing the test if none comes within ``timeout`` seconds."""
    return await asyncio.wait_for(anext(feed), timeout)
