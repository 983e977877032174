"""The room feed's pub/sub connection: an ``asyncio.Protocol`` parsing RESP2 with hiredis.

redis-py's ``PubSub.get_message`` costs tens of microseconds and a task wake-up per message
(a timeout context, a stream read, a response parser written in Python around hiredis). Every
move's commit comes back through the feed, so that was a noticeable share of a move. Here
``data_received`` feeds the bytes to a ``hiredis.Reader`` and hands every complete reply to
the feed (``FeedSink``) synchronously, in the order Redis sent them: room messages,
subscribe and unsubscribe confirmations. Nothing else runs per message.

The connection (TCP, TLS for ``rediss://``, a Unix socket) is ``server.store.resp``'s, shared
with the direct connection of the commands. It sends AUTH (with the URL's username and
password) and SELECT (the URL's database) before its first SUBSCRIBE, all in one write; a
refused setup, an error reply, a protocol error or a lost socket closes the connection and
resolves ``lost`` with the reason.
While the connection is silent it sends a PING every ``ping_interval`` seconds; when no byte
at all arrived for a whole interval after a PING, Redis is deemed gone and the connection is
closed the same way. Reconnecting (and subscribing again) is the feed's business.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import NamedTuple

import hiredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from server.store.config import StoreConfig
from server.store.resp import Endpoint, RespProtocol, open_wire, pack, setup_commands

__all__ = ["FeedSink", "Subscriber", "open_subscriber"]

_KINDS = {
    False: (b"message", b"subscribe", b"unsubscribe"),
    True: (b"smessage", b"ssubscribe", b"sunsubscribe"),
}
_COMMANDS = {False: (b"SUBSCRIBE", b"UNSUBSCRIBE"), True: (b"SSUBSCRIBE", b"SUNSUBSCRIBE")}
_PING = b"*1\r\n$4\r\nPING\r\n"
_FEED_STEP = 16384


class FeedSink(NamedTuple):
    """Where a pub/sub connection reports to (the room feed), synchronously and in order."""

    message: Callable[[bytes, bytes], None]
    """A message: (channel, data)."""
    subscribed: Callable[[bytes], None]
    """Redis confirmed the subscription to this channel."""
    unsubscribed: Callable[[bytes], None]
    """Redis confirmed the end of the subscription to this channel."""


class Subscriber(RespProtocol):
    """One subscribed connection (see the module doc). ``subscribe`` / ``unsubscribe`` write
    at once; ``await lost`` gives the reason the connection ended (an exception instance:
    the future itself never fails, so nobody has to retrieve it)."""

    def __init__(
        self,
        sink: FeedSink,
        loop: asyncio.AbstractEventLoop,
        ping_interval: float,
        *,
        sharded: bool = False,
    ) -> None:
        super().__init__()
        self._on_message, self._on_subscribed, self._on_unsubscribed = sink
        self._message, self._subscribed, self._unsubscribed = _KINDS[sharded]
        self._subscribe, self._unsubscribe = _COMMANDS[sharded]
        #: SSUBSCRIBE takes channels of one slot: one command per channel, in one write.
        self._one_per_command = sharded
        self._loop = loop
        self._ping_interval = ping_interval
        self._timer: asyncio.TimerHandle | None = None
        self._heard = False
        self._pinged = False
        self.lost: asyncio.Future[BaseException] = loop.create_future()

    @property
    def usable(self) -> bool:
        return self._transport is not None and not self.lost.done()

    # -- asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._timer = self._loop.call_later(self._ping_interval, self._tick)

    def data_received(self, data: bytes) -> None:
        self._heard = True
        reader = self._reader
        size = len(data)
        offset = 0
        lost = self.lost
        try:
            # In steps: hiredis moves what is left of its buffer after the replies it returns,
            # which costs more per reply the bigger the buffer (uvloop reads up to 256 KB).
            while offset < size and not lost.done():
                reader.feed(data, offset, min(_FEED_STEP, size - offset))
                offset += _FEED_STEP
                self._dispatch(reader)
        except hiredis.ProtocolError as error:
            self._protocol_error(error)

    def _dispatch(self, reader: hiredis.Reader) -> None:
        while True:
            reply = reader.gets()
            if reply is False:
                return
            if type(reply) is list:
                kind = reply[0]
                if kind == self._message:
                    self._on_message(reply[1], reply[2])
                elif kind == self._subscribed:
                    self._on_subscribed(reply[1])
                elif kind == self._unsubscribed:
                    self._on_unsubscribed(reply[1])
                # else: b"pong" (any byte counts as an answer), pattern replies (unused)
            elif isinstance(reply, ResponseError):
                self._fail(RedisConnectionError(f"Redis refused a feed command: {reply}"))
                return
            # else: +OK of AUTH / SELECT

    # -- commands

    def send(self, packed: bytes) -> None:
        if self._transport is not None and not self.lost.done():
            self._transport.write(packed)

    def subscribe(self, *channels: bytes) -> None:
        self._command(self._subscribe, channels)

    def unsubscribe(self, *channels: bytes) -> None:
        self._command(self._unsubscribe, channels)

    def _command(self, name: bytes, channels: tuple[bytes, ...]) -> None:
        if not channels:
            return
        if self._one_per_command:
            self.send(b"".join(pack((name, channel)) for channel in channels))
        else:
            self.send(pack((name, *channels)))

    def _tick(self) -> None:
        self._timer = None
        if self.lost.done():
            return
        if self._heard:
            self._heard = self._pinged = False
        elif self._pinged:
            self._fail(RedisConnectionError("Redis did not answer the feed's PING"))
            return
        else:
            self.send(_PING)
            self._pinged = True
        self._timer = self._loop.call_later(self._ping_interval, self._tick)

    def _fail(self, error: BaseException) -> None:
        if not self.lost.done():
            self.lost.set_result(error)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        super()._fail(error)


async def open_subscriber(
    url: str | Endpoint, config: StoreConfig, sink: FeedSink, *, sharded: bool = False
) -> Subscriber:
    """Connect to the Redis of ``url`` (``supports(url)`` must hold) and send the connection
    setup: AUTH and SELECT as the URL asks (their replies are checked as they arrive).
    ``sharded``: the connection speaks sharded pub/sub (``SSUBSCRIBE``, Redis 7)."""
    endpoint = url if isinstance(url, Endpoint) else Endpoint.of(url, config)
    loop = asyncio.get_running_loop()
    wire = await open_wire(
        endpoint,
        lambda: Subscriber(sink, loop, config.feed_ping_interval, sharded=sharded),
        config.socket_connect_timeout,
    )
    setup = setup_commands(endpoint, select=not sharded)  # a cluster has database 0 only
    if setup:
        wire.send(b"".join(map(pack, setup)))
    return wire
