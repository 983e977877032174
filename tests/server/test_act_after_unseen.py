"""An act on a number that only an unseen change followed (a worker taking its seat, with no
events) is made again on the room as Redis holds it, even while this process has not heard of
that change (its feed is slow, or here stopped): its own copy of the room at the old number
would be refused again and again. Before, the handler acted again on that copy, a recursion
that ended in RecursionError and an ``internal`` error (the one-hour soak, under load)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import pytest_asyncio

from protocol import messages as m
from server.blobs import RoomBlobs, encode_change
from server.commits import Commits
from server.connection import Connection
from server.engine import legal_actions
from server.handlers.play import Play
from server.hub import Hub
from server.limits import Limits
from server.ratelimit import TokenBucket
from server.room import Room, Seat, create_room, join
from server.settings import Settings
from server.store import RoomFeed, Store
from tests.support.seeds import seed_of

T0 = 1_700_000_000.0


@pytest_asyncio.fixture(loop_scope="function")
async def parts(store: Store) -> AsyncIterator[tuple[Hub, RoomFeed, Play]]:
    feed = store.feed()
    await feed.start()
    hub = Hub(store, feed)
    hub.start()
    settings = Settings()
    commits = Commits(store, hub, RoomBlobs(), settings, Limits(store, settings))
    yield hub, feed, Play(store, hub, commits)
    await hub.stop()
    await feed.close()


def _player(player_id: str) -> Connection:
    async def send(frame: bytes) -> None:
        return None

    async def close(code: int) -> None:
        return None

    conn = Connection(send, close, TokenBucket(1000, 1000, time.monotonic()), player_id)
    conn.player_id = player_id
    return conn


async def _room(store: Store) -> Room:
    room, events = create_room(
        room_id="rUNSEEN", mode="private", creator=Seat(player="pA", name="A"), seed=seed_of(9),
        now=T0, invite="UNSEEN",
    )  # fmt: skip
    blobs = RoomBlobs()
    assert await store.create_room(room.id, blobs.encode_room(room), encode_change(0, events, None))
    joined, events, _ = join(room, Seat(player="pB", name="B"), T0)
    assert (
        await store.commit(room.id, 0, blobs.encode_room(joined), encode_change(1, events, 0))
    ).ok
    return joined


async def test_an_act_after_an_unseen_change_this_process_has_not_heard_of_is_applied(
    store: Store, parts: tuple[Hub, RoomFeed, Play]
) -> None:
    hub, feed, play = parts
    room = await _room(store)
    assert room.game is not None
    mover = next(seat for seat in (0, 1) if legal_actions(room.game, seat))
    player = room.seats[mover].player
    assert player is not None
    conn = _player(player)
    subscription = await hub.follow(conn, room.id, mover, 1)
    await hub.catch_up(conn, subscription)
    assert hub.cached(room.id, 1) is not None  # this process holds the room at number 1

    await feed.close()  # from now on it hears of nothing
    unseen = await store.commit(
        room.id, 1, RoomBlobs().encode_room(room), encode_change(2, [], None)
    )
    assert unseen.ok and unseen.version == 2
    assert "pass" in {action.kind for action in legal_actions(room.game, mover)}
    message = m.Act(id="after-unseen", room=room.id, seq=1, action=m.Action(kind="pass"))
    reply = await play.act(conn, message)
    assert reply.result == {"seq": 3}
    assert await store.room_version(room.id) == 3
