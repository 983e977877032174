"""Room feeds: commits reach every server process subscribed to the room."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import hiredis
import pytest
import pytest_asyncio
from hypothesis import given
from hypothesis import strategies as st
from redis.asyncio import Redis

from server import keys
from server.store import (
    FeedReconnected,
    RoomUpdate,
    Store,
    StoreConfig,
    decode_room_message,
    encode_room_message,
)
from server.store.feed import RoomFeed
from server.store.subscriber import FeedSink, Subscriber
from tests.server.store.conftest import next_item
from tests.support.fixtures import StoreFactory
from tests.support.redis_server import RedisServer

# Blobs with the separator, newlines and NUL bytes in them: the payload must not care.
STATE = b"state:\x00\n:1"
CHANGE = b"12:change\x00:"


async def test_a_commit_reaches_another_process(store: Store, store_factory: StoreFactory) -> None:
    other = await store_factory()  # another server process
    await other.create_room("r1", b"s0")
    async with store.feed() as feed:
        await feed.add("r1")
        assert feed.rooms == {"r1"}
        assert (await other.commit("r1", 0, STATE, CHANGE)).ok
        assert await next_item(feed) == RoomUpdate("r1", 1, CHANGE, STATE)


async def test_each_process_sees_the_others_commits(
    store: Store, store_factory: StoreFactory
) -> None:
    other = await store_factory()
    await store.create_room("r1", b"s0")
    async with store.feed() as feed_a, other.feed() as feed_b:
        await feed_a.add("r1")
        await feed_b.add("r1")
        for v in range(10):
            writer = store if v % 2 else other
            assert (await writer.commit("r1", v, b"s%d" % (v + 1), b"c%d" % (v + 1))).ok
        for feed in (feed_a, feed_b):
            got = [await next_item(feed) for _ in range(10)]
            assert got == [RoomUpdate("r1", s, b"c%d" % s, b"s%d" % s) for s in range(1, 11)]


async def test_messages_the_reader_skips_are_dropped_as_they_arrive(store: Store) -> None:
    await store.create_room("r1", b"s0")
    async with store.feed() as feed:
        await feed.add("r1")
        asked: list[tuple[str, int]] = []

        def skip(room_id: str, seq: int) -> bool:
            asked.append((room_id, seq))
            return seq % 2 == 0

        feed.skip = skip
        for v in range(5):
            assert (await store.commit("r1", v, b"s%d" % (v + 1), b"c%d" % (v + 1))).ok
        assert [(await next_item(feed)).seq for _ in range(3)] == [1, 3, 5]  # type: ignore[union-attr]
        assert asked == [("r1", seq) for seq in range(1, 6)]
        assert feed._queue.empty()


async def test_refused_commits_publish_nothing(store: Store) -> None:
    await store.create_room("r1", b"s0")
    async with store.feed() as feed:
        await feed.add("r1")
        assert (await store.commit("r1", 0, b"s1", b"c1", "k1")).ok
        assert not (await store.commit("r1", 0, b"x", b"stale")).ok
        assert not (await store.commit("r1", 1, b"x", b"dup", "k1")).ok
        assert (await store.commit("r1", 1, b"s2", b"c2")).ok
        assert [(await next_item(feed)).seq for _ in range(2)] == [1, 2]  # type: ignore[union-attr]
        assert feed._queue.empty()


async def test_removed_rooms_are_not_delivered(store: Store) -> None:
    await store.create_room("r1", b"s0")
    await store.create_room("r2", b"s0")
    async with store.feed() as feed:
        await feed.add("r1")
        await feed.add("r2")
        assert (await store.commit("r1", 0, b"a", b"queued-before-remove")).ok
        # wait until that update is surely queued: r2's commit comes after it
        assert (await store.commit("r2", 0, b"b", b"marker")).ok
        for _ in range(100):
            if feed._queue.qsize() >= 2:
                break
            await asyncio.sleep(0.01)
        await feed.remove("r1")
        assert (await store.commit("r1", 1, b"a2", b"after-remove")).ok
        assert (await store.commit("r2", 1, b"b2", b"r2-second")).ok
        assert await next_item(feed) == RoomUpdate("r2", 1, b"marker", b"b")
        assert await next_item(feed) == RoomUpdate("r2", 2, b"r2-second", b"b2")
        assert feed.rooms == {"r2"}


async def test_feed_reconnects_after_losing_its_connection(store: Store, raw: Redis) -> None:
    await store.create_room("r1", b"s0")
    async with store.feed() as feed:
        await feed.add("r1")
        killed = await raw.client_kill_filter(_type="pubsub")
        assert killed >= 1
        item = await next_item(feed)
        assert item == FeedReconnected(frozenset({"r1"}))
        assert (await store.commit("r1", 0, b"s1", b"c1")).ok
        assert await next_item(feed) == RoomUpdate("r1", 1, b"c1", b"s1")


async def test_close_ends_iteration(store: Store) -> None:
    feed = store.feed()
    await feed.start()
    await feed.add("r1")
    reader = asyncio.create_task(anext(feed))
    await asyncio.sleep(0)
    await feed.close()
    with pytest.raises(StopAsyncIteration):
        await asyncio.wait_for(reader, 5)


@given(st.integers(min_value=0, max_value=10**12), st.binary(), st.binary())
def test_room_message_round_trip(seq: int, change: bytes, state: bytes) -> None:
    assert decode_room_message(encode_room_message(seq, change, state)) == (seq, change, state)


@pytest.mark.parametrize(
    "payload", [b"", b"1", b"1:", b"x:0:", b"1:x:", b"-1:0:", b"1:5:abc", b"1:-1:abc"]
)
def test_malformed_room_messages_are_refused(payload: bytes) -> None:
    with pytest.raises(ValueError):
        decode_room_message(payload)


async def test_an_idle_feed_stays_connected(store_factory: StoreFactory) -> None:
    store = await store_factory(config=StoreConfig(feed_ping_interval=0.25))
    await store.create_room("r1", b"s0")
    async with store.feed() as feed:
        await feed.add("r1")
        await asyncio.sleep(1.1)  # four ping intervals of silence, each PING answered
        assert (await store.commit("r1", 0, b"s1", b"c1")).ok
        assert await next_item(feed) == RoomUpdate("r1", 1, b"c1", b"s1")


async def test_an_unanswered_ping_makes_the_feed_reconnect(
    store_factory: StoreFactory, raw: Redis
) -> None:
    store = await store_factory(config=StoreConfig(feed_ping_interval=0.05))
    await store.create_room("r1", b"s0")
    async with store.feed() as feed:
        await feed.add("r1")
        await raw.client_pause(1000, all=True)  # Redis stops answering for 1 s
        assert await next_item(feed) == FeedReconnected(frozenset({"r1"}))
        assert (await store.commit("r1", 0, b"s1", b"c1")).ok
        assert await next_item(feed) == RoomUpdate("r1", 1, b"c1", b"s1")


# --- the feed's own connection (server.store.subscriber) -----------------------------------------


def _bulk(value: bytes) -> bytes:
    return b"$%d\r\n%s\r\n" % (len(value), value)


def _push(kind: bytes, channel: bytes, last: bytes | int) -> bytes:
    tail = b":%d\r\n" % last if isinstance(last, int) else _bulk(last)
    return b"*3\r\n" + _bulk(kind) + _bulk(channel) + tail


def _message(room_id: str, seq: int, change: bytes, state: bytes) -> bytes:
    channel = keys.room_channel(room_id).encode()
    return _push(b"message", channel, encode_room_message(seq, change, state))


class FakeRedis:
    """A scripted Redis for the feed's connection: it confirms (UN)SUBSCRIBE, answers PING
    (unless ``answer_pings`` is off) and AUTH / SELECT; the test pushes raw bytes."""

    def __init__(self) -> None:
        self.answer_pings = True
        self.answer_subscribes = True
        self.commands: list[list[bytes]] = []
        self.writers: list[asyncio.StreamWriter] = []
        self.subscribed: dict[bytes, asyncio.Event] = {}
        self._server: asyncio.Server | None = None

    async def start(self, unix_path: str | None = None) -> str:
        if unix_path is not None:
            self._server = await asyncio.start_unix_server(self._serve, unix_path)
            return f"unix://{unix_path}"
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        return f"redis://127.0.0.1:{port}/0"

    async def close(self) -> None:
        for writer in self.writers:
            writer.close()
        if self._server is not None:
            self._server.close()

    def event(self, room_id: str) -> asyncio.Event:
        return self.subscribed.setdefault(keys.room_channel(room_id).encode(), asyncio.Event())

    @property
    def writer(self) -> asyncio.StreamWriter:
        return self.writers[-1]  # the newest connection

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.writers.append(writer)
        parser = hiredis.Reader()
        count = 0
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(65536):
                parser.feed(data)
                while (command := parser.gets()) is not False:
                    self.commands.append(command)
                    name = command[0].upper()
                    if name in (b"SUBSCRIBE", b"UNSUBSCRIBE") and self.answer_subscribes:
                        for channel in command[1:]:
                            count += 1 if name == b"SUBSCRIBE" else -1
                            writer.write(_push(name.lower(), channel, count))
                            if name == b"SUBSCRIBE":
                                self.subscribed.setdefault(channel, asyncio.Event()).set()
                    elif name == b"PING" and self.answer_pings:
                        writer.write(b"*2\r\n$4\r\npong\r\n$0\r\n\r\n")
                    elif name in (b"AUTH", b"SELECT"):
                        writer.write(b"+OK\r\n")


@pytest_asyncio.fixture(loop_scope="function")
async def fake_redis() -> AsyncIterator[FakeRedis]:
    fake = FakeRedis()
    yield fake
    await fake.close()


FAST = StoreConfig(feed_reconnect_min=0.01, feed_reconnect_max=0.05, feed_subscribe_timeout=2)


async def test_a_message_split_across_many_reads(fake_redis: FakeRedis) -> None:
    url = await fake_redis.start()
    async with RoomFeed(url, FAST) as feed:
        await feed.add("r1")
        state = bytes(range(256)) * 6  # ~1.5 KB, every byte value
        data = b"".join(_message("r1", seq, CHANGE, state) for seq in (1, 2))
        for start in range(0, len(data), 7):
            fake_redis.writer.write(data[start : start + 7])
            await fake_redis.writer.drain()
            if start % 70 == 0:
                await asyncio.sleep(0.001)  # let the feed read a part
        assert await next_item(feed) == RoomUpdate("r1", 1, CHANGE, state)
        assert await next_item(feed) == RoomUpdate("r1", 2, CHANGE, state)


def test_replies_cut_anywhere_are_parsed_whole() -> None:
    got: list[tuple[str, bytes, bytes]] = []
    sink = FeedSink(
        lambda channel, data: got.append(("message", channel, data)),
        lambda channel: got.append(("subscribe", channel, b"")),
        lambda channel: got.append(("unsubscribe", channel, b"")),
    )
    data = (
        b"+OK\r\n"
        + _push(b"subscribe", b"c1", 1)
        + _push(b"message", b"c1", b"a\r\nb")
        + b"*2\r\n$4\r\npong\r\n$0\r\n\r\n"
        + _push(b"message", b"c1", b"")
        + _push(b"unsubscribe", b"c1", 0)
    )
    expected = [
        ("subscribe", b"c1", b""),
        ("message", b"c1", b"a\r\nb"),
        ("message", b"c1", b""),
        ("unsubscribe", b"c1", b""),
    ]
    loop = asyncio.new_event_loop()
    try:
        for cut in range(len(data) + 1):
            got.clear()
            wire = Subscriber(sink, loop, 5.0)
            wire.data_received(data[:cut])
            wire.data_received(data[cut:])
            assert got == expected, cut
            assert not wire.lost.done()
    finally:
        loop.close()


async def test_many_messages_in_one_read(fake_redis: FakeRedis) -> None:
    url = await fake_redis.start()
    async with RoomFeed(url, FAST) as feed:
        await feed.add("r1")
        await feed.add("r2")
        fake_redis.writer.write(
            b"".join(
                _message("r1" if seq % 2 else "r2", seq, b"c%d" % seq, b"s%d" % seq)
                + _message("gone", seq, b"x", b"not added")
                for seq in range(1, 1001)
            )
        )
        got = [await next_item(feed) for _ in range(1000)]
        assert got == [
            RoomUpdate("r1" if seq % 2 else "r2", seq, b"c%d" % seq, b"s%d" % seq)
            for seq in range(1, 1001)
        ]
        assert feed._queue.empty()


async def test_a_silent_redis_is_left_for_a_new_connection(fake_redis: FakeRedis) -> None:
    url = await fake_redis.start()
    config = StoreConfig(feed_ping_interval=0.05, feed_reconnect_min=0.01)
    async with RoomFeed(url, config) as feed:
        await feed.add("r1")
        first = fake_redis.writer
        fake_redis.answer_pings = False  # the socket stays open, Redis says nothing
        await asyncio.sleep(0.3)
        fake_redis.answer_pings = True
        assert await next_item(feed) == FeedReconnected(frozenset({"r1"}))
        assert fake_redis.writer is not first
        assert [c for c in fake_redis.commands if c[0] == b"PING"]
        fake_redis.writer.write(_message("r1", 5, b"c", b"s"))
        assert await next_item(feed) == RoomUpdate("r1", 5, b"c", b"s")


async def test_an_idle_feed_pings_only_when_silent(fake_redis: FakeRedis) -> None:
    url = await fake_redis.start()
    async with RoomFeed(url, StoreConfig(feed_ping_interval=0.1)) as feed:
        await feed.add("r1")
        for seq in range(1, 11):  # a message every 40 ms: never silent for a whole interval
            fake_redis.writer.write(_message("r1", seq, b"c", b"s"))
            assert (await next_item(feed)).seq == seq  # type: ignore[union-attr]
            await asyncio.sleep(0.04)
        assert not [c for c in fake_redis.commands if c[0] == b"PING"]
        await asyncio.sleep(0.35)
        assert [c for c in fake_redis.commands if c[0] == b"PING"]
        assert len(fake_redis.writers) == 1  # answered: still the first connection


async def test_an_unconfirmed_subscription_times_out_and_is_retried(
    fake_redis: FakeRedis,
) -> None:
    url = await fake_redis.start()
    config = StoreConfig(feed_subscribe_timeout=0.2, feed_ping_interval=0.05)
    async with RoomFeed(url, config) as feed:
        fake_redis.answer_subscribes = False
        with pytest.raises(TimeoutError):
            await feed.add("r1")
        assert feed.rooms == {"r1"}
        fake_redis.answer_subscribes = True
        fake_redis.writer.close()  # the next connection subscribes the room
        assert await next_item(feed) == FeedReconnected(frozenset({"r1"}))
        await asyncio.wait_for(fake_redis.event("r1").wait(), 1)


async def test_a_feed_on_a_unix_socket(fake_redis: FakeRedis, tmp_path: Path) -> None:
    url = await fake_redis.start(unix_path=str(tmp_path / "redis.sock"))
    async with RoomFeed(url, FAST) as feed:
        await feed.add("r1")
        fake_redis.writer.write(_message("r1", 1, b"c", b"s"))
        assert await next_item(feed) == RoomUpdate("r1", 1, b"c", b"s")


async def test_a_malformed_message_is_dropped(store: Store, raw: Redis) -> None:
    await store.create_room("r1", b"s0")
    async with store.feed() as feed:
        await feed.add("r1")
        await raw.publish(keys.room_channel("r1"), b"1:99:short")
        await raw.publish(keys.room_channel("r1"), b"garbage")
        assert (await store.commit("r1", 0, b"s1", b"c1")).ok
        assert await next_item(feed) == RoomUpdate("r1", 1, b"c1", b"s1")
        assert feed._queue.empty()


async def test_a_re_added_room_is_delivered_again(store: Store) -> None:
    await store.create_room("r1", b"s0")
    async with store.feed() as feed:
        await feed.add("r1")
        await feed.remove("r1")
        assert (await store.commit("r1", 0, b"s1", b"c1")).ok
        await feed.add("r1")
        assert (await store.commit("r1", 1, b"s2", b"c2")).ok
        assert await next_item(feed) == RoomUpdate("r1", 2, b"c2", b"s2")


async def test_password_username_and_database_from_the_url(
    private_redis: RedisServer,
) -> None:
    admin = Redis.from_url(private_redis.url, protocol=2)
    try:
        await admin.acl_setuser(
            "feeder", enabled=True, passwords=["+feedpw"], commands=["+@all"],
            keys=["*"], channels=["*"],
        )  # fmt: skip
        await admin.config_set("requirepass", "defaultpw")
    finally:
        await admin.aclose()
    host_port = private_redis.url.removeprefix("redis://").rsplit("/", 1)[0]
    publisher = Redis.from_url(f"redis://:defaultpw@{host_port}/0", protocol=2)
    try:
        for url in (f"redis://:defaultpw@{host_port}/2", f"redis://feeder:feedpw@{host_port}/0"):
            async with RoomFeed(url, FAST) as feed:
                await feed.add("r1")
                await publisher.publish(keys.room_channel("r1"), encode_room_message(7, b"c", b"s"))
                assert await next_item(feed) == RoomUpdate("r1", 7, b"c", b"s")
        refused = RoomFeed(f"redis://:wrong@{host_port}/0", FAST)
        try:
            with pytest.raises(TimeoutError):
                await refused.start()
        finally:
            await refused.close()
    finally:
        await publisher.aclose()


async def test_close_returns_even_when_a_cancellation_is_lost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On Python 3.11 ``asyncio.wait_for`` can swallow a cancellation that arrives as the
    connect completes (seen in CI: ``close`` waited forever for the reconnecting task)."""
    feed = RoomFeed("redis://127.0.0.1:1/0", FAST)
    connecting = asyncio.Event()

    async def connect_that_swallows_a_cancellation(*, resync: bool) -> object:
        connecting.set()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(0.5)
        connecting.clear()
        raise ConnectionError("refused")

    monkeypatch.setattr(feed, "_connect", connect_that_swallows_a_cancellation)
    with pytest.raises(TimeoutError):
        await feed.start()
    await connecting.wait()  # cancelled in there, the cancellation is lost
    await asyncio.wait_for(feed.close(), 10)
