"""Quick messages on a Redis Cluster: two server processes in cluster mode, the two players on
different processes, a watcher on each; the ``said`` crosses processes by sharded pub/sub on
the room's shard and reaches the other seat only."""

from __future__ import annotations

from tests.cluster.conftest import CLUSTER_ENV
from tests.e2e.talk import barrier, said_to, saids, table
from tests.support.fixtures import ServerFactory


async def test_a_phrase_crosses_processes_on_a_cluster_and_no_watcher_hears_it(
    server_factory: ServerFactory,
) -> None:
    first, second = server_factory(env=CLUSTER_ENV), server_factory(env=CLUSTER_ENV)
    players = await table(first.ws_url, second.ws_url)
    room = players.room
    try:
        ack = await players.ada.request("say", room=room, phrase="good_game")
        heard = await said_to(players.bob, room)
        assert (heard.seat, heard.phrase, heard.at) == (0, "good_game", ack.result["at"])
        await players.bob.request("say", room=room, phrase="thanks")
        assert (await said_to(players.ada, room)).phrase == "thanks"
        await barrier(players, *players.watchers)
        assert all(saids(watcher) == [] for watcher in players.watchers)
    finally:
        await players.close()
