"""The store's retryable errors, end to end on one Redis: a commit that no replica confirmed
in time (``GIN_REDIS_WAIT_REPLICAS``, its replica frozen) is answered ``not_replicated``, and a
request while Redis is down is answered ``store_unavailable``, not ``internal``; the same
request sent again (same id, same ``seq``) is applied exactly once, and a ``create_room`` sent
again makes no second room."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import redis

from client.session import Session
from server import keys
from server.store import Store
from tests.e2e.retries import assert_applied_once, next_move
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.players import close_all, expect_error, private_match
from tests.support.redis_server import RedisServer

WAIT_ENV = {
    **FAST_CLIENT_ENV,
    "GIN_REDIS_WAIT_REPLICAS": "1",
    "GIN_REDIS_WAIT_TIMEOUT_MS": "2000",
}


def _in_sync(master: RedisServer, replicas: int = 1) -> None:
    """Until the master's writes so far are on ``replicas`` replicas."""
    client = redis.Redis.from_url(master.url, socket_timeout=15)
    try:
        assert client.wait(replicas, 10_000) >= replicas
    finally:
        client.close()


@contextmanager
def _a_replica(master: RedisServer) -> Iterator[RedisServer]:
    """A replica of ``master``, in sync with it."""
    # A replica's first sync starts at once, not after the default 5 s for others to come.
    with redis.Redis.from_url(master.url) as client:
        client.config_set("repl-diskless-sync-delay", 0)
    with RedisServer(extra_args=("--replicaof", "127.0.0.1", str(master.port))) as replica:
        _in_sync(master)
        yield replica


async def test_a_commit_no_replica_confirmed_is_not_replicated_and_its_retry_applies_once(
    private_redis: RedisServer, server_factory: ServerFactory
) -> None:
    with _a_replica(private_redis) as replica:
        server = server_factory(redis=private_redis.url, env=WAIT_ENV)
        a, b, room = await private_match(server.ws_url, server.ws_url)
        store = await Store.connect(private_redis.url)
        try:
            seat, act = next_move((a, b), room)
            mover = (a, b)[seat]
            replica.pause()
            try:
                refused = await expect_error("not_replicated", mover.request(act))
            finally:
                replica.resume()
            assert refused.detail["retry_ms"] > 0
            _in_sync(private_redis)
            # The change stands on the master: the retry says so, and nothing is applied twice.
            await expect_error("duplicate_request", mover.request(act))
            await assert_applied_once(store, room, seat, act)
            # Both seats hear of it once (the feed's copy), and play goes on.
            for session in (a, b):
                await session.wait_seq(room, act.seq + 1)
            _seat, following = next_move((a, b), room)
            ack = await (a, b)[_seat].request(following)
            assert ack.result["seq"] == act.seq + 2
        finally:
            await store.close()
            await close_all(a, b)


async def test_a_create_room_no_replica_confirmed_sent_again_makes_one_room(
    private_redis: RedisServer, server_factory: ServerFactory
) -> None:
    with _a_replica(private_redis) as replica:
        server = server_factory(redis=private_redis.url, env=WAIT_ENV)
        host = await Session.connect(server.ws_url, name="Ada")
        guest = await Session.connect(server.ws_url, name="Grace")
        try:
            create = host.message("create_room", mode="private")
            replica.pause()
            try:
                await expect_error("not_replicated", host.request(create))
            finally:
                replica.resume()
            _in_sync(private_redis)
            # the room stands on the master: the same request again is answered with it
            ack = await host.request(create)
            assert ack.result["seat"] == 0 and ack.result["invite"]
            with redis.Redis.from_url(private_redis.url) as client:
                assert client.zcard(keys.rooms_active()) == 1
                assert client.hkeys(keys.player_rooms(host.player_id or "")) == [
                    ack.result["room"].encode()
                ]
            joined = await guest.request("join_room", invite=ack.result["invite"])
            assert joined.result["room"] == ack.result["room"]
            # a new request (a new id) makes a new room, as ever
            other = await host.request("create_room", mode="private")
            assert other.result["room"] != ack.result["room"]
        finally:
            await close_all(host, guest)


async def test_a_request_while_redis_is_down_is_store_unavailable_and_its_retry_applies_once(
    private_redis: RedisServer, server_factory: ServerFactory
) -> None:
    server = server_factory(redis=private_redis.url, env=FAST_CLIENT_ENV)
    a, b, room = await private_match(server.ws_url, server.ws_url)
    store = await Store.connect(private_redis.url)
    try:
        seat, act = next_move((a, b), room)
        mover = (a, b)[seat]
        private_redis.kill()
        try:
            refused = await expect_error("store_unavailable", mover.request(act, timeout=60))
        finally:
            private_redis.start()  # same port, same append-only file
        assert refused.detail["retry_ms"] > 0
        ack = await mover.request(act, timeout=60)
        assert ack.result["seq"] == act.seq + 1
        await expect_error("duplicate_request", mover.request(act))
        await assert_applied_once(store, room, seat, act)
    finally:
        await store.close()
        await close_all(a, b)
