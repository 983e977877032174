"""The live list and the watcher counts in Redis (``server.store.live``): counts of several
processes add up, a count past its time and a count of 0 stop counting, the list is newest
first, capped, and forgets what nobody renewed; only the rooms someone watches cost a read."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from redis.asyncio import Redis

from server import keys
from server.store import Store


async def test_watcher_counts_of_several_processes_add_up(store: Store) -> None:
    await store.set_watchers("pA", {"r1": 2, "r2": 1}, 10_000)
    await store.set_watchers("pB", {"r1": 3}, 10_000)
    assert await store.watcher_counts(["r1", "r2", "r3"]) == {"r1": 5, "r2": 1, "r3": 0}
    await store.set_watchers("pA", {"r1": 0}, 10_000)  # process A's watchers of r1 left
    assert await store.watcher_counts(["r1", "r2"]) == {"r1": 3, "r2": 1}


async def test_a_count_not_renewed_in_time_stops_counting(store: Store, raw: Redis) -> None:
    await store.set_watchers("pDead", {"r1": 4}, 200)
    await store.set_watchers("pLive", {"r1": 1}, 10_000)
    assert await store.watcher_counts(["r1"]) == {"r1": 5}
    await asyncio.sleep(0.3)  # the dead process renews nothing
    assert await store.watcher_counts(["r1"]) == {"r1": 1}
    assert 0 < await raw.pttl(keys.room_watchers("r1")) <= 10_000  # the hash expires too


async def hgetall_calls(raw: Any) -> int:
    """HGETALL commands served so far by the test's Redis (every node of a cluster)."""
    if isinstance(raw, Redis):
        per_node = [await raw.info("commandstats")]
    else:
        await raw.initialize()  # a cluster client knows its nodes once it has asked one
        per_node = [await raw.info("commandstats", target_nodes=node) for node in raw.get_nodes()]
    return sum(int(stats.get("cmdstat_hgetall", {}).get("calls", 0)) for stats in per_node)


async def test_only_the_rooms_someone_watches_are_read(store: Store, raw: Redis) -> None:
    followed = [f"f{index}" for index in range(300)]
    await store.set_watchers("pA", {"f7": 2}, 10_000)
    await store.set_watchers("pB", {"f9": 1, "f11": 0}, 10_000)
    before = await hgetall_calls(raw)
    counts = await store.watcher_counts(followed)
    assert counts == {**dict.fromkeys(followed, 0), "f7": 2, "f9": 1}
    assert await hgetall_calls(raw) - before == 2  # f7 and f9, not one read per room followed
    assert await store.watcher_counts([]) == {}


async def test_a_room_whose_counts_all_lapsed_leaves_the_watched_index(
    store: Store, raw: Redis
) -> None:
    await store.set_watchers("pDead", {"w1": 4}, 200)
    await store.set_watchers("pLive", {"w2": 1}, 10_000)
    assert await raw.zscore(keys.rooms_watched(), "w1") is not None
    await asyncio.sleep(0.3)
    await store.set_watchers("pLive", {"w2": 1}, 10_000)  # any renewal trims the index
    assert await raw.zscore(keys.rooms_watched(), "w1") is None
    assert await raw.zscore(keys.rooms_watched(), "w2") is not None
    assert await store.watcher_counts(["w1", "w2"]) == {"w1": 0, "w2": 1}


async def test_the_live_list_is_newest_first_capped_and_forgets(store: Store) -> None:
    now = int(time.time() * 1000)
    await store.mark_live(["old"], now - 60_000)
    await store.mark_live([f"r{index}" for index in range(30)], now - 1000)
    await store.mark_live(["newest"], now)
    listed = await store.live_rooms(20, now - 10_000)
    assert len(listed) == 20 and listed[0] == "newest"
    assert "old" not in await store.live_rooms(100, now - 10_000)
    await store.drop_live(["newest"])
    assert "newest" not in await store.live_rooms(100, now - 10_000)
    # what nobody renewed is gone for good, not only skipped
    assert "old" not in await store.live_rooms(100, now - 120_000)
