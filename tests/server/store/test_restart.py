"""A Redis restart or crash: rooms survive (AOF) and feeds resume."""

from __future__ import annotations

import asyncio

from server.store import CommitStatus, FeedReconnected, RoomUpdate, Store, StoreConfig
from tests.server.store.conftest import next_item
from tests.support.redis_server import RedisServer

FAST = StoreConfig(feed_reconnect_min=0.02, feed_reconnect_max=0.2)


async def test_rooms_survive_a_restart_and_the_feed_resumes(private_redis: RedisServer) -> None:
    async with await Store.connect(private_redis.url, FAST) as store:
        await store.create_room("r1", b"s0")
        assert (await store.commit("r1", 0, b"s1", b"c1", "p:1")).ok
        async with store.feed() as feed:
            await feed.add("r1")
            await asyncio.to_thread(private_redis.restart)
            assert await next_item(feed, 10) == FeedReconnected(frozenset({"r1"}))
            assert await store.load_room("r1") == (1, b"s1")
            assert await store.changes_since("r1", -1) == [(0, b""), (1, b"c1")]
            # the script cache is empty after the restart: EVALSHA falls back to SCRIPT LOAD
            assert (await store.commit("r1", 1, b"s2", b"c2", "p:1")).status is (
                CommitStatus.DUPLICATE
            )
            assert (await store.commit("r1", 1, b"s2", b"c2", "p:2")).ok
            assert await next_item(feed) == RoomUpdate("r1", 2, b"c2", b"s2")


async def test_acknowledged_commits_survive_a_crash(private_redis: RedisServer) -> None:
    async with await Store.connect(private_redis.url, FAST) as store:
        await store.create_room("r1", b"s0")
        for v in range(20):
            assert (await store.commit("r1", v, b"s%d" % (v + 1), b"c", f"p:{v}")).ok
        await store.create_player("p1", "hash", "Ann")
        await asyncio.to_thread(private_redis.restart, crash=True)  # SIGKILL, then start
        assert await store.load_room("r1") == (20, b"s20")
        assert len(await store.changes_since("r1", 0) or []) == 20
        assert (await store.commit("r1", 20, b"x", b"x", "p:19")).status is (CommitStatus.DUPLICATE)
        player = await store.get_player("p1")
        assert player is not None and player.name == "Ann"
        assert await store.ping()
    private_redis.stop()


async def test_ping_reports_a_missing_redis(private_redis: RedisServer) -> None:
    config = StoreConfig(retries=0, socket_connect_timeout=0.5)
    async with await Store.connect(private_redis.url, config) as store:
        assert await store.ping()
        private_redis.stop()
        assert not await store.ping()
