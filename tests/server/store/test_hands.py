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
        await store.save_hand(f"h{i}", "r1", b"x", now - 100 + i, public=True)
    assert await store.recent_hands(3) == ["h7", "h6", "h5"]
    assert await store.recent_hands(50) == ["h7", "h6", "h5", "h4", "h3"]


async def test_hands_past_retention_leave_the_index(store_factory: StoreFactory) -> None:
    store = await store_factory(config=StoreConfig(hand_ttl_seconds=100))
    now = time.time()
    await store.save_hand("old", "r1", b"x", now - 1000, public=True, players=["p1"])
    await store.save_hand("new", "r1", b"x", now, public=True, players=["p1"])
    assert await store.recent_hands(10) == ["new"]
    assert await store.player_hands("p1", 10) == ["new"]


async def test_a_hand_of_a_room_that_is_not_public_is_listed_for_its_players_only(
    store: Store, raw: Redis
) -> None:
    now = time.time()
    await store.save_hand("r1-1", "r1", b"x", now, players=["ada", "bob"])
    await store.save_hand("q1-1", "q1", b"y", now + 1, public=True, players=["ada", "eve"])
    assert await store.recent_hands(10) == ["q1-1"]
    assert await store.player_hands("ada", 10) == ["q1-1", "r1-1"]
    assert await store.player_hands("bob", 10) == ["r1-1"]
    assert await store.player_hands("mallory", 10) == []
    hidden, listed = await store.get_hand("r1-1"), await store.get_hand("q1-1")
    assert hidden is not None and listed is not None
    assert (hidden.public, listed.public) == (False, True)
    assert 0 < await raw.ttl(keys.player_hands("bob")) <= 30 * 24 * 3600


async def test_a_players_own_list_is_capped(store_factory: StoreFactory) -> None:
    store = await store_factory(config=StoreConfig(recent_hands_max=3))
    now = time.time()
    for i in range(5):
        await store.save_hand(f"h{i}", "r1", b"x", now - 10 + i, players=["ada"])
    assert await store.player_hands("ada", 50) == ["h4", "h3", "h2"]


async def test_a_hand_record_written_before_privacy_counts_as_not_public(
    store: Store, raw: Redis
) -> None:
    await raw.hset(keys.hand("legacy-1"), mapping={"room": "r1", "finished": "1.5", "blob": "x"})
    record = await store.get_hand("legacy-1")
    assert record is not None and record.public is False


async def test_a_players_matches_newest_first_one_entry_per_match(store: Store) -> None:
    now = float(int(time.time()))
    await store.save_match("p1", '{"room":"r1"}', now - 2)
    await store.save_match("p1", '{"room":"r2"}', now - 1)
    await store.save_match("p1", '{"room":"r1"}', now)  # written again (the sweep): moved
    assert await store.player_matches("p1") == [('{"room":"r1"}', now), ('{"room":"r2"}', now - 1)]
    assert await store.player_matches("p2") == []
    await store.delete_player("p1")
    assert await store.player_matches("p1") == []
