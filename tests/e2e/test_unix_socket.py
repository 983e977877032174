"""A Redis reached through its Unix socket (``REDIS_URL=unix:///path/redis.sock?db=0``), as
self-hosts often run it: the server starts, and a whole match is played and stored through it."""

from __future__ import annotations

from server.store import Store
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.players import close_all, play_match, private_match, truth
from tests.support.redis_server import RedisServer


async def test_a_whole_match_through_a_redis_unix_socket(
    server_factory: ServerFactory, redis_server: RedisServer, redis_url: str
) -> None:
    server = server_factory(env=FAST_CLIENT_ENV, redis=redis_server.unix_url)
    a, b, room = await private_match(server.ws_url, server.ws_url, target=10)
    try:
        logs = await play_match([a, b], room, seed=7, check=True, timeout=120)
        view = a.room(room).view
        assert view is not None and view["status"] == "finished"
        # The only refusal play_match lets through is stale_sequence, which both seats
        # sending next_hand at a hand's end may meet (by design): at most one per new hand.
        refused = [code for log in logs for code in log.errors]
        assert len(refused) <= view["game"]["hand"] - 1, refused
        store = await Store.connect(redis_server.unix_url)
        try:
            changes = await truth(store, room)
        finally:
            await store.close()
        assert [seq for seq, _, _ in changes] == list(range(a.room(room).seq + 1))
    finally:
        await close_all(a, b)
