"""Challenges on a Redis Cluster: two server processes in cluster mode, the two players on
different processes; the challenge, its acceptance and the lists run in the ``{challenges}``
slot, the one challenged is nudged on the other process, and the room it makes is seated like
any room (its own ``{room:ID}`` slot)."""

from __future__ import annotations

from protocol import messages as m
from tests.cluster.conftest import CLUSTER_ENV
from tests.support.challenges import (
    befriend,
    challenge,
    challenges_post,
    inbox,
    next_nudge,
    nudges_in,
    until_sent,
)
from tests.support.fixtures import ServerFactory
from tests.support.friends import member
from tests.support.players import close_all


async def test_a_rated_challenge_accepted_across_processes_on_a_cluster(
    server_factory: ServerFactory,
) -> None:
    one, two = server_factory(env=CLUSTER_ENV), server_factory(env=CLUSTER_ENV)
    ada, ada_token = await member(one, "Ada_ClusterChal")
    bob, bob_token = await member(two, "Bob_ClusterChal")
    try:
        await befriend(one, ada_token, two, bob_token, "Bob_ClusterChal", "Ada_ClusterChal")
        declined = await challenge(one, ada_token, "Bob_ClusterChal")
        assert (await challenges_post(two, bob_token, "/decline", id=declined["id"]))[0] == 200
        nudges_in(bob)
        sent = await challenge(one, ada_token, "Bob_ClusterChal", rated=True, turn_seconds=120)
        assert await next_nudge(bob) == m.Nudge(about="challenges")  # over the cluster's pub/sub
        received = (await inbox(two, bob_token))["received"]
        assert [entry["id"] for entry in received] == [sent["id"]]

        status, reply = await challenges_post(two, bob_token, "/accept", id=sent["id"])
        assert status == 200 and reply["rated"] is True, reply
        room_id = reply["room"]
        accepted = await until_sent(one, ada_token, sent["id"], lambda e: e["state"] != "open")
        assert (accepted["state"], accepted["room"]) == ("accepted", room_id)
        states = {e["id"]: e["state"] for e in (await inbox(one, ada_token))["sent"]}
        assert states == {declined["id"]: "declined", sent["id"]: "accepted"}
        for session, seat in ((ada, 0), (bob, 1)):
            ack = await session.resume(room_id, -1)
            assert ack.result["seat"] == seat
            view = await session.wait_for(room_id, lambda v: v["status"] == "playing")
            assert view["seat"] == seat and view["rated"] is True
            assert view["turn_seconds"] == 120
    finally:
        await close_all(ada, bob)
