"""Challenges on two server processes over one Redis (``server.challenges``): a challenge sent on
one process and answered on the other; accepted, both are seated in one new room with the
challenge's terms (rated or casual, the turn clock, the match target), said to both before;
declined, cancelled and expired, each seen by the sender; each change nudging the other
player's connections on every process; the per-sender cap, the profile setting (nobody,
friends only, everyone) and blocks either way, each refusal with its own code."""

from __future__ import annotations

import pytest

from client.session import RequestError, Session
from protocol import messages as m
from server.blobs import decode_room
from server.challenges import MAX_OPEN
from server.store import Store
from tests.support.accounts import acall
from tests.support.challenges import (
    befriend,
    challenge,
    challenges_post,
    inbox,
    next_nudge,
    nudges_in,
    set_who,
    until_sent,
)
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.friends import member
from tests.support.players import close_all


@pytest.mark.shared_server
async def test_a_rated_challenge_accepted_on_another_process_seats_both_in_one_new_room(
    server_factory: ServerFactory, store: Store
) -> None:
    one, two = server_factory(env=FAST_CLIENT_ENV), server_factory(env=FAST_CLIENT_ENV)
    ada, ada_token = await member(one, "Ada_Chal")
    bob, bob_token = await member(two, "Bob_Chal")
    try:
        await befriend(one, ada_token, two, bob_token, "Bob_Chal", "Ada_Chal")
        sent = await challenge(one, ada_token, "bob_chal", rated=True, turn_seconds=60, target=250)
        assert sent["state"] == "open" and sent["to"]["handle"] == "Bob_Chal"
        assert (sent["rated"], sent["turn_seconds"], sent["target"]) == (True, 60, 250)
        assert 0 < sent["seconds_left"] <= 60

        bobs = await inbox(two, bob_token)
        assert [entry["id"] for entry in bobs["received"]] == [sent["id"]]
        received = bobs["received"][0]
        assert received["from"] == {"handle": "Ada_Chal", "name": "Ada"}
        assert (received["rated"], received["turn_seconds"], received["target"]) == (
            True,
            60,
            250,
        )
        assert (await inbox(one, ada_token))["received"] == []  # the sender's inbox: empty

        status, reply = await challenges_post(two, bob_token, "/accept", id=sent["id"])
        assert status == 200, reply
        assert (reply["seat"], reply["rated"]) == (1, True)
        room_id = reply["room"]
        accepted = await until_sent(one, ada_token, sent["id"], lambda e: e["state"] != "open")
        assert (accepted["state"], accepted["room"]) == ("accepted", room_id)
        assert (await inbox(two, bob_token))["received"] == []

        loaded = await store.load_room(room_id)
        assert loaded is not None
        room = decode_room(loaded[1])
        assert room.status == "playing" and room.mode == "private" and room.rated
        assert room.turn_seconds == 60 and room.invite is None and not room.public
        assert room.rules.target == 250
        assert [seat.player for seat in room.seats] == [ada.player_id, bob.player_id]
        assert room.ratings is not None and all(entry is not None for entry in room.ratings)
        for session, seat in ((ada, 0), (bob, 1)):  # each page goes to the table: its seat
            ack = await session.resume(room_id, -1)
            assert ack.result["seat"] == seat
            view = await session.wait_for(room_id, lambda v: v["status"] == "playing")
            assert view["seat"] == seat

        status, reply = await challenges_post(two, bob_token, "/accept", id=sent["id"])
        assert (status, reply["error"], reply["detail"]) == (
            404,
            "no_challenge",
            {"state": "accepted"},
        )
    finally:
        await close_all(ada, bob)


@pytest.mark.shared_server
async def test_a_casual_challenge_without_a_clock(
    server_factory: ServerFactory, store: Store
) -> None:
    one = server_factory(env=FAST_CLIENT_ENV)
    ada, ada_token = await member(one, "Ada_Casual")
    bob, bob_token = await member(one, "Bob_Casual")
    try:
        await set_who(one, bob_token, "everyone")
        sent = await challenge(one, ada_token, "Bob_Casual", turn_seconds=0)
        assert (sent["rated"], sent["turn_seconds"], sent["target"]) == (False, 0, 100)
        status, reply = await challenges_post(one, bob_token, "/accept", id=sent["id"])
        assert status == 200 and reply["rated"] is False, reply
        loaded = await store.load_room(reply["room"])
        assert loaded is not None
        room = decode_room(loaded[1])
        assert (room.rated, room.turn_seconds, room.turn_bank, room.status) == (
            False,
            0,
            0,
            "playing",
        )
        assert room.rules.target == 100  # no target asked: the default match
        default = await challenge(one, ada_token, "Bob_Casual")  # no clock asked: the server's
        assert default["turn_seconds"] == 30
    finally:
        await close_all(ada, bob)


