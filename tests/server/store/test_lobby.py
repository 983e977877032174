"""Invites and quick match."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
from redis.asyncio import Redis

from server import keys
from server.store import QuickMatch, QuickMatchStatus, Store
from server.store._base import as_text
from tests.support.fixtures import StoreFactory

PAIRED, QUEUED, WAITING = QuickMatchStatus.PAIRED, QuickMatchStatus.QUEUED, QuickMatchStatus.WAITING


async def test_invites(store: Store, raw: Redis) -> None:
    assert await store.put_invite("ABC123", "r1", 600)
    assert await store.resolve_invite("ABC123") == "r1"
    assert not await store.put_invite("ABC123", "r2", 600)  # a code in use is not taken over
    assert await store.resolve_invite("ABC123") == "r1"
    assert 0 < await raw.pttl(keys.invite("ABC123")) <= 600_000
    assert await store.resolve_invite("NOPE") is None
    assert await store.delete_invite("ABC123")
    assert not await store.delete_invite("ABC123")
    assert await store.resolve_invite("ABC123") is None
    with pytest.raises(ValueError):
        await store.put_invite("X", "r1", 0)


async def test_invites_expire(store: Store) -> None:
    assert await store.put_invite("SHORT", "r1", 0.2)
    assert await store.resolve_invite("SHORT") == "r1"
    for _ in range(100):  # bounded wait for the expiry
        if await store.resolve_invite("SHORT") is None:
            break
        await asyncio.sleep(0.05)
    assert await store.resolve_invite("SHORT") is None
    assert await store.put_invite("SHORT", "r2", 60)  # an expired code can be reused


async def test_quick_match_pairs_the_second_player(store: Store) -> None:
    assert await store.quick_match("p1", "room-p1") == QuickMatch(QUEUED, "room-p1")
    assert await store.quick_match("p1", "room-p1b") == QuickMatch(WAITING, "room-p1")
    assert await store.quick_match_waiting() == 1
    assert await store.quick_match("p2", "room-p2") == QuickMatch(PAIRED, "room-p1", "p1")
    assert await store.quick_match_waiting() == 0
    assert await store.quick_match("p3", "room-p3") == QuickMatch(QUEUED, "room-p3")
    assert await store.cancel_quick_match("p3") == "room-p3"
    assert await store.cancel_quick_match("p3") is None
    assert await store.quick_match_waiting() == 0
    assert await store.quick_match("p4", "room-p4") == QuickMatch(QUEUED, "room-p4")


async def test_two_simultaneous_joiners_make_one_pair(
    store: Store, store_factory: StoreFactory
) -> None:
    other = await store_factory()
    for round_ in range(50):
        a, b = f"a{round_}", f"b{round_}"
        ra, rb = await asyncio.gather(store.quick_match(a, f"r{a}"), other.quick_match(b, f"r{b}"))
        assert sorted([ra.status, rb.status]) == sorted([PAIRED, QUEUED])
        paired, queued = (ra, rb) if ra.status is PAIRED else (rb, ra)
        waiting_player = b if paired is ra else a
        assert paired.opponent_id == waiting_player
        assert paired.room_id == queued.room_id == f"r{waiting_player}"
        assert await store.quick_match_waiting() == 0


async def test_a_crowd_of_joiners_pairs_everyone_once(
    store: Store, store_factory: StoreFactory, raw: Redis
) -> None:
    other = await store_factory()
    players = [f"p{i}" for i in range(201)]
    results = await asyncio.gather(
        *((store if i % 2 else other).quick_match(p, f"room-{p}") for i, p in enumerate(players))
    )
    seen: Counter[str] = Counter()
    for player, result in zip(players, results, strict=True):
        assert result.status is not WAITING
        if result.status is PAIRED:
            assert result.opponent_id is not None and result.opponent_id != player
            assert result.room_id == f"room-{result.opponent_id}"
            seen[player] += 1
            seen[result.opponent_id] += 1
    queued = [p for p, r in zip(players, results, strict=True) if r.status is QUEUED]
    left = [as_text(m) for m in await raw.zrange(keys.quickmatch_queue(), 0, -1)]
    assert len(left) == 1 and left[0] not in seen
    assert set(seen) | set(left) == set(players)  # nobody lost
    assert set(seen.values()) == {1}  # nobody paired twice
    assert len(queued) == 101  # every pair had one waiting player
    assert await raw.hkeys(keys.quickmatch_rooms()) == [left[0].encode()]


async def test_cancel_racing_a_pairing_has_one_winner(
    store: Store, store_factory: StoreFactory
) -> None:
    other = await store_factory()
    outcomes: Counter[bool] = Counter()
    for round_ in range(30):
        a, b = f"a{round_}", f"b{round_}"
        await store.quick_match(a, f"r{a}")
        cancelled, joined = await asyncio.gather(
            store.cancel_quick_match(a), other.quick_match(b, f"r{b}")
        )
        if cancelled is not None:
            assert cancelled == f"r{a}" and joined == QuickMatch(QUEUED, f"r{b}")
            assert await store.cancel_quick_match(b) == f"r{b}"
        else:
            assert joined == QuickMatch(PAIRED, f"r{a}", a)
        outcomes[cancelled is None] += 1
        assert await store.quick_match_waiting() == 0
    assert sum(outcomes.values()) == 30


async def test_a_player_queued_alongside_others_is_not_left_behind(
    store: Store, raw: Redis
) -> None:
    # The script keeps at most one player waiting; should the queue ever hold more (an old
    # version, a manual edit), a pairing still takes the joiner out of it.
    await raw.zadd(keys.quickmatch_queue(), {"me": 1, "other": 2})
    await raw.hset(keys.quickmatch_rooms(), mapping={"me": "room-me", "other": "room-other"})
    assert await store.quick_match("me", "room-me2") == QuickMatch(PAIRED, "room-other", "other")
    assert await store.quick_match_waiting() == 0
    assert await raw.hlen(keys.quickmatch_rooms()) == 0
