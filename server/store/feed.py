"""Room feed: one pub/sub connection per server process, delivering every room's commits.

Every OK commit publishes on the room's channel (``{room:ID}:channel``) one message:

    <seq>:<len(change)>:<change><state>

``<seq>`` (the new version) and ``<len(change)>`` are decimal ASCII; ``change`` is the change
blob and ``state`` the new room blob, both exactly as the caller committed them. Subscribers
therefore get the change and the state it produced without another round trip and without
racing later commits.

A room's channel also carries its quick messages (``server.store.talk``: a payload starting
with ``said:``), delivered as ``RoomSaid`` items; they are not changes and have no number.

A feed delivers, in publication order, ``RoomUpdate`` items for the rooms added to it, and a
``FeedReconnected`` item after it lost its connection and subscribed again (a Redis restart,
a network failure). Pub/sub is fire and forget: whatever was published while the feed was
away is lost, so on ``FeedReconnected`` the caller resyncs each of its rooms with
``Store.changes_since(room, last_seq)`` (or sends a snapshot when that returns None), and
drops updates whose ``seq`` it has already handled. The same holds after ``add``: subscribe
first, then load the room, then apply only updates above the loaded version.

The connection is ``server.store.subscriber``'s: an ``asyncio.Protocol`` parsing Redis's
replies with hiredis and handing each one to the feed as it arrives (a message costs a
parse, a decode and a queue put, no task wake-up of its own), on every URL the store
takes (``redis://``, ``rediss://``, ``unix://``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import typing
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType

from server import keys
from server.store._base import StoreConfig
from server.store.resp import Endpoint
from server.store.subscriber import FeedSink, Subscriber, open_subscriber
from server.store.talk import SAID_PREFIX

__all__ = [
    "FeedItem",
    "FeedReconnected",
    "RoomFeed",
    "RoomSaid",
    "RoomUpdate",
    "decode_room_message",
    "encode_room_message",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RoomUpdate:
    """One committed change of a room."""

    room_id: str
    seq: int
    change: bytes
    state: bytes


@dataclass(frozen=True, slots=True)
class RoomSaid:
    """A quick message of seat ``seat`` in a room: ``frame`` is the encoded ``said`` frame
    for the other seat's connections."""

    room_id: str
    seat: int
    frame: bytes


@dataclass(frozen=True, slots=True)
class FeedReconnected:
    """The feed lost its connection and has subscribed again to ``rooms``: messages published
    in between are lost, resync these rooms from ``Store.changes_since``."""

    rooms: frozenset[str]


FeedItem = RoomUpdate | RoomSaid | FeedReconnected


def encode_room_message(seq: int, change: bytes, state: bytes) -> bytes:
    """The payload ``lua/commit.lua`` publishes (written here for tests and documentation)."""
    return b"%d:%d:" % (seq, len(change)) + change + state


def decode_said_message(payload: bytes) -> tuple[int, bytes]:
    """Split a quick message's payload (``said:<seat>:<frame>``) into (seat, frame);
    ValueError if malformed."""
    seat, sep, frame = payload[len(SAID_PREFIX) :].partition(b":")
    if not (payload.startswith(SAID_PREFIX) and sep and seat in (b"0", b"1") and frame):
        raise ValueError("malformed quick message")
    return int(seat), frame


def decode_room_message(payload: bytes) -> tuple[int, bytes, bytes]:
    """Split a room channel payload into (seq, change, state); ValueError if malformed."""
    seq_text, sep, rest = payload.partition(b":")
    length_text, sep2, body = rest.partition(b":")
    if not (sep and sep2 and seq_text.isdigit() and length_text.isdigit()):
        raise ValueError("malformed room message")
    length = int(length_text)
    if length > len(body):
        raise ValueError("malformed room message: change longer than the payload")
    return int(seq_text), body[:length], body[length:]


