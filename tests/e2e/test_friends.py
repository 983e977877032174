"""Friends and presence on two server processes over one Redis (``server.friends``,
``server.presence``): a request by handle answered on the other process, two requests that
cross, a decline and a removal, each refusal with its code; and each friend's presence
(online, playing with a watch link only for a public room, offline since when) as the other
process wrote it, read again until it shows (how soon, against the 2 s of issue 26, on a real
page: ``python -m bench.presence``)."""

from __future__ import annotations

import asyncio
import time

import pytest

from client.session import Session
from server.store import Store
from tests.support.accounts import acall
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.friends import (
    ask,
    friends_list,
    friends_post,
    handles,
    member,
    presence_of,
    until_presence,
)
from tests.support.players import close_all

#: The processes' presence validity in the crash test (``GIN_PRESENCE_SECONDS``; 30 s by
#: default): the same lapse, ten times sooner.
VALID_SECONDS = 3.0


@pytest.mark.shared_server
async def test_a_request_accepted_on_another_process_makes_two_friends_online(
    server_factory: ServerFactory,
) -> None:
    one, two = server_factory(env=FAST_CLIENT_ENV), server_factory(env=FAST_CLIENT_ENV)
    ada, ada_token = await member(one, "Ada_Friend")
    bob, bob_token = await member(two, "Bob_Friend")
    try:
        assert await ask(one, ada_token, "bob_friend") == "asked"  # any case of the handle
        assert await ask(one, ada_token, "Bob_Friend") == "asked"  # asked again: the same
        bobs = await friends_list(two, bob_token)
        assert handles(bobs["received"]) == ["Ada_Friend"] and bobs["friends"] == []
        assert handles((await friends_list(one, ada_token))["sent"]) == ["Bob_Friend"]
        assert "presence" not in bobs["received"][0]  # a request shows no presence

        status, reply = await friends_post(two, bob_token, "/accept", handle="Ada_Friend")
        assert (status, reply) == (200, {"status": "friends"})
        for server, token, other in (
            (one, ada_token, "Bob_Friend"),
            (two, bob_token, "Ada_Friend"),
        ):
            listed = await friends_list(server, token)
            assert handles(listed["friends"]) == [other]
            assert listed["received"] == [] and listed["sent"] == []
            assert listed["friends"][0]["presence"] == {"state": "online"}
        assert await ask(one, ada_token, "Bob_Friend") == "friends"
    finally:
        await close_all(ada, bob)


@pytest.mark.shared_server
async def test_requests_that_cross_make_friends_at_once(server_factory: ServerFactory) -> None:
    one, two = server_factory(env=FAST_CLIENT_ENV), server_factory(env=FAST_CLIENT_ENV)
    pairs = []
    for index in range(6):
        ada, ada_token = await member(one, f"Ada_Cross{index}")
        bob, bob_token = await member(two, f"Bob_Cross{index}")
        await close_all(ada, bob)
        pairs.append((ada_token, bob_token, index))
    for ada_token, bob_token, index in pairs:
        words = await asyncio.gather(
            ask(one, ada_token, f"Bob_Cross{index}"), ask(two, bob_token, f"Ada_Cross{index}")
        )
        assert "friends" in words, words  # the later of the two found the other's request
        for server, token, other in (
            (one, ada_token, f"Bob_Cross{index}"),
            (two, bob_token, f"Ada_Cross{index}"),
        ):
            listed = await friends_list(server, token)
            assert handles(listed["friends"]) == [other], listed
            assert listed["received"] == [] and listed["sent"] == [], listed


