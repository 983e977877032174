"""One client connection, independent of the transport: who it is, what it may still send,
and the frames waiting to go out to it, so that a slow client never blocks the others.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol

from protocol import codec
from protocol.messages import Bye, Error, ErrorCode, Message, RequestId
from server import metrics
from server.ratelimit import TokenBucket

log = logging.getLogger(__name__)

SendBytes = Callable[[bytes], Awaitable[None]]
Close = Callable[[int], Awaitable[None]]

#: Frames that may wait for a slow client before it is cut off.
MAX_QUEUED_FRAMES = 1024


class FrameWriter(Protocol):
    """Writes frames to the socket at once, several with one write."""

    def write(self, frames: list[bytes]) -> bool:
        """Write the frames now; False (nothing written) while the transport's buffer is
        full; ``ConnectionError`` once the connection is closed."""

    async def writable(self) -> None:
        """Return once the transport's buffer has room again."""


@dataclass(eq=False)
class Subscription:
    """A connection's place in one room: its seat (None: spectator) and the last sequence
    number it was sent. The lock keeps catch-up and live updates of the room in order. Live
    updates wait until the first catch-up or snapshot (sent after the request's ack) has
    started: a client learns of the room from the ack, and drops frames of a room it does not
    know yet."""

    room_id: str
    seat: int | None
    last_seq: int
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    started: bool = False


class Connection:
    """Frames sent to a connection wait in a list and go out together: at the latest in the
    next turn of the event loop, or at once where the caller knows a batch is complete
    (``flush``: an ack and its update, one socket write). Only a transport that cannot take
    them (a full buffer, or one without a ``FrameWriter``) gets a task that waits for it."""

    def __init__(
        self,
        send_bytes: SendBytes,
        close: Close,
        bucket: TokenBucket,
        peer: str = "",
        writer: FrameWriter | None = None,
    ) -> None:
        self._send_bytes = send_bytes
        self._writer = writer
        self._close = close
        self.bucket = bucket
        self.peer = peer
        self.player_id: str | None = None
        self.name: str | None = None
        self.client: str | None = None
        self.is_worker = False
        #: The MINOR of the protocol the client said ``hello`` with: no message type newer
        #: than it is sent (``said`` needs 1.1).
        self.protocol_minor = 0
        self.rooms: dict[str, Subscription] = {}
        #: Set once no frame will be sent any more (the socket is gone, or closing).
        self.closed = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        self._pending: list[bytes] = []
        self._flush_scheduled = False
        self._drain_task: asyncio.Task[None] | None = None
        self._closing = False
        self._close_task: asyncio.Task[None] | None = None
        #: The websocket close code once the connection closes (``bye`` may set another).
        self.close_code = 1000

    @property
    def address(self) -> str:
        """The client's address (``peer`` without its port): what per-address limits count."""
        host, sep, _port = self.peer.rpartition(":")
        return host if sep else self.peer

    def send(self, message: Message) -> None:
        """Queue a message; a client that lets too many frames wait is disconnected."""
        if not self.closed.is_set():
            self.send_frame(codec.encode(message, validate=False))

    def send_frame(self, frame: bytes) -> None:
        """Queue an encoded frame (``server.frames``), as ``send`` does a message."""
        if self.closed.is_set() or self._closing:
            return
        if len(self._pending) >= MAX_QUEUED_FRAMES:
            log.warning("slow client cut off", extra={"peer": self.peer})
            self._pending.clear()
            self._shut()
            return
        self._pending.append(frame)
        if not self._flush_scheduled:
            self._flush_scheduled = True
            self._loop.call_soon(self._scheduled_flush)

    def flush(self) -> None:
        """Write the waiting frames now, if the transport takes them."""
        if not self._pending or self._drain_task is not None or self.closed.is_set():
            return
        if self._writer is not None:
            frames, self._pending = self._pending, []
            try:
                written = self._writer.write(frames)
            except Exception:  # the socket went away: the reader notices and cleans up
                log.debug("write failed", exc_info=True)
                self._shut()
                return
            if written:
                metrics.FRAMES.sent += len(frames)
                if self._closing:
                    self._shut()
                return
            self._pending[:0] = frames
        self._drain_task = asyncio.create_task(self._drain(), name=f"writer {self.peer}")

    def error(
        self,
        request_id: RequestId | None,
        code: ErrorCode,
        message: str,
        detail: dict[str, object] | None = None,
    ) -> None:
        metrics.count_error(code.value)
        self.send(Error(id=request_id, code=code.value, message=message, detail=detail))

    def bye(self, code: str, message: str, close_code: int = 1000) -> None:
        """Say ``bye`` and close once the waiting frames are out, with ``close_code`` (1008
        for a policy violation, ``docs/protocol.md``). Nothing sent after it goes out."""
        self.close_code = close_code
        self.send(Bye(code=code, message=message))
        self._closing = True

    async def drain_and_stop(self) -> None:
        """Let waiting frames go out (bounded), then close."""
        self._closing = True
        self.flush()
        drain = self._drain_task
        if drain is not None:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(drain), 2.0)
            drain.cancel()
        self._shut()
        if self._close_task is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await self._close_task

    def _scheduled_flush(self) -> None:
        self._flush_scheduled = False
        self.flush()
        if self._closing and not self._pending and self._drain_task is None:
            self._shut()

    async def _drain(self) -> None:
        """Write what waits, waiting for the transport as long as it needs. The frames stay
        in the queue while they wait, so that they count against ``MAX_QUEUED_FRAMES``."""
        try:
            while self._pending and not self.closed.is_set():
                if self._writer is None:
                    await self._send_bytes(self._pending[0])
                    if self._pending:  # not cleared by a cut-off meanwhile
                        del self._pending[0]
                    metrics.FRAMES.sent += 1
                    continue
                await self._writer.writable()
                if self.closed.is_set():
                    break
                frames, self._pending = self._pending, []
                if not self._writer.write(frames):
                    self._pending[:0] = frames
                    continue
                metrics.FRAMES.sent += len(frames)
        except Exception:  # the socket went away: the reader notices and cleans up
            log.debug("writer stopped", exc_info=True)
            self._shut()
        finally:
            self._drain_task = None
        if self._closing:
            self._shut()

    def _shut(self) -> None:
        """No more frames: close the websocket (once)."""
        self.closed.set()
        if self._close_task is None:
            self._close_task = asyncio.create_task(self._closed_with(self.close_code))

    async def _closed_with(self, code: int) -> None:
        with contextlib.suppress(Exception):
            await self._close(code)
