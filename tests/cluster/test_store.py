"""The store on a real Redis Cluster (three masters, a replica each): rooms in every shard,
the sharded room feed, quick match, AI requests, hands and players; waiting for replicas; a
master killed (kill -9) while rooms of every shard are in play."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

import pytest
import redis.asyncio

from server import keys
from server.store import (
    FeedItem,
    FeedReconnected,
    ReplicationTimeout,
    RoomFeed,
    RoomUpdate,
    Store,
    StoreConfig,
)
from tests.support.fixtures import StoreFactory
from tests.support.redis_cluster import RedisCluster

#: Room ids whose slots fall on every master (there are three: some of 12 land on each).
ROOMS = [f"room{index}" for index in range(12)]


def _shards(cluster: RedisCluster, rooms: list[str]) -> dict[int, list[str]]:
    by_port: dict[int, list[str]] = {}
    for room in rooms:
        by_port.setdefault(cluster.master_of(keys.room(room)).port, []).append(room)
    return by_port


async def _next(items: AsyncIterator[FeedItem], timeout: float = 30.0) -> FeedItem:
    return await asyncio.wait_for(anext(items), timeout)


async def test_rooms_of_every_shard_commit_and_reach_another_process_feed(
    store_factory: StoreFactory, redis_cluster: RedisCluster
) -> None:
    writer, reader = await store_factory(), await store_factory(redis_cluster.urls[4])
    assert len(_shards(redis_cluster, ROOMS)) == 3
    async with reader.feed() as feed:
        for room in ROOMS:
            assert await writer.create_room(room, b"blob", b"c0")
            await feed.add(room)
        for room in ROOMS:
            assert (await writer.commit(room, 0, b"b1", b"c1", "p:1")).ok
            assert (await writer.commit(room, 0, b"b1", b"c1", "p:1")).status == "duplicate"
        got: dict[str, tuple[int, bytes, bytes]] = {}
        items = aiter(feed)
        while len(got) < len(ROOMS):
            item = await _next(items)
            assert isinstance(item, RoomUpdate), item
            got[item.room_id] = (item.seq, item.change, item.state)
        assert got == dict.fromkeys(ROOMS, (1, b"c1", b"b1"))
    for room in ROOMS:
        assert await reader.changes_since(room, -1) == [(0, b"c0"), (1, b"c1")]
        assert await reader.load_room(room) == (1, b"b1")
    assert sorted(await reader.active_rooms(100)) == sorted(ROOMS)


async def test_lobby_players_hands_and_ai_requests_on_a_cluster(store: Store) -> None:
    assert await store.create_player("p1", "hash", "Ada")
    assert await store.add_stats("p1", games=1, wins=1) == {"games": 1, "wins": 1}
    assert await store.set_player_name("p1", "Ada L")
    assert (await store.quick_match("p1", "qa")).status == "queued"
    paired = await store.quick_match("p2", "qb")
    assert (paired.status, paired.room_id, paired.opponent_id) == ("paired", "qa", "p1")
    assert await store.put_invite("code1", "qa", 60)
    assert await store.resolve_invite("code1") == "qa"
    entry = await store.request_ai_seat("qa", 1, "easy", hold_until_ms=int(time.time() * 1000))
    claimed = await store.claim_ai_requests("w1", count=5)
    assert [request.entry_id for request in claimed] == [entry]
    assert await store.superseded_ai_requests(claimed) == []
    await store.settle_ai_seat("qa", 1, entry)
    assert await store.superseded_ai_requests(claimed) == claimed
    assert await store.claim_expired_ai_leases(int(time.time() * 1000) + 1, 5) == [("qa", 1)]
    await store.save_hand("qa-1", "qa", b"record", time.time(), public=True)
    assert await store.recent_hands(5) == ["qa-1"]
    assert (await store.get_hand("qa-1")).blob == b"record"  # type: ignore[union-attr]


async def test_a_commit_waits_for_its_replica(store_factory: StoreFactory) -> None:
    store = await store_factory()
    assert await store.create_room("r1", b"blob")
    assert (await store.commit("r1", 0, b"b1", b"c1")).ok  # wait_replicas=1: one replica each
    greedy = await store_factory(
        config=StoreConfig(cluster=True, wait_replicas=2, wait_timeout_ms=200)
    )
    with pytest.raises(ReplicationTimeout):  # there is no second replica to confirm it
        await greedy.commit("r1", 1, b"b2", b"c2")


async def test_a_master_killed_in_play_only_its_rooms_resync_and_nothing_is_lost(
    store_factory: StoreFactory, redis_cluster: RedisCluster
) -> None:
    shards = _shards(redis_cluster, ROOMS)
    victim = redis_cluster.master_of(keys.room(ROOMS[0]))
    lost_rooms = set(shards[victim.port])
    # both processes were given the victim as their only startup node
    writer = await store_factory(f"redis://{victim.address}/0")
    reader = await store_factory(f"redis://{victim.address}/0")
    feed: RoomFeed = reader.feed()
    await feed.start()
    try:
        for room in ROOMS:
            await writer.create_room(room, b"blob")
            await feed.add(room)
        versions = dict.fromkeys(ROOMS, 0)
        for room in ROOMS:
            assert (await writer.commit(room, 0, b"b1", b"c1", f"{room}:1")).ok
            versions[room] = 1
        # kill -9 of the victim; its replica takes over, and once it did the victim comes
        # back as its replica (until then the victim's rooms wait: no replica to confirm)
        failover = asyncio.create_task(asyncio.to_thread(redis_cluster.fail_over, victim))
        # every room moves on: the victim's rooms once its replica took over (the commits
        # wait for it), the others at once
        for step in (2, 3):
            results = await asyncio.gather(
                *(
                    writer.commit(room, step - 1, b"b%d" % step, b"c%d" % step, f"{room}:{step}")
                    for room in ROOMS
                )
            )
            assert all(result.ok for result in results), results
        assert (await failover).port != victim.port
        resynced: set[str] = set()
        seen: dict[str, list[int]] = {room: [] for room in ROOMS}
        items = aiter(feed)
        while resynced != lost_rooms or any(
            seen[room][-1:] != [3] for room in ROOMS if room not in lost_rooms
        ):
            item = await _next(items)
            if isinstance(item, FeedReconnected):
                resynced |= item.rooms
            elif isinstance(item, RoomUpdate):
                seen[item.room_id].append(item.seq)
        assert resynced == lost_rooms  # the other shards' rooms were not disturbed
        for room in ROOMS:
            if room not in lost_rooms:
                assert seen[room] == [1, 2, 3], (room, seen[room])
        # after the resync the feed delivers the victim's rooms again
        for room in sorted(lost_rooms):
            assert (await writer.commit(room, 3, b"b4", b"c4")).ok
        delivered: set[str] = set()
        while delivered != lost_rooms:
            item = await _next(items)
            if isinstance(item, RoomUpdate) and item.seq == 4:
                delivered.add(item.room_id)
        for room in ROOMS:  # every acknowledged commit is there exactly once, in order
            changes = await reader.changes_since(room, 0)
            expected = [1, 2, 3, 4] if room in lost_rooms else [1, 2, 3]
            assert [seq for seq, _ in changes or []] == expected, (room, changes)
        while not feed.connected or not await reader.ping():
            await asyncio.sleep(0.1)
    finally:
        with contextlib.suppress(Exception):
            await feed.close()


async def test_a_room_whose_slot_moves_to_another_master_follows_it(
    store_factory: StoreFactory, redis_cluster: RedisCluster
) -> None:
    writer, reader = await store_factory(), await store_factory(redis_cluster.urls[3])
    room = ROOMS[0]
    async with reader.feed() as feed:
        assert await writer.create_room(room, b"blob")
        await feed.add(room)
        assert (await writer.commit(room, 0, b"b1", b"c1")).ok
        items = aiter(feed)
        assert await _next(items) == RoomUpdate(room, 1, b"c1", b"b1")
        target = next(
            node
            for node in redis_cluster.masters()
            if node.port != redis_cluster.master_of(keys.room(room)).port
        )
        # in migration: the old master answers ASK for the room's keys, and the new one
        # TRYAGAIN while a script names a key that is on neither (the request ids): the
        # commit waits for the end of the move
        redis_cluster.start_moving(keys.room(room), target)
        assert await writer.load_room(room) == (1, b"b1")  # ASK, followed
        during = asyncio.create_task(writer.commit(room, 1, b"b2", b"c2"))
        # moved: the old master answers MOVED and ends the feed's subscription by itself;
        # the feed subscribes at the new master and says the room must resync
        await asyncio.to_thread(redis_cluster.finish_moving, keys.room(room), target)
        assert (await during).ok
        assert (await writer.commit(room, 2, b"b3", b"c3")).ok
        item = await _next(items)
        while not isinstance(item, FeedReconnected):
            assert isinstance(item, RoomUpdate) and item.seq in (2, 3), item
            item = await _next(items)
        assert item.rooms == {room}
        assert (await writer.commit(room, 3, b"b4", b"c4")).ok
        # delivered from the new master (2 and 3 as well, if published after the resubscribe)
        item = await _next(items)
        while item != RoomUpdate(room, 4, b"c4", b"b4"):
            assert isinstance(item, RoomUpdate) and item.seq in (2, 3), item
            item = await _next(items)
    assert [seq for seq, _ in await reader.changes_since(room, 0) or []] == [1, 2, 3, 4]
    assert await reader.load_room(room) == (4, b"b4")


async def test_a_rooms_changes_reach_the_nodes_of_its_shard_only(
    store: Store, redis_cluster: RedisCluster
) -> None:
    room = ROOMS[0]
    owner = redis_cluster.master_of(keys.room(room))
    other = next(node for node in redis_cluster.masters() if node.port != owner.port)
    # a classic subscriber on another shard's master, to the room's channel and to a marker
    # published after the commit: classic messages cross the cluster bus in order, so the
    # commit's message would come before the marker's if it went to every node
    client = redis.asyncio.Redis(port=other.port)
    pubsub = client.pubsub()
    try:
        await pubsub.subscribe(keys.room_channel(room), "marker")
        assert await store.create_room(room, b"blob")
        assert (await store.commit(room, 0, b"b1", b"c1")).ok
        owner_client = redis.asyncio.Redis(port=owner.port)
        try:
            await owner_client.publish("marker", "after the commit")
        finally:
            await owner_client.aclose()
        heard: list[bytes] = []
        while not heard or heard[-1] != b"marker":
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=30)
            if message is not None:
                heard.append(message["channel"])
        assert heard == [b"marker"], heard
    finally:
        await pubsub.aclose()  # type: ignore[no-untyped-call]
        await client.aclose()
