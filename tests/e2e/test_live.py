"""The lobby's "Live now" and the watcher counts, end to end: several server processes on one
Redis, real websocket clients. Public rooms in play are listed with how many watch them on
every process; a killed process's watchers stop counting; private and AI rooms are never
listed; the list is capped. A seat whose person follows another room instead is away."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from redis.asyncio import Redis

from client.session import Session
from server import keys
from tests.support.fixtures import FAST_CLIENT_ENV
from tests.support.players import close_all, private_match
from tests.support.polling import eventually

#: How long a condition that Upkeep makes true (every 2 s, counts valid for 10 s) may take.
PATIENCE = 40.0


def live_entry(server: Any, room: str) -> Callable[[], Awaitable[dict[str, Any] | None]]:
    async def probe() -> dict[str, Any] | None:
        status, body = await server.aget_json("/api/live")
        assert status == 200
        return next((entry for entry in body["rooms"] if entry["room"] == room), None)

    return probe


def watchers_are(count: int) -> Callable[[dict[str, Any] | None], bool]:
    return lambda entry: entry is not None and entry["watchers"] == count


async def test_a_public_room_is_listed_with_its_watchers_on_every_process(
    server_factory: Any,
) -> None:
    one = server_factory(env=FAST_CLIENT_ENV)
    two = server_factory(env=FAST_CLIENT_ENV)
    a, b, room = await private_match(one.ws_url, two.ws_url, public=True)
    watchers = [await Session.connect(url) for url in (one.ws_url, two.ws_url, two.ws_url)]
    try:
        listed = await eventually(
            live_entry(two, room), lambda entry: entry is not None, timeout=PATIENCE
        )
        assert listed is not None and listed["watchers"] == 0
        assert [seat["name"] for seat in listed["seats"]] == ["Ada", "Bob"]
        assert listed["mode"] == "private" and listed["target"] == 10
        assert listed["hand"] == 1 and listed["scores"] == [0, 0]
        for watcher in watchers:
            await watcher.request("watch", room=room)
        entry = await eventually(live_entry(one, room), watchers_are(3), timeout=PATIENCE)
        assert entry is not None and entry["watchers"] == 3
        # the players see it, each on their own process, without a move being made
        for player in (a, b):
            view = await player.wait_for(room, lambda v: v["watchers"] == 3, PATIENCE)
            assert view["watchers"] == 3
        lobby = await watchers[0].request("lobby")
        assert [item["watchers"] for item in lobby.result["live"] if item["room"] == room] == [3]
        await watchers[2].request("unfollow", room=room)
        entry = await eventually(live_entry(one, room), watchers_are(2), timeout=PATIENCE)
        assert entry is not None and entry["watchers"] == 2
    finally:
        await close_all(a, b, *watchers)


async def test_the_watchers_of_a_killed_process_stop_counting(server_factory: Any) -> None:
    one = server_factory(env=FAST_CLIENT_ENV)
    two = server_factory(env=FAST_CLIENT_ENV)
    a, b, room = await private_match(one.ws_url, one.ws_url, public=True)
    here = await Session.connect(one.ws_url)
    there = [await Session.connect(two.ws_url) for _ in range(2)]
    try:
        for watcher in (here, *there):
            await watcher.request("watch", room=room)
        entry = await eventually(live_entry(one, room), watchers_are(3), timeout=PATIENCE)
        assert entry is not None and entry["watchers"] == 3
        two.kill()  # SIGKILL: it tells nobody its watchers are gone
        entry = await eventually(live_entry(one, room), watchers_are(1), timeout=PATIENCE)
        assert entry is not None and entry["watchers"] == 1
        view = await a.wait_for(room, lambda v: v["watchers"] == 1, PATIENCE)
        assert view["watchers"] == 1
    finally:
        await close_all(a, b, here)


async def test_private_and_ai_rooms_are_never_listed(server_factory: Any) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    a, b, hidden = await private_match(server.ws_url, server.ws_url)
    _, _, shown = await private_match(server.ws_url, server.ws_url, public=True)
    token = a.view(hidden)["watch_token"]  # type: ignore[index]
    ai = await a.request("create_room", mode="ai", level="easy")
    watcher = await Session.connect(server.ws_url)
    try:
        await watcher.request("watch", room=hidden, watch_token=token)
        await watcher.request("watch", room=ai.result["room"], watch_token=ai.result["watch_token"])
        # the public room is listed: the private ones had the same time to be
        await eventually(
            live_entry(server, shown), lambda entry: entry is not None, timeout=PATIENCE
        )
        await asyncio.sleep(2.5)  # one more renewal of the list by Upkeep
        status, body = await server.aget_json("/api/live")
        assert status == 200
        listed = {entry["room"] for entry in body["rooms"]}
        assert shown in listed
        assert hidden not in listed and ai.result["room"] not in listed
        lobby = await watcher.request("lobby")
        assert {entry["room"] for entry in lobby.result["live"]} == listed
        # the private room still counts its watcher, for its players only
        view = await a.wait_for(hidden, lambda v: v["watchers"] == 1, PATIENCE)
        assert view["watchers"] == 1
    finally:
        await close_all(a, b, watcher)


async def test_the_list_is_capped(server_factory: Any) -> None:
    server = server_factory(env={**FAST_CLIENT_ENV, "GIN_MAX_OPEN_ROOMS": "40"})
    a = await Session.connect(server.ws_url, name="Ada")
    b = await Session.connect(server.ws_url, name="Bob")
    try:
        rooms = []
        for _ in range(23):
            created = await a.request("create_room", mode="private", public=True)
            await b.request("join_room", invite=created.result["invite"])
            rooms.append(created.result["room"])

        async def listing() -> list[dict[str, Any]]:
            status, body = await server.aget_json("/api/live?limit=100")
            assert status == 200
            rooms_listed: list[dict[str, Any]] = body["rooms"]
            return rooms_listed

        listed = await eventually(listing, lambda found: len(found) >= 20, timeout=PATIENCE)
        assert len(listed) == 20
        assert {entry["room"] for entry in listed} <= set(rooms)
        lobby = await a.request("lobby")
        assert len(lobby.result["live"]) == 20
    finally:
        await close_all(a, b)


async def test_a_seat_left_for_another_room_is_away_until_resumed(gin_server: Any) -> None:
    a, b, room = await private_match(gin_server.ws_url, gin_server.ws_url)
    try:
        seat = a.room(room).seat
        assert seat is not None
        await a.request("create_room", mode="ai", level="easy")
        view = b.view(room)
        assert view is not None and view["seats"][seat]["away"] is False  # a new room alone
        await a.request("unfollow", room=room)
        away = await b.wait_for(room, lambda v: v["seats"][seat]["away"])
        assert away["seats"][seat]["away"] is True
        await a.request("resume", room=room, last_seq=-1)
        back = await b.wait_for(room, lambda v: not v["seats"][seat]["away"])
        assert back["seats"][seat]["away"] is False
    finally:
        await close_all(a, b)


async def test_names_come_with_their_parts(gin_server: Any) -> None:
    nameless = await Session.connect(gin_server.ws_url)
    try:
        said = nameless.server_info
        assert said["name"].startswith("Player ")
        assert said["name_id"] == said["name"][len("Player ") :]
        created = await nameless.request("create_room", mode="ai", level="hard")
        room = created.result["room"]
        view = await nameless.wait_for(room, lambda v: v["status"] == "playing")
        me, machine = view["seats"]
        assert me["name"].startswith("Player ") and me["name_id"] == me["name"][len("Player ") :]
        assert machine["ai"] == "hard" and machine["name_id"] is None
        other = "Player " + ("zzzzz" if me["name_id"] != "zzzzz" else "yyyyy")
        renamed = await nameless.request("set_name", name=other)
        assert renamed.result == {"name": other, "name_id": None}  # chosen, though default-like
        named = await nameless.request("set_name", name="Zoë")
        assert named.result == {"name": "Zoë", "name_id": None}
    finally:
        await nameless.close()


async def test_a_private_room_put_in_the_list_by_hand_is_not_listed(
    gin_server: Any, redis_url: str
) -> None:
    a, b, hidden = await private_match(gin_server.ws_url, gin_server.ws_url)
    raw = Redis.from_url(redis_url)
    try:
        # as if a bug (or an old process) had listed it: the listing checks the stored room
        await raw.zadd(keys.rooms_live(), {hidden: int(time.time() * 1000) + 60_000})
        status, body = await gin_server.aget_json("/api/live")
        assert status == 200
        assert hidden not in {entry["room"] for entry in body["rooms"]}
        assert await raw.zscore(keys.rooms_live(), hidden) is None  # and taken off
    finally:
        await raw.aclose()
        await close_all(a, b)
