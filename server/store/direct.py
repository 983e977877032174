"""One pipelined Redis connection for the commands of every move (the commit, the room read).

redis-py's asyncio client spends about 150 us of CPU and several event-loop turns on each
command (a pool checkout, timeouts, a stream reader); a move needs exactly one command, so that
was most of a move's Redis cost and of its latency. This connection is an ``asyncio.Protocol``
instead: every caller queues its command (packed by hiredis) and waits on a future; the
commands queued during one turn of the event loop go out in one write at its end (a socket
write costs more than packing a command: under load, many moves share one); Redis answers the
commands of one connection in order, so the replies, parsed by hiredis as they arrive, go to
the waiting callers first in, first out. A caller may also hand a function to run once its
command is written (``execute(..., written=...)``): work for the time Redis runs the command.

Failures behave as with the pooled client (``StoreConfig``): a lost connection fails the
commands in flight with redis-py's ``ConnectionError``, a command that gets no reply within
``socket_timeout`` fails with its ``TimeoutError`` and drops the connection; both are retried
``retries`` times after an exponential, jittered delay (capped at one second), on a new
connection. A ``LOADING`` reply (a restarted Redis still reading its data; the command did
not run) is retried the same way. Other error replies are returned as ``ResponseError``
instances for the caller to raise.

The connection itself (TCP, TLS for ``rediss://``, a Unix socket; AUTH and SELECT first) is
``server.store.resp``'s, shared with the room feed's subscriber.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Callable, Sequence
from typing import Any

import hiredis
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.store.config import StoreConfig
from server.store.resp import Endpoint, RespProtocol, open_wire, pack, setup_commands, supports
from server.store.slots import Arg, Command

__all__ = ["DirectConnection", "supports"]

log = logging.getLogger(__name__)


def _loading(reply: object) -> bool:
    return isinstance(reply, ResponseError) and str(reply).startswith("LOADING")


async def _replies(waiters: list[asyncio.Future[Any]]) -> list[Any]:
    """The waiters' results in order (cheaper than a gather: they resolve together). On a
    failure the others are cancelled, or their exceptions retrieved."""
    replies: list[Any] = []
    try:
        for waiter in waiters:
            replies.append(await waiter)
    except BaseException:
        for waiter in waiters:
            if not waiter.done():
                waiter.cancel()
            elif not waiter.cancelled():
                waiter.exception()
        raise
    return replies


class _Wire(RespProtocol):
    """One open connection: commands out, replies in, matched first in, first out."""

    def __init__(self, loop: asyncio.AbstractEventLoop, timeout: float) -> None:
        super().__init__()
        self._loop = loop
        self._timeout = timeout
        self._waiters: collections.deque[asyncio.Future[Any]] = collections.deque()
        self._sent: collections.deque[float] = collections.deque()
        self._timer: asyncio.TimerHandle | None = None
        self._out: list[bytes] = []
        #: Run once the commands queued meanwhile are written (``send(..., written=...)``).
        self._written: list[Callable[[], None]] = []
        self.lost: BaseException | None = None

    @property
    def usable(self) -> bool:
        return self.lost is None and self._transport is not None

    # -- asyncio.Protocol (connection_made, connection_lost: RespProtocol's)

    def data_received(self, data: bytes) -> None:
        reader = self._reader
        try:
            reader.feed(data)
            while True:
                reply = reader.gets()
                if reply is False:
                    return
                if not self._waiters:  # a reply nobody asked for: the stream is out of step
                    self._fail(RedisConnectionError("unexpected reply from Redis"))
                    return
                waiter = self._waiters.popleft()
                self._sent.popleft()
                if not waiter.done():  # a cancelled caller's reply is dropped
                    waiter.set_result(reply)
        except hiredis.ProtocolError as error:
            self._protocol_error(error)

    # -- commands

    def send(self, packed: bytes, written: Callable[[], None] | None = None) -> asyncio.Future[Any]:
        return self.send_many(packed, 1, written)[0]

    def send_many(
        self, packed: bytes, count: int, written: Callable[[], None] | None = None
    ) -> list[asyncio.Future[Any]]:
        """Queue ``count`` packed commands (one write) and the futures of their replies;
        ``written`` runs right after the write that sends them."""
        loop = self._loop
        waiters: list[asyncio.Future[Any]] = [loop.create_future() for _ in range(count)]
        if self.lost is not None or self._transport is None:
            for waiter in waiters:
                waiter.set_exception(RedisConnectionError("connection to Redis lost"))
            return waiters
        now = loop.time()
        self._waiters.extend(waiters)
        self._sent.extend(now for _ in range(count))
        if not self._out:  # the commands of one turn of the event loop go out in one write
            loop.call_soon(self._flush)
        self._out.append(packed)
        if written is not None:
            self._written.append(written)
        if self._timer is None:
            self._timer = loop.call_later(self._timeout, self._check_timeout)
        return waiters

    def _flush(self) -> None:
        out, self._out = self._out, []
        if out and self.lost is None and self._transport is not None:
            self._transport.write(out[0] if len(out) == 1 else b"".join(out))
        written, self._written = self._written, []
        for then in written:
            try:
                then()
            except Exception:  # the caller's work: it must not cost the other callers theirs
                log.exception("work after a Redis write failed")

    def _check_timeout(self) -> None:
        self._timer = None
        if not self._sent:
            return
        late = self._loop.time() - self._sent[0]
        if late >= self._timeout:
            self._fail(RedisTimeoutError(f"no reply from Redis in {self._timeout:g} s"))
        else:
            self._timer = self._loop.call_later(self._timeout - late, self._check_timeout)

    def _fail(self, error: BaseException) -> None:
        if self.lost is None:
            self.lost = error
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        waiters, self._waiters = self._waiters, collections.deque()
        self._sent.clear()
        self._out.clear()
        self._written.clear()
        for waiter in waiters:
            if not waiter.done():
                waiter.set_exception(error)
        super()._fail(error)


class DirectConnection:
    """A lazily opened, pipelined connection (see the module doc); safe to share between tasks
    of one event loop. ``await execute(*args)`` returns the reply or raises."""

    def __init__(self, url: str | Endpoint, config: StoreConfig) -> None:
        self._endpoint = url if isinstance(url, Endpoint) else Endpoint.of(url, config)
        self._config = config
        self._backoff = ExponentialWithJitterBackoff(base=0.05, cap=1.0)
        self._wire: _Wire | None = None
        self._opening: asyncio.Future[_Wire] | None = None
        self._closed = False

    async def execute(self, *args: Arg, written: Callable[[], None] | None = None) -> Any:
        """Send one command and return its reply (error replies as ``ResponseError``).
        ``written`` runs once, right after the write that sends the command (not at all if
        that connection fails before writing): the caller's work while Redis runs it."""
        return (await self.run((args,), written))[0]

    async def run(
        self, commands: Sequence[Command], written: Callable[[], None] | None = None
    ) -> list[Any]:
        """Send ``commands`` together on one connection and return their replies, in order
        (error replies as ``ResponseError``). Retried as a whole on a new connection: a
        command that must follow another on the same connection (``WAIT`` after a write)
        never lands on a connection that did not carry the write. ``written`` runs as in
        ``execute``, once, after the first write that sends them."""
        packed = b"".join(pack(command) for command in commands)
        failures = 0
        while True:
            try:
                wire = self._wire
                if wire is None or not wire.usable:
                    wire = await self._open()
                sent = wire.send_many(packed, len(commands), written)
                if not sent[0].done():  # queued: ``written`` runs with its write
                    written = None
                replies = await _replies(sent)
            except (RedisConnectionError, RedisTimeoutError, OSError, TimeoutError) as error:
                failures += 1
                if self._closed or failures > self._config.retries:
                    if isinstance(error, RedisConnectionError | RedisTimeoutError):
                        raise
                    raise RedisConnectionError(f"cannot reach Redis: {error}") from error
                await asyncio.sleep(self._backoff.compute(failures))
                continue
            if not any(_loading(reply) for reply in replies):
                return replies
            # A restarted Redis still reading its data refuses every command without running
            # it: wait and ask again, as redis-py's pool does (BusyLoadingError).
            failures += 1
            if self._closed or failures > self._config.retries:
                return replies
            await asyncio.sleep(self._backoff.compute(failures))

    async def _open(self) -> _Wire:
        if self._closed:
            raise RedisConnectionError("the store is closed")
        if self._opening is None:
            self._opening = asyncio.ensure_future(self._connect())
        opening = self._opening
        try:
            return await asyncio.shield(opening)
        finally:
            if opening.done() and self._opening is opening:
                self._opening = None

    async def _connect(self) -> _Wire:
        loop = asyncio.get_running_loop()
        wire = _Wire(loop, self._config.socket_timeout)
        await open_wire(self._endpoint, lambda: wire, self._config.socket_connect_timeout)
        setup = setup_commands(self._endpoint)
        if setup:  # AUTH and SELECT in one write, their replies checked before any command
            for reply in await _replies(wire.send_many(b"".join(map(pack, setup)), len(setup))):
                if isinstance(reply, Exception):
                    wire.close()
                    raise RedisConnectionError(f"Redis refused the connection setup: {reply}")
        if self._closed:
            wire.close()
            raise RedisConnectionError("the store is closed")
        self._wire = wire
        return wire

    def close(self) -> None:
        self._closed = True
        if self._wire is not None:
            self._wire.close()
            self._wire = None
