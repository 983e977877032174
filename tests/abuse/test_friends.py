"""Friends and presence, attacked (``docs/security.md``, "Friends and presence"), on two server
processes: a friend-request flood meets its limits, each with its own code; presence is never
shown to a stranger nor to a blocked player (in either direction, and even when the block's
second step, ending the friendship, was cut short); a blocked request gets the neutral
refusal, the same both ways."""

from __future__ import annotations

import time
from typing import Any

from server.friends import FRIEND_REQUESTS, MAX_SENT, NEUTRAL_REFUSAL
from server.store import Store
from tests.support.accounts import acall
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.friends import ask, friends_list, friends_post, handles, member
from tests.support.players import close_all

ENV = {**FAST_CLIENT_ENV, "GIN_NEW_PLAYERS_PER_MINUTE": "1000"}
PRESENCE_WORDS = ("presence", "online", "offline", "playing", "seen", "watch")


def shows_no_presence(reply: dict[str, Any]) -> bool:
    text = str(reply)
    return not any(word in text for word in PRESENCE_WORDS)


async def test_a_friend_request_flood_is_limited_each_refusal_with_its_code(
    server_factory: ServerFactory,
) -> None:
    one, two = server_factory(env=ENV), server_factory(env=ENV)
    flooder, token = await member(one, "Flo_Flood")
    targets = []
    for index in range(MAX_SENT + 1):
        session, _ = await member(two, f"Tia_Target{index}")
        await session.close()
        targets.append(f"Tia_Target{index}")
    try:
        codes = []
        for handle in targets:
            status, reply = await friends_post(one, token, "", handle=handle)
            codes.append(reply.get("status") or reply["error"])
        assert codes == ["asked"] * MAX_SENT + ["too_many_open_friend_requests"]
        assert status == 409 and reply["detail"] == {"limit": MAX_SENT}
        assert len((await friends_list(one, token))["sent"]) == MAX_SENT

        # asking the same player again is counted too: the hourly limit comes all the same
        more = []
        for _ in range(FRIEND_REQUESTS - len(targets) + 1):
            status, reply = await friends_post(two, token, "", handle=targets[0])
            more.append(reply.get("status") or reply["error"])
        assert more == ["asked"] * (FRIEND_REQUESTS - len(targets)) + ["too_many_friend_requests"]
        assert status == 429 and reply["detail"]["limit"] == FRIEND_REQUESTS
        await flooder.ping()  # the websocket lives on
    finally:
        await close_all(flooder)


async def test_presence_is_never_shown_to_a_stranger_or_a_blocked_player(
    server_factory: ServerFactory, redis_url: str
) -> None:
    one, two = server_factory(env=ENV), server_factory(env=ENV)
    ada, ada_token = await member(one, "Ada_Private")
    bob, bob_token = await member(two, "Bob_Private")
    eve, eve_token = await member(two, "Eve_Stranger")
    try:
        await ask(one, ada_token, "Bob_Private")
        await friends_post(two, bob_token, "/accept", handle="Ada_Private")
        await ask(two, eve_token, "Ada_Private")  # a stranger's request, unanswered

        eves = await friends_list(two, eve_token)
        assert eves["friends"] == [] and handles(eves["sent"]) == ["Ada_Private"]
        assert shows_no_presence(eves)
        adas = await friends_list(one, ada_token)
        assert handles(adas["received"]) == ["Eve_Stranger"]
        assert shows_no_presence(adas["received"][0])
        status, profile = await acall(two.http_url, "/api/players/@Ada_Private", token=eve_token)
        assert status == 200 and shows_no_presence(profile)

        # Ada blocks her friend Bob: each vanishes from the other's list, both ways
        status, _ = await acall(
            one.http_url, "/api/blocks", {"handle": "Bob_Private"}, token=ada_token
        )
        assert status == 200
        for server, token, other in ((one, ada_token, "Bob"), (two, bob_token, "Ada")):
            listed = await friends_list(server, token)
            assert listed["friends"] == [] and other not in str(listed), listed
        refusals = []
        for server, token, other in (
            (two, bob_token, "Ada_Private"),
            (one, ada_token, "Bob_Private"),
        ):
            refusals.append(await friends_post(server, token, "", handle=other))
        neutral = (403, {"error": "friend_request_refused", "message": NEUTRAL_REFUSAL})
        assert refusals == [neutral, neutral]  # the blocked one and the blocker alike

        # a block whose second step (ending the friendship) was cut short: still apart
        store = await Store.connect(redis_url)
        try:
            ada_id = str(ada.player_id)
            bob_id = str(bob.player_id)
            await store.remove_block(ada_id, bob_id)
            await ask(two, bob_token, "Ada_Private")
            await friends_post(one, ada_token, "/accept", handle="Bob_Private")
            assert handles((await friends_list(two, bob_token))["friends"]) == ["Ada_Private"]
            await store.add_block(ada_id, bob_id, int(time.time() * 1000))  # no end_friendship
            for server, token in ((one, ada_token), (two, bob_token)):
                listed = await friends_list(server, token)
                assert listed["friends"] == [], listed
            status, reply = await friends_post(two, bob_token, "/accept", handle="Ada_Private")
            assert (status, reply["error"]) == (404, "no_friend_request")
        finally:
            await store.close()
    finally:
        await close_all(ada, bob, eve)
