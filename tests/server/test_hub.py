"""The hub's delivery: a change this process committed goes out at once (``Hub.deliver``), the
feed's copy of it is then skipped, and every follower still gets every number once, in order."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from protocol import codec
from protocol import messages as m
from server.blobs import RoomBlobs, encode_change
from server.connection import Connection, Subscription
from server.engine import legal_actions
from server.hub import Hub
from server.ratelimit import TokenBucket
from server.room import Room, Seat, act, create_room, join
from server.store import Store
from tests.support.seeds import seed_of

T0 = 1_700_000_000.0


class Peer:
    """A connection whose frames are decoded into ``received`` (raw bytes in ``raw``)."""

    def __init__(self, name: str) -> None:
        self.received: list[m.ServerMessage] = []
        self.raw: list[bytes] = []

        async def send(frame: bytes) -> None:
            self.raw.append(frame)
            self.received.append(codec.decode(frame, direction="server"))  # type: ignore[arg-type]

        async def close(code: int) -> None:
            return None

        self.conn = Connection(send, close, TokenBucket(1000, 1000, time.monotonic()), name)

    def seqs(self) -> list[int]:
        return [msg.seq for msg in self.received if isinstance(msg, m.Update)]


@pytest_asyncio.fixture(loop_scope="function")
async def hub(store: Store) -> AsyncIterator[Hub]:
    feed = store.feed()
    await feed.start()
    made = Hub(store, feed)
    made.start()
    yield made
    await made.stop()
    await feed.close()


async def _room(store: Store) -> Room:
    room, events = create_room(
        room_id="rHUB", mode="private", creator=Seat(player="pA", name="A"), seed=seed_of(5),
        now=T0,
        invite="HUBHUB",
    )  # fmt: skip
    blobs = RoomBlobs()
    assert await store.create_room(room.id, blobs.encode_room(room), encode_change(0, events, None))
    joined, events, _ = join(room, Seat(player="pB", name="B"), T0)
    blob = blobs.encode_room(joined)
    assert (await store.commit(room.id, 0, blob, encode_change(1, events, 0))).ok
    return joined


async def _commit(store: Store, room: Room, version: int) -> tuple[Room, list[dict[str, object]]]:
    assert room.game is not None
    seat = next(s for s in (0, 1) if legal_actions(room.game, s))
    changed, events = act(room, seat, legal_actions(room.game, seat)[0], T0)
    change = encode_change(version + 1, events, seat)
    blob = RoomBlobs().encode_room(changed)
    assert (await store.commit(room.id, version, blob, change)).ok
    return changed, events


async def _settle(peers: list[Peer], seq: int) -> None:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if all(peer.seqs() and peer.seqs()[-1] >= seq for peer in peers):
            await asyncio.sleep(0.1)  # and nothing more (no second copy) comes
            return
        await asyncio.sleep(0.01)


async def _follow(
    hub: Hub, peer: Peer, room_id: str, seat: int | None, last_seq: int
) -> Subscription:
    """Follow as the service does: the catch-up after the request's ack starts live updates."""
    subscription = await hub.follow(peer.conn, room_id, seat, last_seq)
    await hub.catch_up(peer.conn, subscription)
    return subscription


async def test_a_local_change_reaches_each_follower_once(store: Store, hub: Hub) -> None:
    room = await _room(store)
    seat0, seat1, spectator, again = Peer("0"), Peer("1"), Peer("s"), Peer("s2")
    for peer, seat in ((seat0, 0), (seat1, 1), (spectator, None), (again, None)):
        await _follow(hub, peer, room.id, seat, 1)
    version = 1
    for _ in range(10):
        room, events = await _commit(store, room, version)
        version += 1
        hub.deliver(room.id, version, room, events)
        # sent at once, before the feed could bring it
        assert all(peer.conn.rooms[room.id].last_seq == version for peer in (seat0, seat1))
    await _settle([seat0, seat1, spectator, again], version)
    for peer in (seat0, seat1, spectator, again):
        assert peer.seqs() == list(range(2, version + 1))
    assert spectator.raw == again.raw  # the same frames for the same recipient
    assert hub.cached(room.id, version) is room


async def test_frames_prepared_before_the_commit_are_the_ones_delivered(
    store: Store, hub: Hub
) -> None:
    room = await _room(store)
    seat0, seat1, spectator = Peer("0"), Peer("1"), Peer("s")
    for peer, seat in ((seat0, 0), (seat1, 1), (spectator, None)):
        await _follow(hub, peer, room.id, seat, 1)
    changed, events = await _commit(store, room, 1)
    frames = hub.parts.frames(changed, 2, events)
    hub.prepare(room.id, frames)
    prepared = {seat: frames.update(seat) for seat in (0, 1, None)}
    hub.deliver(room.id, 2, changed, events, frames)
    await _settle([seat0, seat1, spectator], 2)
    for peer, seat in ((seat0, 0), (seat1, 1), (spectator, None)):
        assert peer.raw[-1] == prepared[seat]
        assert peer.raw[-1] == hub.parts.frames(changed, 2, events).update(seat)


