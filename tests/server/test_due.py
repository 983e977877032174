"""The periodic work looks only at the rooms whose time has come (``server.due``): a turn clock
that ran out, an away player's grace that ended. Its cost grows with what is due, not with the
rooms a process follows."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest_asyncio

from server.ai_seats import AiSeatKeeper
from server.blobs import RoomBlobs, decode_room, encode_change
from server.commits import Commits
from server.connection import Connection
from server.due import DueRooms, due_times
from server.hub import Hub
from server.limits import Limits
from server.periodic import Upkeep
from server.ratelimit import TokenBucket
from server.room import Room, Seat, create_room, join
from server.settings import Settings
from server.store import Store
from tests.support.seeds import seed_of

GRACE = 20.0


def _room(room_id: str, now: float, *, turn_seconds: int = 30) -> Room:
    room, _ = create_room(
        room_id=room_id, mode="private", creator=Seat(player="pA", name="A"), seed=seed_of(3),
        now=now, invite="I" + room_id, turn_seconds=turn_seconds,
    )  # fmt: skip
    joined, _, _ = join(room, Seat(player="pB", name="B"), now)
    return joined


# --- the schedule alone ------------------------------------------------------------------------


def test_a_room_is_due_at_its_turn_clock_or_an_away_players_grace() -> None:
    room = replace(_room("r1", 1000.0), turn_deadline=1030.0)
    assert due_times(room, GRACE) == [1030.0]
    away = replace(room.seats[1], away_since=1001.0)
    room = replace(room, seats=(room.seats[0], away))
    assert sorted(due_times(room, GRACE)) == [1021.0, 1030.0]
    assert due_times(replace(room, turn_deadline=None, seats=_present(room)), GRACE) == []


def _present(room: Room) -> tuple[Seat, Seat]:
    return (replace(room.seats[0], away_since=None), replace(room.seats[1], away_since=None))


def test_only_the_rooms_whose_time_came_are_due_each_once() -> None:
    due = DueRooms(GRACE)
    for index in range(100):
        due.changed(f"r{index}", replace(_room(f"r{index}", 0.0), turn_deadline=100.0 + index))
    assert due.pop_due(99.0) == []
    assert due.pop_due(102.0) == ["r0", "r1", "r2"]
    assert due.pop_due(102.0) == []  # looked at: not again until changed or rescheduled
    assert len(due) == 97


def test_a_changed_room_moves_and_its_old_time_is_forgotten() -> None:
    due = DueRooms(GRACE)
    room = replace(_room("r1", 0.0), turn_deadline=10.0)
    due.changed("r1", room)
    for step in range(1, 500):  # a room played on: each move a new deadline
        due.changed("r1", replace(room, turn_deadline=10.0 + step))
    assert due.pop_due(400.0) == []
    assert due.pop_due(509.0) == ["r1"]
    due.changed("r2", room)
    due.changed("r2", None)  # no longer followed
    assert due.pop_due(1e9) == []


def test_a_past_time_is_due_at_once_after_a_change_but_not_after_a_look() -> None:
    due = DueRooms(GRACE)
    away = replace(_room("r1", 0.0), turn_deadline=50.0)
    away = replace(away, seats=(away.seats[0], replace(away.seats[1], away_since=5.0)))
    due.changed("r1", away)  # the grace ended at 25: due at once
    assert due.pop_due(30.0) == ["r1"]
    due.looked_at("r1", away, 30.0)  # nothing to do then: next, the turn clock
    assert due.pop_due(49.0) == []
    assert due.pop_due(50.0) == ["r1"]
    due.looked_at("r1", away, 50.0)  # every time has passed: not due until it changes
    assert due.pop_due(1e9) == []
    due.retry("r1", 60.0)
    assert due.pop_due(60.0) == ["r1"]


# --- the periodic work of a process --------------------------------------------------------------


@pytest_asyncio.fixture(loop_scope="function")
async def upkeep(store: Store) -> AsyncIterator[Upkeep]:
    feed = store.feed()
    await feed.start()
    hub = Hub(store, feed)
    hub.start()
    settings = Settings(disconnect_grace_seconds=GRACE)
    blobs = RoomBlobs()
    commits = Commits(store, hub, blobs, settings, Limits(store, settings))
    yield Upkeep(store, hub, commits, settings, AiSeatKeeper(store, hub, 30.0))
    await hub.stop()
    await feed.close()


def _follower() -> Connection:
    async def send(frame: bytes) -> None:
        return None

    async def close(code: int) -> None:
        return None

    return Connection(send, close, TokenBucket(1000, 1000, time.monotonic()), "watcher")


async def _follow(store: Store, hub: Hub, conn: Connection, room: Room) -> None:
    blob = RoomBlobs().encode_room(room)
    assert await store.create_room(room.id, blob, encode_change(0, [], None))
    subscription = await hub.follow(conn, room.id, None, -1)
    await hub.catch_up(conn, subscription)


async def test_the_periodic_work_looks_only_at_the_rooms_that_are_due(
    store: Store, upkeep: Upkeep
) -> None:
    """200 followed rooms, 3 of whose turn clocks ran out: the periodic work looks at those 3,
    plays their default move, and looks at none the next time round."""
    hub = upkeep._hub
    conn = _follower()
    now = time.time()
    expired = {f"rDUE{index}" for index in range(3)}
    for index in range(200):
        room_id = f"rDUE{index}"
        room = _room(room_id, now - 60)
        deadline = now - 1 if room_id in expired else now + 3600
        await _follow(store, hub, conn, replace(room, turn_deadline=deadline))
    assert len(upkeep.due) == 200
    assert await upkeep.handle_due() == 3
    for index in range(200):
        loaded = await store.load_room(f"rDUE{index}")
        assert loaded is not None
        assert loaded[0] == (1 if f"rDUE{index}" in expired else 0), index
        if loaded[0] == 1:
            assert decode_room(loaded[1]).turn_deadline != now - 1  # the clock runs again
    assert await upkeep.handle_due() == 0
    await hub.drop(conn)
    assert len(upkeep.due) == 0
