"""A finished room's change stream is kept ``finished_history_seconds`` after its last change,
the rest of the room ``room_ttl_seconds``: a resume after that gets a snapshot."""

from __future__ import annotations

import asyncio

from redis.asyncio import Redis

from server import keys
from server.store import Store, StoreConfig
from tests.support.fixtures import StoreFactory


async def test_the_change_stream_of_a_finished_room_expires_before_the_room(
    store: Store, raw: Redis
) -> None:
    await store.create_room("r1", b"s0")
    assert (await store.commit("r1", 0, b"s1", b"c1", ttl_seconds=86_400)).ok
    assert await raw.pttl(keys.room_events("r1")) > 86_000_000  # in play: as long as the room
    assert (await store.commit("r1", 1, b"s2", b"c2", finished=True, ttl_seconds=86_400)).ok
    assert 0 < await raw.pttl(keys.room_events("r1")) <= 600_000
    assert await raw.pttl(keys.room("r1")) > 86_000_000
    assert await raw.pttl(keys.room_version("r1")) > 86_000_000
    # the match's records are written: the room is kept a day, its stream no longer
    assert await store.expire_room("r1", 86_400)
    assert 0 < await raw.pttl(keys.room_events("r1")) <= 600_000
    # a later change of the finished room (a rematch asked for) keeps it so
    assert (await store.commit("r1", 2, b"s3", b"c3", finished=True, ttl_seconds=86_400)).ok
    assert 0 < await raw.pttl(keys.room_events("r1")) <= 600_000
    assert await store.changes_since("r1", 1) == [(2, b"c2"), (3, b"c3")]


async def test_once_the_stream_is_gone_a_resume_gets_a_snapshot_and_changes_go_on(
    store_factory: StoreFactory, raw: Redis
) -> None:
    store = await store_factory(config=StoreConfig(finished_history_seconds=1))
    await store.create_room("r1", b"s0")
    assert (await store.commit("r1", 0, b"s1", b"c1", finished=True)).ok
    for _ in range(50):  # its TTL: a second
        if not await raw.exists(keys.room_events("r1")):
            break
        await asyncio.sleep(0.1)
    assert not await raw.exists(keys.room_events("r1"))
    assert await store.load_room("r1") == (1, b"s1")
    assert await store.changes_since("r1", 0) is None  # a snapshot
    assert await store.changes_since("r1", 1) == []
    assert (await store.commit("r1", 1, b"s2", b"c2", finished=True)).ok
    assert await store.changes_since("r1", 1) == [(2, b"c2")]
    assert await store.changes_since("r1", 0) is None