@pytest.mark.shared_server
async def test_declined_removed_and_each_refusal_with_its_code(
    server_factory: ServerFactory,
) -> None:
    one, two = server_factory(env=FAST_CLIENT_ENV), server_factory(env=FAST_CLIENT_ENV)
    ada, ada_token = await member(one, "Ada_Decline")
    bob, bob_token = await member(two, "Bob_Decline")
    guest = await Session.connect(one.ws_url, name="Gus")
    try:
        await ask(one, ada_token, "Bob_Decline")
        status, reply = await friends_post(two, bob_token, "/decline", handle="Ada_Decline")
        assert (status, reply) == (200, {"declined": True})
        assert (await friends_list(one, ada_token))["sent"] == []
        status, reply = await friends_post(two, bob_token, "/accept", handle="Ada_Decline")
        assert (status, reply["error"]) == (404, "no_friend_request")

        await ask(one, ada_token, "Bob_Decline")
        status, reply = await friends_post(one, ada_token, "/remove", handle="Bob_Decline")
        assert (status, reply) == (200, {"removed": True})  # a request taken back
        assert (await friends_list(two, bob_token))["received"] == []

        await ask(two, bob_token, "Ada_Decline")
        await friends_post(one, ada_token, "/accept", handle="Bob_Decline")
        status, reply = await friends_post(two, bob_token, "/remove", handle="Ada_Decline")
        assert (status, reply) == (200, {"removed": True})
        assert (await friends_list(one, ada_token))["friends"] == []
        assert (await friends_list(two, bob_token))["friends"] == []
        status, reply = await friends_post(two, bob_token, "/remove", handle="Ada_Decline")
        assert (status, reply) == (200, {"removed": False})

        refusals = [
            (ada_token, {"handle": "Ada_Decline"}, 400, "invalid_argument"),
            (ada_token, {"handle": "Nobody_Here"}, 404, "unknown_handle"),
            (ada_token, {"handle": "no spaces!"}, 400, "bad_handle"),
            (ada_token, {}, 400, "bad_handle"),
            (guest.token or "", {"handle": "Bob_Decline"}, 403, "account_required"),
            ("not-a-token", {"handle": "Bob_Decline"}, 401, "bad_token"),
        ]
        for token, body, code, error in refusals:
            status, reply = await friends_post(one, token, "", **body)
            assert (status, reply["error"]) == (code, error), (body, reply)
        await ada.ping()  # the connection lives on
    finally:
        await close_all(ada, bob, guest)


@pytest.mark.shared_server
async def test_presence_offline_since_and_playing_reach_the_friend_on_another_process(
    server_factory: ServerFactory,
) -> None:
    one, two = server_factory(env=FAST_CLIENT_ENV), server_factory(env=FAST_CLIENT_ENV)
    ada, ada_token = await member(one, "Ada_Presence")
    bob, bob_token = await member(two, "Bob_Presence")
    await ask(one, ada_token, "Bob_Presence")
    await friends_post(two, bob_token, "/accept", handle="Ada_Presence")
    waits = []
    try:
        assert await presence_of(one, ada_token, "Bob_Presence") == {"state": "online"}
        closed_at = int(time.time() * 1000)
        await bob.close()
        found, took = await until_presence(
            one,
            ada_token,
            "Bob_Presence",
            lambda seen: seen is not None and seen["state"] == "offline",
        )
        waits.append(took)
        assert found is not None and closed_at - 1000 <= found["seen"] <= closed_at + 2000

        bob = await Session.connect(two.ws_url, token=bob_token)
        guest = await Session.connect(one.ws_url, name="Gus")
        for public in (True, False):
            options = {"public": True} if public else {}
            created = await bob.request(
                "create_room", mode="private", rules={"target": 10}, **options
            )
            room = created.result["room"]
            await guest.request("join_room", invite=created.result["invite"])
            found, took = await until_presence(
                one,
                ada_token,
                "Bob_Presence",
                lambda seen: seen is not None and seen["state"] == "playing",
            )
            waits.append(took)
            assert found == (
                {"state": "playing", "watch": f"/room/{room}"} if public else {"state": "playing"}
            )
            await bob.request("leave", room=room)
            await guest.request("leave", room=room)
            found, took = await until_presence(
                one, ada_token, "Bob_Presence", lambda seen: seen == {"state": "online"}
            )
            waits.append(took)
        await guest.close()
        print(
            f"presence reached the friend in {max(waits) * 1000:.0f} ms at most"
            f" ({len(waits)} changes)"
        )
    finally:
        await close_all(ada, bob)


