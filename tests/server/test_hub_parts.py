"""The hub's four jobs, each an object of its own (``server.hub``): the decoded-room cache,
the commits in flight, the watcher counts and the fan-out's bookkeeping. (Their work together,
over a real Redis, is ``test_hub.py``'s.)"""

from __future__ import annotations

import time

from server.connection import Connection, Subscription
from server.hub import CommitsInFlight, FanOut, Hub, RoomCache, WatcherCounts
from server.ratelimit import TokenBucket
from server.room import Room, Seat, create_room
from server.store import RoomUpdate
from tests.support.seeds import seed_of


def a_room(room_id: str = "r1") -> Room:
    room, _ = create_room(
        room_id=room_id, mode="private", creator=Seat(player="pA", name="A"), seed=seed_of(1),
        now=1000.0,
    )  # fmt: skip
    return room


def a_connection(name: str, *, worker: bool = False) -> Connection:
    async def send(frame: bytes) -> None:
        return None

    async def close(code: int) -> None:
        return None

    conn = Connection(send, close, TokenBucket(1000, 1000, time.monotonic()), name)
    conn.is_worker = worker
    return conn


def following(conn: Connection, room_id: str, seat: int | None, last_seq: int = 0) -> Connection:
    subscription = Subscription(room_id, seat, last_seq)
    subscription.started = True
    conn.rooms[room_id] = subscription
    return conn


def test_the_room_cache_holds_the_latest_copy_and_says_when_it_changes() -> None:
    cache = RoomCache()
    told: list[tuple[str, Room | None]] = []
    cache.changed = lambda room_id, room: told.append((room_id, room))
    first, second = a_room(), a_room()
    cache.keep("r1", 3, first)
    assert cache.at("r1", 3) is first and cache.at("r1", 2) is None
    cache.keep("r1", 3, first)  # the same copy: nobody is told again
    cache.keep_newer("r1", 2, second)  # older: kept out
    assert cache.latest("r1") == (3, first)
    cache.keep_newer("r1", 3, second)  # the same version: replaced (the committed room)
    assert cache.latest("r1") == (3, second)
    assert cache.rooms() == [("r1", second)]
    cache.forget("r1")
    cache.forget("r1")
    assert cache.latest("r1") is None
    assert told == [("r1", first), ("r1", second), ("r1", None)]


def test_commits_in_flight_hold_the_feeds_copy_until_the_last_is_over() -> None:
    flight = CommitsInFlight()
    update = RoomUpdate("r1", 5, b"", b"")
    assert not flight.hold(update)  # no commit of version 5 in flight
    flight.start("r1", 5)
    flight.start("r1", 5)
    assert flight.hold(update)
    assert flight.finish("r1", 5) is None  # one is still in flight
    assert flight.finish("r1", 5) is update
    assert flight.finish("r1", 5) is None
    assert not flight.hold(update)


async def test_watcher_counts_count_people_watching_and_say_which_totals_changed() -> None:
    totals: dict[str, int] = {}
    counts = WatcherCounts(totals)
    watcher, worker, player = a_connection("w"), a_connection("ai", worker=True), a_connection("p")
    followers = {
        "r1": {following(watcher, "r1", None), following(worker, "r1", None)},
        "r2": {following(player, "r2", 0)},
    }
    assert counts.local(followers, None) == {"r1": 1}
    followers["r1"].discard(watcher)
    assert counts.local(followers, None) == {"r1": 0}  # had some, has none now
    assert counts.local(followers, None) == {}
    assert counts.read({"r1": 4, "r2": 0, "r3": 9}, followers) == ["r1"]  # r3: not followed
    assert totals == {"r1": 4}
    assert counts.read({"r1": 4}, followers) == []
    counts.forget("r1")
    assert totals == {}


async def test_the_fan_out_says_who_follows_and_who_has_a_number() -> None:
    fanout = FanOut()
    behind, ahead = a_connection("b"), a_connection("a")
    for conn, seq in ((behind, 4), (ahead, 5)):
        fanout.followers["r1"].add(following(conn, "r1", 0, seq))
    assert fanout.followed("r1") and not fanout.followed("r2")
    assert not fanout.served("r1", 5)
    assert fanout.served("r1", 4)
    assert fanout.served("r2", 1)  # nobody follows it
    assert not fanout.remove(behind, "r1")
    assert "r1" not in behind.rooms
    assert fanout.served("r1", 5)
    assert fanout.remove(ahead, "r1")
    assert not fanout.followed("r1") and fanout.connections() == set()


def test_the_hub_is_made_of_them() -> None:
    assert {name for name in Hub.__init__.__code__.co_names} >= {
        "FanOut",
        "RoomCache",
        "CommitsInFlight",
        "WatcherCounts",
    }
