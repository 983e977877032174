"""Room feeds: commits reach every server process subscribed to the room."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st
from redis.asyncio import Redis

from server.store import (
    FeedReconnected,
    RoomUpdate,
    Store,
    StoreConfig,
    decode_room_message,
    encode_room_message,
)
from tests.server.store.conftest import next_item
from tests.support.fixtures import StoreFactory

# Blobs with the separator, newlines and NUL bytes in them: the payload must not care.
STATE = b"state:\x00\n:1"
CHANGE = b"12:change\x00:"


async def test_a_commit_reaches_another_process(store: Store, store_factory: StoreFactory) -> None:
    other = await store_factory()  # another server process
    await other.create_room("r1", b"s0")
    async with store.feed() as feed:
        await feed.add("r1")
        assert feed.rooms == {"r1"}
        assert (await other.commit("r1", 0, STATE, CHANGE)).ok
        assert await next_item(feed) == RoomUpdate("r1", 1, CHANGE, STATE)


async def test_each_process_sees_the_others_commits(
    store: Store, store_factory: StoreFactory
) -> None:
    other = await store_factory()
    await store.create_room("r1", b"s0")
    async with store.feed() as feed_a, other.feed() as feed_b:
        await feed_a.add("r1")
        await feed_b.add("r1")
        for v in range(10):
            writer = store if v % 2 else other
            assert (await writer.commit("r1", v, b"s%d" % (v + 1), b"c%d" % (v + 1))).ok
        for feed in (feed_a, feed_b):
            got = [await next_item(feed) for _ in range(10)]
            assert got == [RoomUpdate("r1", s, b"c%d" % s, b"s%d" % s) for s in range(1, 11)]


async def test_refused_commits_publish_nothing(store: Store) -> None:
    await store.create_room("r1", b"s0")
    async with store.feed() as feed:
        await feed.add("r1")
        assert (await store.commit("r1", 0, b"s1", b"c1", "k1")).ok
        assert not (await store.commit("r1", 0, b"x", b"stale")).ok
        assert not (await store.commit("r1", 1, b"x", b"dup", "k1")).ok
        assert (await store.commit("r1", 1, b"s2", b"c2")).ok
        assert [(await next_item(feed)).seq for _ in range(2)] == [1, 2]  # type: ignore[union-attr]
        assert feed._queue.empty()


async def test_removed_rooms_are_not_delivered(store: Store) -> None:
    await store.create_room("r1", b"s0")
    await store.create_room("r2", b"s0")
    async with store.feed() as feed:
        await feed.add("r1")
        await feed.add("r2")
        assert (await store.commit("r1", 0, b"a", b"queued-before-remove")).ok
        # wait until that update is surely queued: r2's commit comes after it
        assert (await store.commit("r2", 0, b"b", b"marker")).ok
        for _ in range(100):
            if feed._queue.qsize() >= 2:
                break
            await asyncio.sleep(0.01)
        await feed.remove("r1")
        assert (await store.commit("r1", 1, b"a2", b"after-remove")).ok
        assert (await store.commit("r2", 1, b"b2", b"r2-second")).ok
        assert await next_item(feed) == RoomUpdate("r2", 1, b"marker", b"b")
        assert await next_item(feed) == RoomUpdate("r2", 2, b"r2-second", b"b2")
        assert feed.rooms == {"r2"}


async def test_feed_reconnects_after_losing_its_connection(store: Store, raw: Redis) -> None:
    await store.create_room("r1", b"s0")
    async with store.feed() as feed:
        await feed.add("r1")
        killed = await raw.client_kill_filter(_type="pubsub")
        assert killed >= 1
        item = await next_item(feed)
        assert item == FeedReconnected(frozenset({"r1"}))
        assert (await store.commit("r1", 0, b"s1", b"c1")).ok
        assert await next_item(feed) == RoomUpdate("r1", 1, b"c1", b"s1")


async def test_close_ends_iteration(store: Store) -> None:
    feed = store.feed()
    await feed.start()
    await feed.add("r1")
    reader = asyncio.create_task(anext(feed))
    await asyncio.sleep(0)
    await feed.close()
    with pytest.raises(StopAsyncIteration):
        await asyncio.wait_for(reader, 5)


@given(st.integers(min_value=0, max_value=10**12), st.binary(), st.binary())
def test_room_message_round_trip(seq: int, change: bytes, state: bytes) -> None:
    assert decode_room_message(encode_room_message(seq, change, state)) == (seq, change, state)


@pytest.mark.parametrize(
    "payload", [b"", b"1", b"1:", b"x:0:", b"1:x:", b"-1:0:", b"1:5:abc", b"1:-1:abc"]
)
def test_malformed_room_messages_are_refused(payload: bytes) -> None:
    with pytest.raises(ValueError):
        decode_room_message(payload)


async def test_an_idle_feed_stays_connected(store_factory: StoreFactory) -> None:
    store = await store_factory(config=StoreConfig(feed_ping_interval=0.25))
    await store.create_room("r1", b"s0")
    async with store.feed() as feed:
        await feed.add("r1")
        await asyncio.sleep(1.1)  # four ping intervals of silence, each PING answered
        assert (await store.commit("r1", 0, b"s1", b"c1")).ok
        assert await next_item(feed) == RoomUpdate("r1", 1, b"c1", b"s1")


async def test_an_unanswered_ping_makes_the_feed_reconnect(
    store_factory: StoreFactory, raw: Redis
) -> None:
    store = await store_factory(config=StoreConfig(feed_ping_interval=0.05))
    await store.create_room("r1", b"s0")
    async with store.feed() as feed:
        await feed.add("r1")
        await raw.client_pause(1000, all=True)  # Redis stops answering for 1 s
        assert await next_item(feed) == FeedReconnected(frozenset({"r1"}))
        assert (await store.commit("r1", 0, b"s1", b"c1")).ok
        assert await next_item(feed) == RoomUpdate("r1", 1, b"c1", b"s1")