@pytest.mark.shared_server
async def test_declined_and_cancelled_each_seen_by_the_other_and_closed(
    server_factory: ServerFactory,
) -> None:
    one, two = server_factory(env=FAST_CLIENT_ENV), server_factory(env=FAST_CLIENT_ENV)
    ada, ada_token = await member(one, "Ada_Answer")
    bob, bob_token = await member(two, "Bob_Answer")
    try:
        await befriend(one, ada_token, two, bob_token, "Bob_Answer", "Ada_Answer")
        first = await challenge(one, ada_token, "Bob_Answer")
        status, reply = await challenges_post(two, bob_token, "/decline", id=first["id"])
        assert (status, reply) == (200, {"declined": True})
        declined = await until_sent(one, ada_token, first["id"], lambda e: True)
        assert declined["state"] == "declined" and "room" not in declined
        status, reply = await challenges_post(two, bob_token, "/accept", id=first["id"])
        assert (status, reply["error"]) == (404, "no_challenge")

        second = await challenge(one, ada_token, "Bob_Answer")
        status, reply = await challenges_post(two, bob_token, "/cancel", id=second["id"])
        assert (status, reply["error"]) == (404, "no_challenge")  # only the sender cancels
        status, reply = await challenges_post(one, ada_token, "/cancel", id=second["id"])
        assert (status, reply) == (200, {"cancelled": True})
        assert (await inbox(two, bob_token))["received"] == []
        status, reply = await challenges_post(two, bob_token, "/accept", id=second["id"])
        assert (status, reply["error"], reply["detail"]) == (
            404,
            "no_challenge",
            {"state": "cancelled"},
        )
        status, reply = await challenges_post(one, ada_token, "/accept", id=second["id"])
        assert (status, reply["error"]) == (404, "no_challenge")  # not the sender's to accept

        for body, error in (({"id": "no such id!"}, "invalid_argument"), ({}, "invalid_argument")):
            status, reply = await challenges_post(two, bob_token, "/accept", **body)
            assert (status, reply["error"]) == (400, error)
        status, reply = await challenges_post(two, bob_token, "/accept", id="unknownId")
        assert (status, reply["error"]) == (404, "no_challenge")
    finally:
        await close_all(ada, bob)


async def test_an_expired_challenge_cannot_be_accepted(server_factory: ServerFactory) -> None:
    one = server_factory(env={**FAST_CLIENT_ENV, "GIN_CHALLENGE_SECONDS": "1"})
    ada, ada_token = await member(one, "Ada_Expire")
    bob, bob_token = await member(one, "Bob_Expire")
    try:
        await set_who(one, bob_token, "everyone")
        sent = await challenge(one, ada_token, "Bob_Expire")
        assert sent["seconds_left"] <= 1
        expired = await until_sent(one, ada_token, sent["id"], lambda e: e["state"] != "open")
        assert expired["state"] == "expired"
        assert (await inbox(one, bob_token))["received"] == []
        status, reply = await challenges_post(one, bob_token, "/accept", id=sent["id"])
        assert (status, reply["error"]) == (410, "challenge_timed_out")
        status, reply = await challenges_post(one, bob_token, "/decline", id=sent["id"])
        assert (status, reply["error"]) == (410, "challenge_timed_out")
        # an expired challenge is open no more: the sender's cap counts it out
        for _ in range(MAX_OPEN):
            await challenge(one, ada_token, "Bob_Expire")
    finally:
        await close_all(ada, bob)


@pytest.mark.shared_server
async def test_the_default_challenge_lasts_a_minute(server_factory: ServerFactory) -> None:
    one = server_factory(env=FAST_CLIENT_ENV)
    ada, ada_token = await member(one, "Ada_Minute")
    bob, bob_token = await member(one, "Bob_Minute")
    try:
        await set_who(one, bob_token, "everyone")
        sent = await challenge(one, ada_token, "Bob_Minute")
        assert sent["deadline"] - sent["at"] == 60_000
    finally:
        await close_all(ada, bob)