class RoomFeed:
    """Commits of a changing set of rooms, from one pub/sub connection (see module doc).

    Use it as ``async with store.feed() as feed:`` (or ``await feed.start()`` ...
    ``await feed.close()``), ``await feed.add(room_id)`` / ``await feed.remove(room_id)`` from
    any task, and ``async for item in feed`` in one task. Items are queued without bound
    until read: read them promptly.
    """

    def __init__(self, url: str, config: StoreConfig | None = None) -> None:
        self._url = url
        self._config = config or StoreConfig()
        self._endpoint: Endpoint | None = None  # made at the first connect (its TLS context)
        self._own_channel = keys.feed_channel(uuid.uuid4().hex).encode()
        self._rooms: set[str] = set()
        self._channels: dict[bytes, str] = {}  # the rooms' channels -> room ids
        self._confirmed: set[bytes] = set()
        self._waiters: dict[bytes, list[asyncio.Future[None]]] = {}
        self._queue: asyncio.Queue[FeedItem | None] = asyncio.Queue()
        self._sink = FeedSink(self._on_message, self._on_subscribed, self._on_unsubscribed)
        self._link: _Link | None = None
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._resync_after: bytes | None = None
        self._closed = False
        #: Set by the reader: a room's message for which it returns True (given the room and
        #: the number) is dropped as it arrives, not queued (the reader has nothing to do).
        self.skip: Callable[[str, int], bool] | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Connect and subscribe (waits up to ``feed_subscribe_timeout`` for Redis; if it is
        not there yet the feed keeps trying in the background and TimeoutError is raised)."""
        if self._closed:
            raise RuntimeError("this feed is closed")
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="room-feed")
        await asyncio.wait_for(self._ready.wait(), self._config.feed_subscribe_timeout)

    async def close(self) -> None:
        """Stop the feed; a pending ``async for`` ends."""
        if self._closed:
            return
        self._closed = True
        task = self._task
        if task is not None:
            while not task.done():  # a cancellation can be lost (see ``_run``): ask again
                task.cancel()
                await asyncio.wait({task}, timeout=1.0)
            with contextlib.suppress(BaseException):
                task.result()
            self._task = None
        await self._disconnect()
        for waiters in self._waiters.values():
            for waiter in waiters:
                if not waiter.done():
                    waiter.cancel()
        self._waiters.clear()
        self._queue.put_nowait(None)

    async def __aenter__(self) -> RoomFeed:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # -- rooms -------------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """The feed's connection is up and subscribed (for readiness checks)."""
        return not self._closed and self._link is not None and self._own_channel in self._confirmed

    @property
    def rooms(self) -> frozenset[str]:
        """The rooms this feed delivers."""
        return frozenset(self._rooms)

    async def add(self, room_id: str) -> None:
        """Deliver this room's commits. Once a started feed returns from ``add``, Redis has
        confirmed the subscription: every later commit of the room will be delivered. Raises
        TimeoutError if Redis does not confirm in time (the room stays added and is
        subscribed on the next reconnect, which ``FeedReconnected`` reports)."""
        channel = keys.room_channel(room_id).encode()
        self._rooms.add(room_id)
        self._channels[channel] = room_id
        if self._task is None or self._closed or channel in self._confirmed:
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(channel, []).append(waiter)
        await self._send("subscribe", channel)
        try:
            await asyncio.wait_for(asyncio.shield(waiter), self._config.feed_subscribe_timeout)
        except TimeoutError:
            waiters = self._waiters.get(channel, [])
            if waiter in waiters:
                waiters.remove(waiter)
            raise TimeoutError(
                f"Redis did not confirm the subscription to room {room_id}"
            ) from None

    async def remove(self, room_id: str) -> None:
        """Stop delivering this room's commits (none is delivered after this returns, even
        if it was already queued)."""
        channel = keys.room_channel(room_id).encode()
        self._rooms.discard(room_id)
        self._channels.pop(channel, None)
        self._confirmed.discard(channel)
        await self._send("unsubscribe", channel)

    # -- iteration ---------------------------------------------------------------------------

    def __aiter__(self) -> RoomFeed:
        return self

    async def __anext__(self) -> FeedItem:
        while True:
            if self._closed and self._queue.empty():
                raise StopAsyncIteration
            item = await self._queue.get()
            if item is None:
                self._queue.put_nowait(None)  # let any other reader end too
                raise StopAsyncIteration
            if isinstance(item, RoomUpdate | RoomSaid) and item.room_id not in self._rooms:
                continue  # queued before the room was removed
            return item

    # -- the connection task -----------------------------------------------------------------

    async def _run(self) -> None:
        delay = self._config.feed_reconnect_min
        was_connected = False
        # ``close`` cancels this task, and also sets ``_closed``: on Python 3.11 a cancellation
        # that arrives as ``asyncio.wait_for`` completes (the connect) can be lost.
        while not self._closed:
            try:
                link = await self._connect(resync=was_connected)
                was_connected = True
                delay = self._config.feed_reconnect_min
                await link.serve()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # any failure: drop the connection and start over
                log.warning("room feed connection lost (%r); reconnecting", exc)
            await self._disconnect()
            await asyncio.sleep(delay)
            delay = min(delay * 2, self._config.feed_reconnect_max)

    async def _connect(self, *, resync: bool) -> _Link:
        self._confirmed.clear()
        if self._endpoint is None:
            self._endpoint = Endpoint.of(self._url, self._config)
        link: _Link = _WireLink(await open_subscriber(self._endpoint, self._config, self._sink))
        try:
            await link.subscribe(self._own_channel)
            rooms = list(self._channels)
            # Confirmations arrive in order: the last one completes the resubscription.
            self._resync_after = (rooms[-1] if rooms else self._own_channel) if resync else None
            self._link = link  # from here on add()/remove() send on this connection
            if rooms:
                await link.subscribe(*rooms)
        except BaseException:
            if self._link is not link:
                await link.close()
            raise
        return link

    # -- what the connection reports (synchronously, in Redis's order) ----------------------

    def _on_message(self, channel: bytes, data: bytes) -> None:
        room_id = self._channels.get(channel)
        if room_id is None:
            return  # a late message of a removed room
        if data.startswith(SAID_PREFIX):
            try:
                seat, frame = decode_said_message(data)
            except ValueError:
                log.error("dropping a malformed quick message on %r", channel)
                return
            self._queue.put_nowait(RoomSaid(room_id, seat, frame))
            return
        try:
            seq, change, state = decode_room_message(data)
        except ValueError:
            log.error("dropping a malformed message on %r", channel)
            return
        if self.skip is not None and self.skip(room_id, seq):
            return
        self._queue.put_nowait(RoomUpdate(room_id, seq, change, state))

    def _on_subscribed(self, channel: bytes) -> None:
        self._confirmed.add(channel)
        waiters = self._waiters.pop(channel, None)
        if waiters:
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(None)
        if channel == self._own_channel:
            self._ready.set()
        if channel == self._resync_after:
            self._resync_after = None
            self._queue.put_nowait(FeedReconnected(frozenset(self._rooms)))

    def _on_unsubscribed(self, channel: bytes) -> None:
        self._confirmed.discard(channel)

    async def _send(self, command: str, channel: bytes) -> None:
        """(Un)subscribe on the current connection, if any. A failure is left to the
        connection task: it reconnects and subscribes every room again."""
        link = self._link
        if link is None:
            return
        try:
            if command == "subscribe":
                await link.subscribe(channel)
            else:
                await link.unsubscribe(channel)
        except Exception as exc:
            log.info("room feed %s failed (%s); the feed reconnects", command, exc)

    async def _disconnect(self) -> None:
        link, self._link = self._link, None
        self._confirmed.clear()
        if link is not None:
            await link.close()


class _Link(typing.Protocol):
    """One pub/sub connection of a feed; reports what arrives to the feed's ``FeedSink``."""

    async def subscribe(self, *channels: bytes) -> None: ...

    async def unsubscribe(self, *channels: bytes) -> None: ...

    async def serve(self) -> None:
        """Run until the connection fails; raise why."""

    async def close(self) -> None: ...


class _WireLink:
    """The hiredis connection (``server.store.subscriber``): replies are handled as they
    arrive, in ``data_received``; ``serve`` only waits for the connection's end."""

    def __init__(self, wire: Subscriber) -> None:
        self._wire = wire

    async def subscribe(self, *channels: bytes) -> None:
        self._wire.subscribe(*channels)

    async def unsubscribe(self, *channels: bytes) -> None:
        self._wire.unsubscribe(*channels)

    async def serve(self) -> None:
        raise await self._wire.lost

    async def close(self) -> None:
        self._wire.close()