async def test_prepare_leaves_a_frame_it_cannot_make_to_deliver(
    store: Store, hub: Hub, monkeypatch: pytest.MonkeyPatch
) -> None:
    room = await _room(store)
    await _follow(hub, Peer("0"), room.id, 0, 1)
    changed, events = await _commit(store, room, 1)
    monkeypatch.setattr(codec, "MAX_SERVER_FRAME", 64)
    hub.prepare(room.id, hub.parts.frames(changed, 2, events))  # no exception


async def test_a_follower_behind_is_caught_up_by_the_feed(store: Store, hub: Hub) -> None:
    room = await _room(store)
    ahead, behind = Peer("ahead"), Peer("behind")
    await _follow(hub, ahead, room.id, 0, 1)
    behind_subscription = await hub.follow(behind.conn, room.id, 1, 0)  # has not seen 1 yet
    behind_subscription.started = True  # as after its ack, before its catch-up sent anything
    room, events = await _commit(store, room, 1)
    hub.deliver(room.id, 2, room, events)
    assert ahead.conn.rooms[room.id].last_seq == 2
    assert behind.conn.rooms[room.id].last_seq == 0  # a gap: left to the feed's copy
    await _settle([ahead, behind], 2)
    assert ahead.seqs() == [2]
    assert behind.seqs() == [1, 2]


async def test_a_follower_catching_up_is_left_to_the_feed(store: Store, hub: Hub) -> None:
    room = await _room(store)
    peer = Peer("busy")
    subscription = await _follow(hub, peer, room.id, 0, 1)
    room, events = await _commit(store, room, 1)
    async with subscription.lock:  # as during a catch-up
        hub.deliver(room.id, 2, room, events)
        assert subscription.last_seq == 1
    await _settle([peer], 2)
    assert peer.seqs() == [2]


async def test_nothing_reaches_a_follower_before_its_first_catch_up(store: Store, hub: Hub) -> None:
    """The client learns of the room from the ack, which goes out before the catch-up: an
    update sent before it would reach a client that drops it (a room it does not know)."""
    room = await _room(store)
    peer = Peer("joining")
    subscription = await hub.follow(peer.conn, room.id, 0, -1)
    room, events = await _commit(store, room, 1)
    hub.deliver(room.id, 2, room, events)
    await asyncio.sleep(0.3)  # the feed's copy arrives meanwhile
    assert peer.seqs() == [] and subscription.last_seq == -1
    await hub.catch_up(peer.conn, subscription)
    await _settle([peer], 2)
    assert peer.seqs() == [0, 1, 2]


async def test_the_committed_room_wins_over_the_feeds_copy_of_the_same_version(
    store: Store, hub: Hub
) -> None:
    """The feed's copy of a change can arrive before the commit's reply: the room decoded
    from it has no hand log, the committed one has; the hub keeps the committed one."""
    room = await _room(store)
    peer = Peer("0")
    await _follow(hub, peer, room.id, 0, 1)
    changed, _ = await _commit(store, room, 1)
    await _settle([peer], 2)  # the feed's copy came first and was decoded
    from_feed = hub.cached(room.id, 2)
    assert from_feed is not None and from_feed is not changed
    assert not from_feed.hand_log and changed.hand_log
    hub.remember(room.id, 2, changed)
    assert hub.cached(room.id, 2) is changed
    hub.remember(room.id, 1, room)  # an older version never replaces a newer one
    assert hub.cached(room.id, 2) is changed
    assert peer.seqs() == [2]


async def _feed_copy_arrives() -> None:
    await asyncio.sleep(0.2)  # the feed's copy of the commit reaches the hub meanwhile


async def test_the_feeds_copy_of_a_local_commit_waits_for_its_outcome(
    store: Store, hub: Hub
) -> None:
    room = await _room(store)
    peer = Peer("0")
    await _follow(hub, peer, room.id, 0, 1)
    hub.committing(room.id, 2)
    changed, events = await _commit(store, room, 1)
    await _feed_copy_arrives()
    assert peer.seqs() == []  # held, not decoded and delivered
    hub.committed(room.id, 2, changed)
    hub.deliver(room.id, 2, changed, events)
    await _settle([peer], 2)
    assert peer.seqs() == [2]
    assert hub.cached(room.id, 2) is changed


async def test_a_held_copy_is_delivered_when_the_local_commit_did_not_make_it(
    store: Store, hub: Hub
) -> None:
    """The commit's outcome is unknown (its reply was lost) or another change won: the
    followers get the change from the feed's copy."""
    room = await _room(store)
    peer = Peer("0")
    await _follow(hub, peer, room.id, 0, 1)
    hub.committing(room.id, 2)
    await _commit(store, room, 1)
    await _feed_copy_arrives()
    hub.committed(room.id, 2, None)
    await _settle([peer], 2)
    assert peer.seqs() == [2]


async def test_a_follower_that_deliver_skips_still_gets_the_held_copy(
    store: Store, hub: Hub
) -> None:
    room = await _room(store)
    peer = Peer("busy")
    subscription = await _follow(hub, peer, room.id, 0, 1)
    hub.committing(room.id, 2)
    changed, events = await _commit(store, room, 1)
    await _feed_copy_arrives()
    hub.committed(room.id, 2, changed)
    async with subscription.lock:  # catching up: ``deliver`` leaves it to the feed's copy
        hub.deliver(room.id, 2, changed, events)
        assert subscription.last_seq == 1
    await _settle([peer], 2)
    assert peer.seqs() == [2]
