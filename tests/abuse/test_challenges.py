"""Challenges, attacked (``docs/security.md``, "Challenges"), on two server processes: a flood
of challenges meets the per-sender cap and then the rate limit, each with its own code, counted
across processes; and a challenge tells a stranger or a blocked player nothing of the other's
presence: its answers are the same whether the one challenged is online, offline or at a
table, and a block gets the same neutral refusal as a setting that takes no challenge."""

from __future__ import annotations

from typing import Any

from server.challenges import CHALLENGE_REQUESTS, MAX_OPEN, NEUTRAL_REFUSAL
from tests.support.accounts import acall
from tests.support.challenges import challenges_post, inbox, set_who
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.friends import member
from tests.support.players import close_all

ENV = {**FAST_CLIENT_ENV, "GIN_NEW_PLAYERS_PER_MINUTE": "1000"}
PRESENCE_WORDS = ("presence", "online", "offline", "playing", "seen", "watch")
#: What differs between any two challenges, whoever they go to.
OWN_FIELDS = ("id", "at", "deadline", "seconds_left", "to")


def shows_no_presence(reply: dict[str, Any]) -> bool:
    text = str(reply)
    return not any(word in text for word in PRESENCE_WORDS)


def without_own_fields(entry: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in entry.items() if key not in OWN_FIELDS}


async def test_a_challenge_flood_is_capped_then_limited_across_processes(
    server_factory: ServerFactory,
) -> None:
    one, two = server_factory(env=ENV), server_factory(env=ENV)
    flooder, token = await member(one, "Flo_Chal")
    tia, tia_token = await member(two, "Tia_Chal")
    try:
        await set_who(two, tia_token, "everyone")
        codes = []
        for index in range(CHALLENGE_REQUESTS + 1):
            server = (one, two)[index % 2]  # the count is in Redis: both processes share it
            status, reply = await challenges_post(server, token, "", handle="Tia_Chal")
            codes.append(reply.get("challenge", {}).get("state") or reply["error"])
        assert codes == (
            ["open"] * MAX_OPEN
            + ["too_many_challenges"] * (CHALLENGE_REQUESTS - MAX_OPEN)
            + ["too_many_challenge_requests"]
        )
        assert status == 429 and reply["detail"]["limit"] == CHALLENGE_REQUESTS
        assert len((await inbox(two, tia_token))["received"]) == MAX_OPEN  # no more reach her
        sent = (await inbox(one, token))["sent"]
        status, reply = await challenges_post(one, token, "/cancel", id=sent[0]["id"])
        assert status == 200, reply
        status, reply = await challenges_post(two, token, "", handle="Tia_Chal")
        assert (status, reply["error"]) == (429, "too_many_challenge_requests")  # still limited
        await flooder.ping()  # the websocket lives on
    finally:
        await close_all(flooder, tia)


async def test_a_challenge_never_tells_presence_to_a_stranger_or_a_blocked_player(
    server_factory: ServerFactory,
) -> None:
    one, two = server_factory(env=ENV), server_factory(env=ENV)
    stranger, token = await member(one, "Sam_Stranger")
    online, online_token = await member(two, "Ona_Online")
    offline, offline_token = await member(two, "Off_Offline")
    playing, playing_token = await member(two, "Pia_Playing")
    await offline.close()
    await playing.request("create_room", mode="ai", level="easy")  # at a table
    targets = (
        ("Ona_Online", online_token),
        ("Off_Offline", offline_token),
        ("Pia_Playing", playing_token),
    )
    try:
        # friends only (the default): the same refusal, whoever is online
        refusals = [await challenges_post(one, token, "", handle=h) for h, _ in targets]
        assert refusals == [(403, {"error": "challenge_refused", "message": NEUTRAL_REFUSAL})] * 3

        # everyone: each challenge stored and shown alike
        for _, target_token in targets:
            await set_who(two, target_token, "everyone")
        sent = []
        for handle, _ in targets:
            status, reply = await challenges_post(one, token, "", handle=handle)
            assert status == 200, reply
            assert shows_no_presence(reply), reply
            sent.append(without_own_fields(reply["challenge"]))
        assert (
            sent[0]
            == sent[1]
            == sent[2]
            == {
                "rated": False,
                "turn_seconds": 30,
                "target": 100,
                "state": "open",
            }
        )
        listed = await inbox(one, token)
        assert shows_no_presence(listed), listed
        assert {entry["state"] for entry in listed["sent"]} == {"open"}
        for _, target_token in targets:
            received = await inbox(two, target_token)
            assert shows_no_presence(received), received
        for entry in listed["sent"]:
            await challenges_post(one, token, "/cancel", id=entry["id"])

        # a block, a setting of nobody, an offline player: one neutral refusal
        status, reply = await acall(
            two.http_url, "/api/blocks", {"handle": "Sam_Stranger"}, token=online_token
        )
        assert status == 200, reply
        await acall(two.http_url, "/api/blocks", {"handle": "Sam_Stranger"}, token=playing_token)
        await set_who(two, offline_token, "nobody")
        refusals = [await challenges_post(one, token, "", handle=h) for h, _ in targets]
        assert refusals == [(403, {"error": "challenge_refused", "message": NEUTRAL_REFUSAL})] * 3
        # and the blocked one's challenge to the blocker: the same refusal, from the other side
        await set_who(one, token, "everyone")
        status, reply = await challenges_post(two, online_token, "", handle="Sam_Stranger")
        assert (status, reply) == (403, {"error": "challenge_refused", "message": NEUTRAL_REFUSAL})
    finally:
        await close_all(stranger, online, playing)
