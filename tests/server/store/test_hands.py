"""Finished hands: records with a retention TTL, and the recent index."""

from __future__ import annotations

import time

from redis.asyncio import Redis

from server import keys
from server.store import HandRecord, Store, StoreConfig
from tests.support.fixtures import StoreFactory


async def test_save_and_get_a_hand(store: Store, raw: Redis) -> None:
    now = time.time()
    await store.save_hand("h1", "r1", b"\x00full hand\xff", now)
    assert await store.get_hand("h1") == HandRecord("h1", "r1", now, b"\x00full hand\xff")
    assert 0 < await raw.ttl(keys.hand("h1")) <= 30 * 24 * 3600
    assert await store.get_hand("h2") is None


async def test_recent_hands_newest_first_and_capped(store_factory: StoreFactory) -> None:
    store = await store_factory(config=StoreConfig(recent_hands_max=5))
    now = time.time()
    for i in range(8):
        await store.save_hand(f"h{i}", "r1", b"x", now - 100 + i)
    assert await store.recent_hands(3) == ["h7", "h6", "h5"]
    assert await store.recent_hands(50) == ["h7", "h6", "h5", "h4", "h3"]


async def test_hands_past_retention_leave_the_index(store_factory: StoreFactory) -> None:
    store = await store_factory(config=StoreConfig(hand_ttl_seconds=100))
    now = time.time()
    await store.save_hand("old", "r1", b"x", now - 1000)
    await store.save_hand("new", "r1", b"x", now)
    assert await store.recent_hands(10) == ["new"]