@pytest.mark.shared_server
async def test_a_sender_has_at_most_three_open_challenges(server_factory: ServerFactory) -> None:
    one = server_factory(env=FAST_CLIENT_ENV)
    ada, ada_token = await member(one, "Ada_Cap")
    targets = [await member(one, f"Tom_Cap{index}") for index in range(MAX_OPEN + 1)]
    try:
        for _, token in targets:
            await set_who(one, token, "everyone")
        sent = [await challenge(one, ada_token, f"Tom_Cap{index}") for index in range(MAX_OPEN)]
        status, reply = await challenges_post(one, ada_token, "", handle=f"Tom_Cap{MAX_OPEN}")
        assert (status, reply["error"], reply["detail"]) == (
            409,
            "too_many_challenges",
            {"limit": MAX_OPEN},
        )
        assert (await inbox(one, targets[MAX_OPEN][1]))["received"] == []
        assert (await challenges_post(one, ada_token, "/cancel", id=sent[0]["id"]))[0] == 200
        await challenge(one, ada_token, f"Tom_Cap{MAX_OPEN}")  # one cancelled: room again
    finally:
        await close_all(ada, *(session for session, _ in targets))


@pytest.mark.shared_server
async def test_who_may_challenge_nobody_friends_only_everyone(
    server_factory: ServerFactory,
) -> None:
    one = server_factory(env=FAST_CLIENT_ENV)
    ada, ada_token = await member(one, "Ada_Who")
    bob, bob_token = await member(one, "Bob_Who")
    cy, cy_token = await member(one, "Cy_Who")
    guest = await Session.connect(one.ws_url, name="Gus")
    try:
        await befriend(one, ada_token, one, bob_token, "Bob_Who", "Ada_Who")
        status, reply = await acall(one.http_url, "/api/challenges/setting", token=bob_token)
        assert (status, reply) == (200, {"who": "friends"})  # the default
        await challenge(one, ada_token, "Bob_Who")  # a friend: taken
        status, reply = await challenges_post(one, cy_token, "", handle="Bob_Who")
        assert (status, reply["error"]) == (403, "challenge_refused")  # not a friend

        await set_who(one, bob_token, "everyone")
        await challenge(one, cy_token, "Bob_Who")
        await set_who(one, bob_token, "nobody")
        for token in (ada_token, cy_token):  # nobody: not even a friend
            status, reply = await challenges_post(one, token, "", handle="Bob_Who")
            assert (status, reply["error"]) == (403, "challenge_refused")
        assert len((await inbox(one, bob_token))["received"]) == 2  # those sent before

        refusals: list[tuple[str, str, dict[str, object], int, str]] = [
            (bob_token, "/setting", {"who": "strangers"}, 400, "invalid_argument"),
            (ada_token, "", {"handle": "Ada_Who"}, 400, "invalid_argument"),
            (ada_token, "", {"handle": "Nobody_Here"}, 404, "unknown_handle"),
            (ada_token, "", {"handle": "Cy_Who", "rated": "yes"}, 400, "invalid_argument"),
            (ada_token, "", {"handle": "Cy_Who", "turn_seconds": -1}, 400, "invalid_argument"),
            (ada_token, "", {"handle": "Cy_Who", "turn_seconds": 3601}, 400, "invalid_argument"),
            (ada_token, "", {"handle": "Cy_Who", "target": 0}, 400, "invalid_argument"),
            (ada_token, "", {"handle": "Cy_Who", "target": 10_001}, 400, "invalid_argument"),
            (ada_token, "", {"handle": "Cy_Who", "target": "100"}, 400, "invalid_argument"),
            (ada_token, "", {"handle": "Cy_Who", "target": True}, 400, "invalid_argument"),
            (guest.token or "", "", {"handle": "Bob_Who"}, 403, "account_required"),
            ("not-a-token", "", {"handle": "Bob_Who"}, 401, "bad_token"),
        ]
        for token, path, body, code, error in refusals:
            status, reply = await challenges_post(one, token, path, **body)
            assert (status, reply["error"]) == (code, error), (body, reply)
            if "target" in body:
                assert reply["message"].startswith("target:"), reply
        status, reply = await acall(one.http_url, "/api/challenges", token=guest.token)
        assert (status, reply["error"]) == (403, "account_required")
    finally:
        await close_all(ada, bob, cy, guest)


@pytest.mark.shared_server
async def test_a_block_either_way_refuses_the_challenge_like_a_setting(
    server_factory: ServerFactory,
) -> None:
    one, two = server_factory(env=FAST_CLIENT_ENV), server_factory(env=FAST_CLIENT_ENV)
    ada, ada_token = await member(one, "Ada_Blocked")
    bob, bob_token = await member(two, "Bob_Blocker")
    try:
        await set_who(one, ada_token, "everyone")
        await set_who(two, bob_token, "everyone")
        early = await challenge(one, ada_token, "Bob_Blocker")  # before the block
        status, reply = await acall(
            two.http_url, "/api/blocks", {"handle": "Ada_Blocked"}, token=bob_token
        )
        assert status == 200, reply
        for server, token, other in (
            (one, ada_token, "Bob_Blocker"),
            (two, bob_token, "Ada_Blocked"),
        ):
            status, reply = await challenges_post(server, token, "", handle=other)
            assert (status, reply) == (
                403,
                {
                    "error": "challenge_refused",
                    "message": "this player takes no challenge from you now",
                },
            )
        assert (await inbox(two, bob_token))["received"] == []  # the early one: no longer shown
        status, reply = await challenges_post(two, bob_token, "/accept", id=early["id"])
        assert (status, reply["error"]) == (404, "no_challenge")
    finally:
        await close_all(ada, bob)


