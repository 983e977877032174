"""Friends and presence on a Redis Cluster: two server processes in cluster mode, the two
friends on different processes; the requests that cross, the acceptance and the removal run as
one script in the ``{friends}`` slot, and each process's presence writes touch one key each."""

from __future__ import annotations

import asyncio

from client.session import Session
from tests.cluster.conftest import CLUSTER_ENV
from tests.support.fixtures import ServerFactory
from tests.support.friends import ask, friends_list, friends_post, handles, member, until_presence
from tests.support.players import close_all


async def test_friends_and_presence_across_processes_on_a_cluster(
    server_factory: ServerFactory,
) -> None:
    one, two = server_factory(env=CLUSTER_ENV), server_factory(env=CLUSTER_ENV)
    ada, ada_token = await member(one, "Ada_Cluster")
    bob, bob_token = await member(two, "Bob_Cluster")
    try:
        words = await asyncio.gather(
            ask(one, ada_token, "Bob_Cluster"), ask(two, bob_token, "Ada_Cluster")
        )
        assert "friends" in words, words
        listed = await friends_list(two, bob_token)
        assert handles(listed["friends"]) == ["Ada_Cluster"] and listed["received"] == []

        found, _ = await until_presence(
            one, ada_token, "Bob_Cluster", lambda seen: seen == {"state": "online"}
        )
        await bob.close()
        found, _ = await until_presence(
            one,
            ada_token,
            "Bob_Cluster",
            lambda seen: seen is not None and seen["state"] == "offline",
        )
        assert found is not None and found["seen"] is not None

        bob = await Session.connect(two.ws_url, token=bob_token)
        guest = await Session.connect(one.ws_url, name="Gus")
        created = await bob.request(
            "create_room", mode="private", rules={"target": 10}, public=True
        )
        await guest.request("join_room", invite=created.result["invite"])
        found, _ = await until_presence(
            one,
            ada_token,
            "Bob_Cluster",
            lambda seen: seen is not None and seen["state"] == "playing",
        )
        assert found == {"state": "playing", "watch": f"/room/{created.result['room']}"}
        await guest.close()

        status, reply = await friends_post(one, ada_token, "/remove", handle="Bob_Cluster")
        assert (status, reply) == (200, {"removed": True})
        assert (await friends_list(two, bob_token))["friends"] == []
    finally:
        await close_all(ada, bob)
