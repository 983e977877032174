"""Quick messages in the store: a seat's allowance spent and the ``said`` frame published on
the room's channel in one step (``lua/say.lua``), reaching every process's feed as a
``RoomSaid`` between the room's changes, in publication order. Also run on a Redis Cluster
(``tests/cluster/test_store_suite.py``): there the channel is sharded."""

from __future__ import annotations

import pytest

from server import keys
from server.store import RoomSaid, RoomUpdate, Store, TalkResult, TalkStatus
from server.store.feed import decode_said_message
from server.store.talk import encode_said_message
from tests.server.store.conftest import next_item
from tests.support.fixtures import StoreFactory

FRAME = b"\x85\xa1t\xa4said:1:\x00"  # bytes with the separators in them: never parsed


async def test_a_quick_message_reaches_every_process_in_order_with_the_changes(
    store: Store, store_factory: StoreFactory
) -> None:
    other = await store_factory()  # another server process
    await store.create_room("t1", b"s0")
    async with store.feed() as here, other.feed() as there:
        await here.add("t1")
        await there.add("t1")
        assert (await store.commit("t1", 0, b"s1", b"c1")).ok
        sent = await other.say("t1", 1, FRAME, burst=3, every_seconds=60)
        assert sent == TalkResult(TalkStatus.SENT)
        assert (await store.commit("t1", 1, b"s2", b"c2")).ok
        for feed in (here, there):
            assert [await next_item(feed) for _ in range(3)] == [
                RoomUpdate("t1", 1, b"c1", b"s1"),
                RoomSaid("t1", 1, FRAME),
                RoomUpdate("t1", 2, b"c2", b"s2"),
            ]
    assert await store.room_version("t1") == 2  # a quick message is not a change


async def test_a_seats_allowance_is_shared_by_processes_and_its_own(
    store: Store, store_factory: StoreFactory
) -> None:
    other = await store_factory()
    await store.create_room("t2", b"s0")
    for writer in (store, other):
        assert (await writer.say("t2", 0, FRAME, burst=2, every_seconds=30)).status == "sent"
    for writer in (store, other):
        refused = await writer.say("t2", 0, FRAME, burst=2, every_seconds=30)
        assert refused.status is TalkStatus.LIMITED
        assert 0 < refused.retry_ms <= 30_000
    assert (await store.say("t2", 1, FRAME, burst=2, every_seconds=30)).status == "sent"


async def test_the_allowance_expires_and_a_missing_room_is_said(store: Store, raw: object) -> None:
    await store.create_room("t3", b"s0")
    assert (await store.say("t3", 0, FRAME, burst=3, every_seconds=2)).status == "sent"
    ttl = await raw.pttl(keys.room_talk("t3", 0))  # type: ignore[attr-defined]
    assert 0 < ttl <= 6_000  # full again after burst x every: nothing to keep past that
    missing = await store.say("nowhere", 0, FRAME, burst=3, every_seconds=2)
    assert missing == TalkResult(TalkStatus.MISSING)


def test_said_payloads_round_trip_and_malformed_ones_are_refused() -> None:
    assert decode_said_message(encode_said_message(1, FRAME)) == (1, FRAME)
    for bad in (b"said:", b"said:2:x", b"said:1:", b"said:01x", b"1:2:said:0:x"):
        with pytest.raises(ValueError):
            decode_said_message(bad)
    with pytest.raises(keys.InvalidId):
        keys.room_talk("t1", 2)
