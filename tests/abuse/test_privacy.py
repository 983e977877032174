"""Private and AI rooms are private (issue #18, item 4), tried by a stranger, Mallory, against
a real server: she reads the public lists (lobby, ``GET /api/hands``) for room ids, then tries
every way in with an id alone — ``watch``, ``resume``, ``join_room {room}`` — and reads what an
invite join of a full room answers. Each attempt must get nothing: ``not_found``, as for a room
that does not exist. The players and whoever they gave the watch link keep their ways in."""

from __future__ import annotations

import asyncio
import random

from client.session import Session
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.players import close_all, expect_error, play, private_match
from tests.support.server_process import ServerProcess


async def finish_a_hand(a: Session, b: Session, room: str) -> None:
    """Play the room until its first hand is over (both seats, seeded)."""

    def hand_over(view: dict[str, object]) -> bool:
        game = view.get("game")
        return isinstance(game, dict) and bool(game.get("results"))

    players = [
        asyncio.create_task(play(session, room, random.Random(f"privacy/{seat}")))
        for seat, session in enumerate((a, b))
    ]
    try:
        await a.wait_for(room, hand_over, timeout=60)
    finally:
        for task in players:
            task.cancel()
        await asyncio.gather(*players, return_exceptions=True)


async def listed_rooms(server: ServerProcess, mallory: Session) -> set[str]:
    """Every room id a stranger can read from the public lists."""
    lobby = (await mallory.request("lobby")).result
    status, body = await server.aget_json("/api/hands?limit=100")
    assert status == 200, body
    entries = [*lobby["recent_hands"], *lobby.get("my_hands", []), *body["hands"]]
    return {entry["room"] for entry in entries}


async def test_a_stranger_finds_no_private_room_in_the_lists_and_cannot_watch_it(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    ada, bob, room = await private_match(server.ws_url, server.ws_url, target=500)
    mallory = await Session.connect(server.ws_url, name="Mallory")
    try:
        await finish_a_hand(ada, bob, room)
        assert room not in await listed_rooms(server, mallory)
        # She got the room id some other way (a shoulder, a log): still nothing.
        await expect_error("not_found", mallory.request("watch", room=room))
        await expect_error("not_found", mallory.request("resume", room=room, last_seq=-1))
        guessed = "kq3P0wZr5Yx8bH1mN2aT4g"
        await expect_error("not_found", mallory.request("watch", room=room, watch_token=guessed))
        await expect_error(
            "not_found", mallory.request("watch", room="r-no-such-room", watch_token=guessed)
        )
        assert mallory.room(room).log == []  # not one frame of the room reached her
    finally:
        await close_all(ada, bob, mallory)


async def test_a_stranger_cannot_watch_an_ai_room_by_its_id(server_factory: ServerFactory) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    ada = await Session.connect(server.ws_url, name="Ada")
    mallory = await Session.connect(server.ws_url, name="Mallory")
    try:
        room = (await ada.request("create_room", mode="ai", level="easy")).result["room"]
        await expect_error("not_found", mallory.request("watch", room=room))
        await expect_error("not_found", mallory.request("resume", room=room, last_seq=-1))
    finally:
        await close_all(ada, mallory)


async def test_the_free_seat_of_a_private_room_needs_the_invite_not_the_room_id(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    ada = await Session.connect(server.ws_url, name="Ada")
    mallory = await Session.connect(server.ws_url, name="Mallory")
    bob = await Session.connect(server.ws_url, name="Bob")
    try:
        created = (await ada.request("create_room", mode="private")).result
        room = created["room"]
        await expect_error("not_found", mallory.request("join_room", room=room))
        view = await ada.wait_for(room, lambda v: v["seats"] is not None)
        assert view["seats"][1]["open"], "Mallory took the free seat by room id"
        joined = await bob.request("join_room", invite=created["invite"])
        assert joined.result == {"room": room, "seat": 1}
        # Ada's own seat by room id (a reload of the page): still hers.
        again = await ada.request("join_room", room=room)
        assert again.result == {"room": room, "seat": 0}
    finally:
        await close_all(ada, mallory, bob)


async def test_an_invite_to_a_full_room_is_refused_without_naming_the_room(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    ada, bob, room = await private_match(server.ws_url, server.ws_url)
    mallory = await Session.connect(server.ws_url, name="Mallory")
    try:
        invite = (await ada.wait_for(room, lambda v: "invite" in v))["invite"]
        refusal = await expect_error("room_full", mallory.request("join_room", invite=invite))
        said = f"{refusal.message} {refusal.detail!r}"
        assert room not in said, f"the refusal names the room: {said}"
    finally:
        await close_all(ada, bob, mallory)


async def test_the_watch_link_lets_a_friend_watch_and_the_players_see_their_own_hands(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    ada, bob, room = await private_match(server.ws_url, server.ws_url, target=500)
    friend = await Session.connect(server.ws_url, name="Friend")
    mallory = await Session.connect(server.ws_url, name="Mallory")
    try:
        view = await ada.wait_for(room, lambda v: "watch_token" in v)
        token = view["watch_token"]
        assert (await bob.wait_for(room, lambda v: "watch_token" in v))["watch_token"] == token
        watched = await friend.request("watch", room=room, watch_token=token)
        assert watched.result["room"] == room
        seen = await friend.wait_for(room, lambda v: v["game"] is not None)
        assert "watch_token" not in seen and "invite" not in seen
        await finish_a_hand(ada, bob, room)
        await friend.wait_for(room, lambda v: bool(v["game"]["results"]))
        # The friend reconnects: the session resumes with the token and keeps watching.
        await friend.resume(room)
        hand = f"{room}-1"
        for player in (ada, bob):
            mine = (await player.request("lobby")).result["my_hands"]
            assert [entry["id"] for entry in mine] == [hand]
        lobby = (await mallory.request("lobby")).result
        assert lobby["my_hands"] == [] and room not in await listed_rooms(server, mallory)
        # A replay link is a capability: whoever is given the hand's id may replay it.
        status, record = await server.aget_json(f"/api/hands/{hand}")
        assert status == 200 and record["hand"] == 1
    finally:
        await close_all(ada, bob, friend, mallory)


async def test_public_rooms_stay_open_to_everyone(server_factory: ServerFactory) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    ada, bob, room = await private_match(server.ws_url, server.ws_url, target=500, public=True)
    mallory = await Session.connect(server.ws_url, name="Mallory")
    try:
        await finish_a_hand(ada, bob, room)
        assert room in await listed_rooms(server, mallory)
        await mallory.request("watch", room=room)
        await mallory.wait_for(room, lambda v: v["game"] is not None)
        queued = await ada.request("quick_match")
        room_q = queued.result["room"]
        await mallory.request("watch", room=room_q)  # a quick-match room is public
    finally:
        await close_all(ada, bob, mallory)
