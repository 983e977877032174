"""The direct (pipelined) connection of the commands of a move: replies in order under
concurrency, errors, timeouts, cancelled callers, reconnects, a database other than 0."""

from __future__ import annotations

import asyncio
import contextlib

import hiredis
import pytest
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.store import Store, StoreConfig
from server.store.direct import DirectConnection, supports
from tests.support.fixtures import StoreFactory
from tests.support.redis_server import RedisServer


def test_supported_urls() -> None:
    assert supports("redis://127.0.0.1:6379/0")
    assert supports("unix:///run/redis.sock")
    assert supports("rediss://example:6380/0")  # TLS too (tests/server/store/test_tls.py)
    assert not supports("http://example:6380/0")


async def test_concurrent_commands_get_their_own_replies(redis_url: str, raw: Redis) -> None:
    direct = DirectConnection(redis_url, StoreConfig())
    try:
        await asyncio.gather(*(direct.execute("SET", f"k{i}", i) for i in range(500)))
        replies = await asyncio.gather(*(direct.execute("GET", f"k{i}") for i in range(500)))
        assert replies == [str(i).encode() for i in range(500)]
        assert await raw.get("k499") == b"499"
    finally:
        direct.close()


async def test_an_error_reply_is_returned_and_the_next_commands_go_on(redis_url: str) -> None:
    direct = DirectConnection(redis_url, StoreConfig())
    try:
        await direct.execute("SET", "text", "x")
        reply, after = await asyncio.gather(
            direct.execute("INCR", "text"), direct.execute("GET", "text")
        )
        assert isinstance(reply, ResponseError)
        assert after == b"x"
    finally:
        direct.close()


async def test_a_cancelled_caller_leaves_the_replies_in_order(redis_url: str) -> None:
    direct = DirectConnection(redis_url, StoreConfig())
    try:
        await direct.execute("SET", "a", "1")
        slow = asyncio.create_task(direct.execute("BLPOP", "nothing", "0.3"))
        await asyncio.sleep(0.05)
        slow.cancel()
        assert await direct.execute("GET", "a") == b"1"  # not BLPOP's nil
    finally:
        direct.close()


async def test_a_command_without_reply_times_out_and_the_connection_is_replaced(
    redis_url: str,
) -> None:
    config = StoreConfig(socket_timeout=0.3, block_chunk_ms=100, retries=0)
    direct = DirectConnection(redis_url, config)
    try:
        with pytest.raises(RedisTimeoutError):
            await direct.execute("BLPOP", "nothing", "2")
        assert await direct.execute("PING") == b"PONG"
    finally:
        direct.close()


class LoadingRedis:
    """Answers ``LOADING`` (Redis restarted, still reading its data) to the first ``loading``
    commands, then ``+PONG`` to each."""

    def __init__(self, loading: int) -> None:
        self.loading = loading
        self.commands = 0

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        parser = hiredis.Reader()
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(65536):
                parser.feed(data)
                while parser.gets() is not False:
                    self.commands += 1
                    if self.commands <= self.loading:
                        writer.write(b"-LOADING Redis is loading the dataset in memory\r\n")
                    else:
                        writer.write(b"+PONG\r\n")
        writer.close()


