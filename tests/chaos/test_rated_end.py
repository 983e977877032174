"""A server killed with ``kill -9`` at a rated match's end: each rating moves exactly once.

Two server processes share the test's Redis (append-only, ``appendfsync always``). Each match
is played by two account holders on a server of its own, which is killed the moment a player
sees the match end: its commit stands, and whatever the killed process had not yet written of
the match's records (the ratings among them) is left to the records sweep of the other one.
Whatever the moment of the kill, each player's rating moves once per match: ``n`` counts the
matches, each room is in each player's history once, and each change starts from the one
before it. A second test makes the moment certain: the server may not write ratings at all
(an ACL user), so the match ends with both ratings owed, and the other server writes them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest_asyncio
import redis as syncredis
import redis.asyncio as aioredis

from tests.support.fixtures import ServerFactory
from tests.support.rated import (
    check_chain,
    history,
    killed_at_rated_ends,
    rated_match_on,
    wait_rated,
)
from tests.support.redis_server import RedisServer

MATCHES = 3
USER, PASSWORD = "gin", "no-ratings"
#: Reads every key, writes every key but ``{rating:*`` (ACL key patterns cannot exclude, so:
#: by the prefix's letters; a script's keys need one pattern that grants both).
NOT_RATINGS = "%R~{rating:* " + " ".join(
    f"~{pattern}"
    for pattern in (
        "[^{]*",
        "{[^r]*",
        "{r[^a]*",
        "{ra[^t]*",
        "{rat[^i]*",
        "{rati[^n]*",
        "{ratin[^g]*",
        "{rating[^:]*",
    )
)


@pytest_asyncio.fixture(loop_scope="function")
async def client(chaos_redis: RedisServer) -> AsyncIterator[aioredis.Redis]:
    made = aioredis.Redis.from_url(chaos_redis.url)
    yield made
    await made.aclose()


async def test_a_server_killed_at_a_rated_matchs_end(
    server_factory: ServerFactory, client: aioredis.Redis
) -> None:
    await killed_at_rated_ends(server_factory, client, MATCHES)


async def test_ratings_the_server_could_not_write_are_written_once_by_another(
    chaos_redis: RedisServer, server_factory: ServerFactory, client: aioredis.Redis
) -> None:
    admin = syncredis.Redis.from_url(chaos_redis.url)
    admin.execute_command(  # type: ignore[no-untyped-call]
        f"ACL SETUSER {USER} on >{PASSWORD} resetkeys {NOT_RATINGS} &* +@all"
    )
    limited = f"redis://{USER}:{PASSWORD}@127.0.0.1:{chaos_redis.port}/0"
    server = server_factory(redis=limited)
    players, _, room = await rated_match_on(server.ws_url, [None, None], 7)
    await asyncio.sleep(1.0)
    for player in players:
        assert (await history(client, player))[0] == {}  # owed, not written
    server.kill()
    server_factory()  # another process: its sweep writes what is owed
    await wait_rated(client, players, 1)
    await asyncio.sleep(3.0)  # a sweep or two more: nothing moves again
    for player in players:
        rating, entries = await history(client, player)
        check_chain(rating, entries, [room])
    admin.close()
