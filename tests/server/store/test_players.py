"""Players: identity and stats."""

from __future__ import annotations

import asyncio

import pytest
from redis.asyncio import Redis

from server import keys
from server.store import Player, Store, StoreConfig
from tests.support.fixtures import StoreFactory


async def test_create_and_get_player(store: Store) -> None:
    assert await store.create_player("p1", "tokenhash", "Ann", created=1700000000.5)
    assert await store.get_player("p1") == Player("p1", "tokenhash", "Ann", 1700000000.5, {})
    assert await store.get_player("p2") is None


async def test_a_taken_id_is_refused_and_kept(store: Store) -> None:
    assert await store.create_player("p1", "h1", "Ann")
    assert not await store.create_player("p1", "h2", "Mallory")
    player = await store.get_player("p1")
    assert player is not None and (player.token_hash, player.name) == ("h1", "Ann")


async def test_rename(store: Store, raw: Redis) -> None:
    await store.create_player("p1", "h", "Ann")
    assert await store.set_player_name("p1", "Anne ✓")
    player = await store.get_player("p1")
    assert player is not None and player.name == "Anne ✓"
    assert not await store.set_player_name("ghost", "Bob")
    assert not await raw.exists(keys.player("ghost"))
    with pytest.raises(ValueError):
        await store.set_player_name("p1", "x" * 300)
    with pytest.raises(ValueError):
        await store.set_player_name("p1", "")


async def test_stats(store: Store, raw: Redis) -> None:
    await store.create_player("p1", "h", "Ann")
    assert await store.get_stats("p1") == {}
    assert await store.add_stats("p1", games=1, wins=1) == {"games": 1, "wins": 1}
    assert await store.add_stats("p1", games=1, points=25) == {"games": 2, "points": 25}
    assert await store.get_stats("p1") == {"games": 2, "wins": 1, "points": 25}
    player = await store.get_player("p1")
    assert player is not None and player.stats == {"games": 2, "wins": 1, "points": 25}
    assert await store.add_stats("ghost", games=1) is None
    assert await store.get_stats("ghost") is None
    assert not await raw.exists(keys.player("ghost"))


async def test_concurrent_stat_increments_all_count(store: Store) -> None:
    await store.create_player("p1", "h", "Ann")
    await asyncio.gather(*(store.add_stats("p1", wins=1) for _ in range(200)))
    assert await store.get_stats("p1") == {"wins": 200}


async def test_bad_stats_are_refused(store: Store) -> None:
    await store.create_player("p1", "h", "Ann")
    with pytest.raises(keys.InvalidId):
        await store.add_stats("p1", Wins=1)
    with pytest.raises(ValueError):
        await store.add_stats("p1", wins=True)
    with pytest.raises(ValueError):
        await store.add_stats("p1", wins=1.5)  # type: ignore[arg-type]
    assert await store.get_stats("p1") == {}


async def test_a_player_not_seen_for_the_retention_period_is_forgotten(
    store_factory: StoreFactory, raw: Redis
) -> None:
    store = await store_factory(config=StoreConfig(new_player_ttl_seconds=2))
    assert await store.create_player("pttl", "h", "Ada")
    assert 0 < await raw.ttl(keys.player("pttl")) <= 2
    await asyncio.sleep(1.2)
    assert await store.touch_player("pttl")  # seen again: two more seconds from now
    assert await raw.ttl(keys.player("pttl")) == 2
    await asyncio.sleep(2.5)
    assert await store.get_player("pttl") is None
    assert not await store.touch_player("pttl")


async def test_a_player_is_kept_long_only_once_they_finished_a_hand(
    store_factory: StoreFactory, raw: Redis
) -> None:
    store = await store_factory(
        config=StoreConfig(new_player_ttl_seconds=100, player_ttl_seconds=10_000)
    )
    assert await store.create_player("p-new", "h", "Ada")
    assert 0 < await raw.ttl(keys.player("p-new")) <= 100
    await store.add_stats("p-new", matches=0, wins=0)  # no hand yet
    assert await store.touch_player("p-new")
    assert 0 < await raw.ttl(keys.player("p-new")) <= 100
    await store.add_stats("p-new", hands=1, points=12)
    assert 100 < await raw.ttl(keys.player("p-new")) <= 10_000
    assert await store.touch_player("p-new")
    assert 100 < await raw.ttl(keys.player("p-new")) <= 10_000