async def test_a_process_that_dies_takes_its_players_offline_within_its_presence_ttl(
    server_factory: ServerFactory,
) -> None:
    env = {**FAST_CLIENT_ENV, "GIN_PRESENCE_SECONDS": str(VALID_SECONDS)}
    one, two = server_factory(env=env), server_factory(env=env)
    ada, ada_token = await member(one, "Ada_Crash")
    bob, bob_token = await member(two, "Bob_Crash")
    await ask(one, ada_token, "Bob_Crash")
    await friends_post(two, bob_token, "/accept", handle="Ada_Crash")
    try:
        assert await presence_of(one, ada_token, "Bob_Crash") == {"state": "online"}
        await two.akill()  # nothing written on the way out: Bob's entry lapses
        killed_at = int(time.time() * 1000)
        lapse = VALID_SECONDS + 2.0  # the entry lapses, then one reading
        found, took = await until_presence(
            one,
            ada_token,
            "Bob_Crash",
            lambda seen: seen is not None and seen["state"] == "offline",
            timeout=lapse,
        )
        assert found is not None
        renewed = VALID_SECONDS / 3 * 1000 + 2000  # seen: the last renewal before the crash
        assert killed_at - renewed <= found["seen"] <= killed_at, (found, killed_at)
        print(f"offline {took:.1f} s after the process died")
    finally:
        await close_all(ada, bob)


@pytest.mark.shared_server
async def test_a_deleted_account_leaves_no_friend_nor_request_behind(
    server_factory: ServerFactory, redis_url: str
) -> None:
    one = server_factory(env=FAST_CLIENT_ENV)
    ada, ada_token = await member(one, "Ada_Stays")
    bob, bob_token = await member(one, "Bob_Leaves")
    cy, cy_token = await member(one, "Cy_Asked")
    await ask(one, ada_token, "Bob_Leaves")
    await friends_post(one, bob_token, "/accept", handle="Ada_Stays")
    await ask(one, bob_token, "Cy_Asked")
    store = await Store.connect(redis_url)
    try:
        status, reply = await acall(one.http_url, "/api/account/delete", {}, token=bob_token)
        assert (status, reply) == (200, {"deleted": True})
        assert (await friends_list(one, ada_token))["friends"] == []
        assert (await friends_list(one, cy_token))["received"] == []
        for player in (ada.player_id, cy.player_id):
            standing = await store.friend_standing(str(player))
            assert standing.friends == standing.received == standing.sent == {}, standing
    finally:
        await store.close()
        await close_all(ada, bob, cy)


@pytest.mark.shared_server
async def test_a_request_from_the_table_names_the_other_seat_each_refusal_with_its_code(
    server_factory: ServerFactory,
) -> None:
    one = server_factory(env=FAST_CLIENT_ENV)
    ada, ada_token = await member(one, "Ada_Table")
    bob, bob_token = await member(one, "Bob_Table")
    guest = await Session.connect(one.ws_url, name="Gus")
    outsider, outsider_token = await member(one, "Oz_Outside")
    try:
        created = await ada.request("create_room", mode="private", rules={"target": 10})
        room = created.result["room"]
        await bob.request("join_room", invite=created.result["invite"])
        with_guest = await ada.request("create_room", mode="private", rules={"target": 10})
        await guest.request("join_room", invite=with_guest.result["invite"])
        ai_room = await ada.request("create_room", mode="ai", level="easy")

        status, reply = await friends_post(one, ada_token, "", room=room, seat=1)
        assert (status, reply) == (200, {"status": "asked"})
        assert handles((await friends_list(one, bob_token))["received"]) == ["Ada_Table"]
        status, reply = await friends_post(one, bob_token, "", room=room, seat=0)
        assert (status, reply) == (200, {"status": "friends"})  # the two requests cross

        refusals = [
            (ada_token, {"room": with_guest.result["room"], "seat": 1}, 403, "not_an_account"),
            (ada_token, {"room": ai_room.result["room"], "seat": 1}, 400, "invalid_argument"),
            (ada_token, {"room": room, "seat": 0}, 403, "not_a_player"),  # her own seat
            (ada_token, {"room": room, "seat": 2}, 400, "invalid_argument"),
            (outsider_token, {"room": room, "seat": 0}, 403, "not_a_player"),
            (ada_token, {"room": "rNoSuchRoom01", "seat": 1}, 404, "not_found"),
        ]
        for token, body, want_status, code in refusals:
            status, reply = await friends_post(one, token, "", **body)
            assert (status, reply["error"]) == (want_status, code), (body, reply)
    finally:
        await close_all(ada, bob, guest, outsider)