@pytest.mark.shared_server
async def test_a_challenge_of_a_player_banned_since_is_no_longer_open(
    server_factory: ServerFactory, store: Store
) -> None:
    one = server_factory(env=FAST_CLIENT_ENV)
    ada, ada_token = await member(one, "Ada_Banned")
    bob, bob_token = await member(one, "Bob_Banned")
    try:
        await set_who(one, bob_token, "everyone")
        sent = await challenge(one, ada_token, "Bob_Banned")
        assert len((await inbox(one, bob_token))["received"]) == 1
        assert ada.player_id is not None
        await store.set_ban(ada.player_id, {"by": "test", "reason": "abuse", "at": 1})
        assert (await inbox(one, bob_token))["received"] == []
        status, reply = await challenges_post(one, bob_token, "/accept", id=sent["id"])
        assert (status, reply["error"]) == (404, "no_challenge")
    finally:
        await close_all(ada, bob)


async def test_accepting_counts_the_room_for_both_within_their_limits(
    server_factory: ServerFactory,
) -> None:
    one = server_factory(env={**FAST_CLIENT_ENV, "GIN_MAX_OPEN_ROOMS": "1"})
    ada, ada_token = await member(one, "Ada_Rooms")
    bob, bob_token = await member(one, "Bob_Rooms")
    try:
        await set_who(one, bob_token, "everyone")
        sent = await challenge(one, ada_token, "Bob_Rooms")
        for session in (bob, ada):  # each in turn at the limit: nothing made, still open
            room = (await session.request("create_room", mode="private")).result["room"]
            status, reply = await challenges_post(one, bob_token, "/accept", id=sent["id"])
            assert (status, reply["error"], reply["detail"]) == (
                409,
                "too_many_rooms",
                {"limit": 1},
            )
            assert [e["id"] for e in (await inbox(one, bob_token))["received"]] == [sent["id"]]
            await session.request("leave", room=room)
        status, reply = await challenges_post(one, bob_token, "/accept", id=sent["id"])
        assert status == 200, reply
        for session in (ada, bob):  # the challenge's room counts for each of them
            with pytest.raises(RequestError) as refusal:
                await session.request("create_room", mode="private")
            assert refusal.value.code == "too_many_rooms"
    finally:
        await close_all(ada, bob)


@pytest.mark.shared_server
async def test_each_change_nudges_the_other_players_connections_on_every_process(
    server_factory: ServerFactory,
) -> None:
    one, two = server_factory(env=FAST_CLIENT_ENV), server_factory(env=FAST_CLIENT_ENV)
    ada, ada_token = await member(one, "Ada_Nudged")
    bob, bob_token = await member(two, "Bob_Nudged")
    bob_here = await Session.connect(one.ws_url, token=bob_token)  # Bob on both processes
    bob_old = await Session.connect(two.ws_url, token=bob_token, version="1.1")
    try:
        await befriend(one, ada_token, two, bob_token, "Bob_Nudged", "Ada_Nudged")
        for session in (ada, bob, bob_here, bob_old):
            nudges_in(session)
        sent = await challenge(one, ada_token, "Bob_Nudged")
        for session in (bob, bob_here):  # the one challenged: each of his connections
            assert await next_nudge(session) == m.Nudge(about="challenges")
        assert await challenges_post(two, bob_token, "/decline", id=sent["id"]) == (
            200,
            {"declined": True},
        )
        assert await next_nudge(ada) == m.Nudge(about="challenges")  # the sender: declined
        cancelled = await challenge(one, ada_token, "Bob_Nudged")
        await next_nudge(bob)
        await challenges_post(one, ada_token, "/cancel", id=cancelled["id"])
        await next_nudge(bob_here)  # cancelled: the one challenged
        accepted = await challenge(one, ada_token, "Bob_Nudged")
        await next_nudge(bob)
        status, reply = await challenges_post(two, bob_token, "/accept", id=accepted["id"])
        assert status == 200, reply
        await next_nudge(ada)  # accepted: the sender's pages go to the table
        assert nudges_in(bob_old) == []  # a 1.1 client never gets a message type it lacks
        assert nudges_in(ada) == []  # nobody is nudged of their own steps
    finally:
        await close_all(ada, bob, bob_here, bob_old)
