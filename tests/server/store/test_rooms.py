"""Rooms: create, load, the atomic commit (stale, duplicate, concurrent), history."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
from redis.asyncio import Redis

from server import keys
from server.store import CommitResult, CommitStatus, Store, StoreConfig
from server.store.rooms import REQUEST_KEY_MAX_BYTES
from tests.support.fixtures import StoreFactory


async def test_create_room_starts_history_at_zero(store: Store, raw: Redis) -> None:
    assert await store.create_room("r1", b"state-0", b"created")
    assert await store.load_room("r1") == (0, b"state-0")
    assert await store.changes_since("r1", -1) == [(0, b"created")]
    assert await raw.zscore(keys.rooms_active(), "r1") is not None
    assert await store.active_room_count() == 1
    assert await store.active_rooms() == ["r1"]


async def test_create_room_refuses_an_existing_room(store: Store) -> None:
    assert await store.create_room("r1", b"first")
    assert (await store.commit("r1", 0, b"second", b"c1")).ok
    assert not await store.create_room("r1", b"other")
    assert await store.load_room("r1") == (1, b"second")


async def test_create_room_clears_leftovers_of_an_old_room(store: Store, raw: Redis) -> None:
    await store.create_room("r1", b"s0")
    await store.commit("r1", 0, b"s1", b"c1")
    await raw.delete(keys.room("r1"))  # only the blob is gone: version and stream remain
    assert await store.create_room("r1", b"new", b"c0")
    assert await store.load_room("r1") == (0, b"new")
    assert await store.changes_since("r1", -1) == [(0, b"c0")]


async def test_a_create_request_sent_again_gets_the_room_id_it_got_first(
    store: Store, raw: Redis
) -> None:
    first = await store.room_for_request("p1", "page-7", "rA", 600)
    assert first == "rA"
    assert await store.room_for_request("p1", "page-7", "rB", 600) == "rA"  # the retry
    assert await store.room_for_request("p1", "page-8", "rC", 600) == "rC"  # a new request
    assert await store.room_for_request("p2", "page-7", "rD", 600) == "rD"  # another player's
    assert 0 < await raw.pttl(keys.player_created_rooms("p1")) <= 600_000


async def test_load_missing_room(store: Store) -> None:
    assert await store.load_room("nope") is None
    assert await store.room_version("nope") is None


async def test_commit_happy_path(store: Store, raw: Redis) -> None:
    await store.create_room("r1", b"s0")
    result = await store.commit("r1", 0, b"s1", b"change-1", "p1:1")
    assert result.ok and result.status is CommitStatus.OK and result.version == 1
    assert await store.load_room("r1") == (1, b"s1")
    assert await store.room_version("r1") == 1
    entries = await raw.xrange(keys.room_events("r1"))
    assert entries is not None and entries[-1] == (b"1-1", {b"seq": b"1", b"change": b"change-1"})
    assert await store.changes_since("r1", 0) == [(1, b"change-1")]
    assert await store.commit("r1", 1, b"s2", b"change-2") == CommitResult(CommitStatus.OK, 2)


async def test_stale_commit_changes_nothing(store: Store, raw: Redis) -> None:
    await store.create_room("r1", b"s0")
    assert (await store.commit("r1", 0, b"s1", b"c1", "a:1")).ok
    stale = await store.commit("r1", 0, b"other", b"other-change", "b:1")
    assert stale.status is CommitStatus.STALE and stale.version == 1
    assert await store.load_room("r1") == (1, b"s1")
    assert await raw.xlen(keys.room_events("r1")) == 2
    # a stale request was not applied, so its key was not recorded: it may be sent again
    assert (await store.commit("r1", 1, b"s2", b"c2", "b:1")).ok


async def test_duplicate_request_is_applied_once(store: Store, raw: Redis) -> None:
    await store.create_room("r1", b"s0")
    assert (await store.commit("r1", 0, b"s1", b"c1", "p1:7")).ok
    again = await store.commit("r1", 1, b"s2", b"c2", "p1:7")
    assert again.status is CommitStatus.DUPLICATE and again.version == 1
    assert not again.ok
    # the duplicate is reported even when the resend carries the old version
    assert (await store.commit("r1", 0, b"s1", b"c1", "p1:7")).status is CommitStatus.DUPLICATE
    assert await store.load_room("r1") == (1, b"s1")
    assert await raw.xlen(keys.room_events("r1")) == 2
    ttl_ms = await raw.pttl(keys.room_requests("r1"))
    assert 0 < ttl_ms <= 3600 * 1000
    assert (await store.commit("r1", 1, b"s2", b"c2", "p1:8")).ok


async def test_request_keys_are_forgotten_after_their_ttl(store_factory: StoreFactory) -> None:
    store = await store_factory(config=StoreConfig(request_ttl_seconds=0.2))
    await store.create_room("r1", b"s0")
    assert (await store.commit("r1", 0, b"s1", b"c1", "p1:1")).ok
    assert (await store.commit("r1", 1, b"s2", b"c2", "p1:1")).status is CommitStatus.DUPLICATE
    for _ in range(100):  # bounded wait for the expiry
        result = await store.commit("r1", 1, b"s2", b"c2", "p1:1")
        if result.status is not CommitStatus.DUPLICATE:
            break
        await asyncio.sleep(0.05)
    assert result.ok and result.version == 2


async def test_commit_on_a_missing_room(store: Store, raw: Redis) -> None:
    result = await store.commit("ghost", 0, b"s", b"c", "p:1")
    assert result.status is CommitStatus.MISSING and result.version == -1
    assert await raw.keys("{room:ghost}*") == []


async def test_finished_commit_leaves_the_active_rooms(store: Store) -> None:
    await store.create_room("r1", b"s0")
    await store.create_room("r2", b"s0")
    assert (await store.commit("r1", 0, b"s1", b"c1")).ok
    assert await store.active_room_count() == 2
    assert not (await store.commit("r1", 0, b"x", b"x", finished=True)).ok
    assert await store.active_room_count() == 2  # a refused commit finishes nothing
    assert (await store.commit("r1", 1, b"end", b"end", finished=True)).ok
    assert await store.active_rooms() == ["r2"]


async def test_commit_validates_its_arguments(store: Store) -> None:
    await store.create_room("r1", b"s0")
    with pytest.raises(TypeError):
        await store.commit("r1", 0, "text", b"c")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        await store.commit("r1", -1, b"s", b"c")
    with pytest.raises(ValueError):
        await store.commit("r1", 0, b"s", b"c", "x" * (REQUEST_KEY_MAX_BYTES + 1))
    with pytest.raises(ValueError):
        await store.commit("r1", 0, b"s", b"c", "")
    assert await store.load_room("r1") == (0, b"s0")


async def test_one_of_a_thousand_concurrent_commits_wins(
    store: Store, store_factory: StoreFactory, raw: Redis
) -> None:
    other = await store_factory()  # a second server process
    await store.create_room("hot", b"s0")
    n = 1000

    async def attempt(i: int) -> CommitStatus:
        via = store if i % 2 else other
        # 500 request keys, each sent twice: a resend of the winner's is a duplicate
        result = await via.commit("hot", 0, b"state-%d" % i, b"change-%d" % i, f"req-{i % 500}")
        return result.status

    statuses = await asyncio.gather(*(attempt(i) for i in range(n)))
    counts = Counter(statuses)
    assert counts[CommitStatus.OK] == 1
    assert counts[CommitStatus.STALE] + counts[CommitStatus.DUPLICATE] == n - 1
    assert counts[CommitStatus.DUPLICATE] <= 1
    winner = statuses.index(CommitStatus.OK)
    assert await store.load_room("hot") == (1, b"state-%d" % winner)
    assert await store.changes_since("hot", 0) == [(1, b"change-%d" % winner)]
    assert await raw.xlen(keys.room_events("hot")) == 2


async def test_changes_since(store: Store) -> None:
    await store.create_room("r1", b"s0", b"c0")
    for v in range(5):
        assert (await store.commit("r1", v, b"s%d" % (v + 1), b"c%d" % (v + 1))).ok
    assert await store.changes_since("r1", 2) == [(3, b"c3"), (4, b"c4"), (5, b"c5")]
    assert await store.changes_since("r1", 5) == []
    assert await store.changes_since("r1", -1) == [(s, b"c%d" % s) for s in range(6)]
    assert await store.changes_since("r1", 6) is None  # ahead of the room: snapshot
    assert await store.changes_since("r1", 0, limit=5) == [(s, b"c%d" % s) for s in range(1, 6)]
    assert await store.changes_since("r1", 0, limit=4) is None  # too far behind: snapshot
    assert await store.changes_since("nope", 0) is None
    with pytest.raises(ValueError):
        await store.changes_since("r1", -2)


async def test_changes_since_a_trimmed_point_asks_for_a_snapshot(
    store_factory: StoreFactory, raw: Redis
) -> None:
    store = await store_factory(config=StoreConfig(events_maxlen=10))
    await store.create_room("r1", b"s0")
    for v in range(250):
        assert (await store.commit("r1", v, b"s", b"c%d" % (v + 1))).ok
    assert await raw.xlen(keys.room_events("r1")) < 250  # the stream was capped
    assert await store.changes_since("r1", 0) is None
    assert await store.changes_since("r1", -1) is None
    assert await store.changes_since("r1", 245) == [(s, b"c%d" % s) for s in range(246, 251)]


async def test_expire_room(store: Store, raw: Redis) -> None:
    await store.create_room("r1", b"s0")
    await store.commit("r1", 0, b"s1", b"c1", "p:1")
    assert await store.expire_room("r1", 600)
    for key in keys.room_keys("r1")[:4]:
        assert 0 < await raw.ttl(key) <= 600
    assert await store.active_room_count() == 0
    assert (await store.commit("r1", 1, b"s2", b"c2", ttl_seconds=600)).ok
    assert 0 < await raw.ttl(keys.room("r1")) <= 600  # a commit sets the room's TTL again
    assert await store.expire_room("r1", 0)
    assert await store.load_room("r1") is None
    assert await raw.keys("{room:r1}*") == []
    assert not await store.expire_room("r1", 60)


# --- lifetimes: a room expires after a time with no change, never by its age ----------------


async def test_a_room_lives_its_ttl_from_creation_and_each_commit_pushes_it(
    store_factory: StoreFactory, raw: Redis
) -> None:
    store = await store_factory(config=StoreConfig(room_ttl_seconds=1000))
    await store.create_room("r1", b"s0", b"c0")
    for key in (keys.room("r1"), keys.room_version("r1"), keys.room_events("r1")):
        assert 0 < await raw.ttl(key) <= 1000, key
    for key in (keys.room("r1"), keys.room_version("r1"), keys.room_events("r1")):
        await raw.expire(key, 5)  # as if 995 s had passed without a change
    assert (await store.commit("r1", 0, b"s1", b"c1", "p:1")).ok
    for key in (keys.room("r1"), keys.room_version("r1"), keys.room_events("r1")):
        assert 5 < await raw.ttl(key) <= 1000, key
    assert await store.load_room("r1") == (1, b"s1")
    assert (await store.commit("r1", 1, b"s2", b"c2", ttl_seconds=30)).ok
    assert 0 < await raw.ttl(keys.room("r1")) <= 30


async def test_a_private_room_may_be_created_with_a_shorter_life(store: Store, raw: Redis) -> None:
    await store.create_room("r1", b"s0", ttl_seconds=60)
    for key in (keys.room("r1"), keys.room_version("r1"), keys.room_events("r1")):
        assert 0 < await raw.ttl(key) <= 60, key


async def test_a_refused_commit_leaves_the_ttl_alone(store: Store, raw: Redis) -> None:
    await store.create_room("r1", b"s0", ttl_seconds=60)
    assert (await store.commit("r1", 5, b"s1", b"c1", ttl_seconds=9999)).status is (
        CommitStatus.STALE
    )
    assert 0 < await raw.ttl(keys.room("r1")) <= 60


async def test_the_sweep_cleans_any_number_of_gone_rooms_from_the_index_in_one_run(
    store: Store, raw: Redis
) -> None:
    await raw.zadd(keys.rooms_active(), {f"gone{i}": 1000 + i for i in range(1234)})
    for name in ("old-alive", "young-alive"):
        await store.create_room(name, b"s0", ttl_seconds=100)
    await raw.zadd(keys.rooms_active(), {"old-alive": 1}, xx=True)
    cutoff = 1_000_000  # everything scored before this is due for a look
    removed = await store.sweep_active_rooms(cutoff, batch=100)
    assert removed == 1234
    assert sorted(await raw.zrange(keys.rooms_active(), 0, -1)) == [b"old-alive", b"young-alive"]
    due = await raw.zscore(keys.rooms_active(), "old-alive")
    assert due is not None and cutoff < due <= cutoff + 100_000  # when its TTL runs out
    assert await store.sweep_active_rooms(cutoff) == 0


async def test_the_sweep_gives_a_room_without_a_ttl_one(
    store_factory: StoreFactory, raw: Redis
) -> None:
    store = await store_factory(config=StoreConfig(room_ttl_seconds=100))
    await store.create_room("legacy", b"s0")
    for key in keys.room_keys("legacy")[:3]:
        await raw.persist(key)  # as rooms were made before they had a TTL
    await raw.zadd(keys.rooms_active(), {"legacy": 1}, xx=True)
    assert await store.sweep_active_rooms(1_000_000) == 0
    for key in keys.room_keys("legacy")[:3]:
        assert 0 < await raw.ttl(key) <= 100, key
