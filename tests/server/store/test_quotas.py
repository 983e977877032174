"""Quotas: unfinished rooms per player (``player-rooms:ID``), new players per address."""

from __future__ import annotations

import asyncio

from redis.asyncio import Redis

from server import keys
from server.store import RoomClaim, Store
from tests.support.fixtures import StoreFactory

LIMITS = {"max_rooms": 5, "max_ai_rooms": 3, "ttl_seconds": 600}


async def test_rooms_are_counted_up_to_the_limits(store: Store, raw: Redis) -> None:
    statuses = [
        (await store.claim_room("p1", f"r{i}", "people", **LIMITS)).status for i in range(6)
    ]
    assert statuses == [RoomClaim.ADDED] * 5 + [RoomClaim.TOO_MANY_ROOMS]
    assert set(await store.player_rooms("p1")) == {f"r{i}" for i in range(5)}
    assert 0 < await raw.ttl(keys.player_rooms("p1")) <= 600
    held = await store.claim_room("p1", "r3", "people", **LIMITS)
    assert held.status is RoomClaim.HELD
    assert await store.release_rooms("p1", "r3") == 1
    assert (await store.claim_room("p1", "r9", "ai", **LIMITS)).status is RoomClaim.ADDED


async def test_ai_rooms_have_a_lower_limit_and_report_how_many_came_before(
    store: Store,
) -> None:
    claims = [await store.claim_room("p1", f"a{i}", "ai", **LIMITS) for i in range(4)]
    assert [claim.status for claim in claims] == [RoomClaim.ADDED] * 3 + [
        RoomClaim.TOO_MANY_AI_ROOMS
    ]
    assert [claim.ai_rooms for claim in claims] == [0, 1, 2, 3]
    assert (await store.claim_room("p1", "x", "people", **LIMITS)).status is RoomClaim.ADDED
    assert (await store.claim_room("p2", "b0", "ai", **LIMITS)).ai_rooms == 0  # per player


async def test_concurrent_claims_from_many_stores_count_exactly(
    store_factory: StoreFactory,
) -> None:
    stores = [await store_factory() for _ in range(4)]
    claims = await asyncio.gather(
        *(stores[i % 4].claim_room("p1", f"r{i}", "people", **LIMITS) for i in range(40))
    )
    assert sum(claim.status is RoomClaim.ADDED for claim in claims) == 5
    assert len(await stores[0].player_rooms("p1")) == 5


async def test_new_players_are_counted_per_address_and_window(store: Store, raw: Redis) -> None:
    counted = [await store.count_new_player("addr1", 3, 60) for _ in range(5)]
    assert counted == [True, True, True, False, False]
    assert await raw.get(keys.new_players("addr1")) == b"3"  # a refusal counts nothing
    assert 0 < await raw.ttl(keys.new_players("addr1")) <= 60
    assert await store.count_new_player("addr2", 3, 60)
    await raw.delete(keys.new_players("addr1"))  # the window ended
    assert await store.count_new_player("addr1", 3, 60)
