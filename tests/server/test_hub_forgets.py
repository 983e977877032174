"""A process that no longer follows a room, or whose room is finished, keeps nothing of it in
the parts its blobs and frames reuse (issue 27's soak: each finished room's last state stayed
in the part caches, about 12 KB a room, until 20,000 other rooms had passed: the servers' RSS
crept up with every match played)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from server.blobs import RoomBlobs
from server.engine import legal_actions
from server.frames import FrameParts
from server.hub import Hub
from server.reuse import Histories
from server.room import Seat, act, create_room, join, leave
from server.store import Store
from tests.server.test_hub import T0, Peer, _commit, _follow, _room, _settle
from tests.support.seeds import seed_of


@pytest_asyncio.fixture(loop_scope="function")
async def hub(store: Store) -> AsyncIterator[Hub]:
    feed = store.feed()
    await feed.start()
    made = Hub(store, feed)
    made.start()
    yield made
    await made.stop()
    await feed.close()


async def test_the_last_follower_gone_the_rooms_parts_are_forgotten(store: Store, hub: Hub) -> None:
    """Before: the room's heads, tails, record and history stayed in ``hub.parts``."""
    room = await _room(store)
    a, b = Peer("a"), Peer("b")
    for peer in (a, b):
        await _follow(hub, peer, room.id, None, 1)
    version = 1
    for _ in range(3):
        room, _events = await _commit(store, room, version)
        version += 1
    await _settle([a, b], version)
    assert a.seqs()[-1] == version, "the moves did not reach the followers"
    assert hub.parts.holds(room.id), "the frames kept no part of the room: nothing to forget"
    await hub.unfollow(a.conn, room.id)
    assert hub.parts.holds(room.id), "forgotten while b still follows the room"
    await hub.drop(b.conn)
    assert not hub.parts.holds(room.id)


async def test_a_room_no_longer_followed_leaves_no_part_in_the_stored_rooms(store: Store) -> None:
    """This process committed moves of a room (its stored blob's parts are kept), then its
    last follower here left, and another process commits the rest. Before: the stored rooms'
    parts stayed until 20,000 other rooms passed (an AI room whose person plays on another
    process than the worker's; the one-hour soak's server grew +2.2 MiB in 30 minutes)."""
    histories = Histories()
    blobs = RoomBlobs(histories)
    feed = store.feed()
    await feed.start()
    hub = Hub(store, feed, FrameParts(histories), blobs)
    hub.start()
    try:
        room = await _room(store)
        peer = Peer("a")
        await _follow(hub, peer, room.id, None, 1)
        assert room.game is not None
        seat = next(s for s in (0, 1) if legal_actions(room.game, s))
        moved, _events = act(room, seat, legal_actions(room.game, seat)[0], T0)
        blobs.encode_room(moved)  # what this process's commit of a move keeps
        assert blobs.holds(room.id), "the stored rooms kept no part: nothing to forget"
        await hub.drop(peer.conn)
        assert not blobs.holds(room.id)
    finally:
        await hub.stop()
        await feed.close()


def test_a_finished_room_leaves_no_part_in_the_stored_rooms_or_the_frames() -> None:
    """Before: the last blob's and view's parts of a finished room (and, through their
    sources, its last state) stayed; the worker's ``leave`` after the match end re-made
    them on a room no one on the process followed any more."""
    room, _events = create_room(
        room_id="rEND", mode="private", creator=Seat(player="pA", name="A"), seed=seed_of(6),
        now=T0, invite="ENDEND",
    )  # fmt: skip
    room, _events, _ = join(room, Seat(player="pB", name="B"), T0)
    histories = Histories()
    blobs, parts = RoomBlobs(histories), FrameParts(histories)
    for _ in range(4):
        assert room.game is not None
        seat = next(s for s in (0, 1) if legal_actions(room.game, s))
        room, _events = act(room, seat, legal_actions(room.game, seat)[0], T0)
        blobs.encode_room(room)
        parts.frames(room, 1).view(0)
    assert blobs.holds(room.id) and parts.holds(room.id), "nothing kept of a room in play"
    finished, _events = leave(room, 0, T0)
    assert finished.status == "finished"
    blob = blobs.encode_room(finished)
    frame = parts.frames(finished, 2).view(1)
    assert not blobs.holds(room.id) and not parts.holds(room.id)
    assert blob == RoomBlobs().encode_room(finished), "the blob differs without the parts"
    assert frame == FrameParts().frames(finished, 2).view(1)