@pytest.mark.parametrize(("loading", "retries", "answered"), [(2, 3, True), (3, 2, False)])
async def test_a_redis_still_loading_is_asked_again(
    loading: int, retries: int, answered: bool
) -> None:
    fake = LoadingRedis(loading)
    server = await asyncio.start_server(fake.serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    direct = DirectConnection(f"redis://127.0.0.1:{port}/0", StoreConfig(retries=retries))
    try:
        reply = await direct.execute("PING")
        if answered:
            assert reply == b"PONG"
            assert fake.commands == loading + 1
        else:  # still loading after the retries: the error reply, for the caller to raise
            assert isinstance(reply, ResponseError) and str(reply).startswith("LOADING")
            assert fake.commands == retries + 1
    finally:
        direct.close()
        server.close()


async def test_a_missing_redis_fails_after_the_retries() -> None:
    config = StoreConfig(retries=2, socket_connect_timeout=0.5)
    direct = DirectConnection("redis://127.0.0.1:1/0", config)
    with pytest.raises(RedisConnectionError):
        await direct.execute("PING")
    direct.close()


async def test_another_database(redis_url: str, raw: Redis) -> None:
    url = redis_url.rsplit("/", 1)[0] + "/3"
    direct = DirectConnection(url, StoreConfig())
    try:
        await direct.execute("SET", "in-db-3", "yes")
    finally:
        direct.close()
    other = Redis.from_url(url, protocol=2)
    try:
        assert await other.get("in-db-3") == b"yes"
        assert await raw.get("in-db-3") is None
        await other.flushdb()
    finally:
        await other.aclose()


async def test_commits_survive_a_connection_killed_by_redis(store: Store, raw: Redis) -> None:
    await store.create_room("r1", b"s0")
    assert (await store.commit("r1", 0, b"s1", b"c1", "p:1")).ok
    await raw.client_kill_filter(_type="normal", skipme=True)
    assert (await store.commit("r1", 1, b"s2", b"c2", "p:2")).ok
    assert await store.load_room("r1") == (2, b"s2")


async def test_a_flushed_script_cache_is_loaded_again(store: Store, raw: Redis) -> None:
    await store.create_room("r1", b"s0")
    await raw.script_flush()
    assert (await store.commit("r1", 0, b"s1", b"c1")).ok


async def test_many_moves_at_once(store_factory: StoreFactory) -> None:
    store = await store_factory()
    rooms = [f"r{i}" for i in range(50)]
    for room in rooms:
        await store.create_room(room, b"s0")

    async def play(room: str) -> None:
        for version in range(20):
            result = await store.commit(room, version, b"s%d" % (version + 1), b"c", f"p:{version}")
            assert result.ok and result.version == version + 1

    await asyncio.gather(*(play(room) for room in rooms))
    assert {await store.load_room(room) for room in rooms} == {(20, b"s20")}


async def test_a_restart_in_the_middle_of_many_moves(private_redis: RedisServer) -> None:
    config = StoreConfig(retries=8)
    async with await Store.connect(private_redis.url, config) as store:
        await store.create_room("r1", b"s0")
        version = 0

        async def move() -> None:
            nonlocal version
            result = await store.commit("r1", version, b"s", b"c", f"p:{version}")
            if result.ok:
                version = result.version

        for index in range(60):
            if index == 20:
                await asyncio.to_thread(private_redis.restart)
            await move()
        loaded = await store.load_room("r1")
        assert loaded is not None and loaded[0] == version >= 40


async def test_changes_before(store: Store) -> None:
    await store.create_room("r1", b"s0", b"c0")
    for version in range(10):
        await store.commit("r1", version, b"s", b"c%d" % (version + 1))
    newest = await store.changes_before("r1", None, 3)
    assert newest == [(10, b"c10"), (9, b"c9"), (8, b"c8")]
    assert await store.changes_before("r1", 8, 3) == [(7, b"c7"), (6, b"c6"), (5, b"c5")]
    assert await store.changes_before("r1", 2, 10) == [(1, b"c1"), (0, b"c0")]
    assert await store.changes_before("r1", 0, 10) == []
    assert await store.changes_before("nope", None, 10) == []


def test_on_uvloop_as_the_server_runs(redis_url: str) -> None:
    uvloop = pytest.importorskip("uvloop")

    async def main() -> list[object]:
        direct = DirectConnection(redis_url, StoreConfig())
        try:
            await direct.execute("SET", "loop", "uv")
            return list(await asyncio.gather(*(direct.execute("GET", "loop") for _ in range(50))))
        finally:
            direct.close()

    assert uvloop.run(main()) == [b"uv"] * 50


async def test_written_runs_once_while_the_command_is_in_flight(redis_url: str) -> None:
    """``execute(..., written=...)`` runs the caller's work once the command is sent, while
    Redis runs it: after the caller queued it, before its reply."""
    direct = DirectConnection(redis_url, StoreConfig())
    try:
        await direct.execute("PING")  # the connection is open
        seen: list[bool] = []
        command = asyncio.ensure_future(
            direct.execute("BLPOP", "nothing", "0.2", written=lambda: seen.append(command.done()))
        )
        assert seen == []  # not run while the command is being queued
        assert await command is None
        assert seen == [False]
    finally:
        direct.close()


async def test_written_runs_once_across_a_reconnect(redis_url: str, raw: Redis) -> None:
    direct = DirectConnection(redis_url, StoreConfig())
    try:
        await direct.execute("PING")
        await raw.client_kill_filter(_type="normal", skipme=True)
        await asyncio.sleep(0.05)  # the kill reaches the direct connection
        seen: list[int] = []
        assert await direct.execute("PING", written=lambda: seen.append(1)) == b"PONG"
        assert seen == [1]
    finally:
        direct.close()


async def test_a_commit_runs_while_waiting_before_it_returns(store: Store) -> None:
    await store.create_room("r1", b"s0")
    seen: list[str] = []
    result = await store.commit("r1", 0, b"s1", b"c1", while_waiting=lambda: seen.append("w"))
    assert result.ok and seen == ["w"]
    refused = await store.commit("r1", 0, b"s2", b"c2", while_waiting=lambda: seen.append("x"))
    assert not refused.ok and seen == ["w", "x"]  # it needs no outcome: it runs either way


async def test_a_failing_written_costs_the_other_commands_nothing(redis_url: str) -> None:
    direct = DirectConnection(redis_url, StoreConfig())
    try:
        await direct.execute("PING")
        seen: list[int] = []

        def fail() -> None:
            raise RuntimeError("the caller's own bug")

        replies = await asyncio.gather(
            direct.execute("PING", written=fail),
            direct.execute("PING", written=lambda: seen.append(1)),
        )
        assert list(replies) == [b"PONG", b"PONG"] and seen == [1]
        assert await direct.execute("PING") == b"PONG"
    finally:
        direct.close()
