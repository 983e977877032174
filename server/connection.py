"""One client connection, independent of the transport: who it is, what it may still send,
and an outbound queue drained by its own writer so that a slow client never blocks the others.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from protocol import codec
from protocol.messages import Bye, Error, ErrorCode, Message, RequestId
from server import metrics
from server.ratelimit import TokenBucket

log = logging.getLogger(__name__)

SendBytes = Callable[[bytes], Awaitable[None]]
#: Sends several frames at once (one socket write where the transport allows).
SendFrames = Callable[[list[bytes]], Awaitable[None]]
Close = Callable[[int], Awaitable[None]]

#: Frames that may wait for a slow client before it is cut off.
MAX_QUEUED_FRAMES = 1024


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
    def __init__(
        self,
        send_bytes: SendBytes,
        close: Close,
        bucket: TokenBucket,
        peer: str = "",
        send_frames: SendFrames | None = None,
    ) -> None:
        self._send_bytes = send_bytes
        self._send_frames = send_frames
        self._close = close
        self.bucket = bucket
        self.peer = peer
        self.player_id: str | None = None
        self.name: str | None = None
        self.client: str | None = None
        self.is_worker = False
        self.rooms: dict[str, Subscription] = {}
        self.closed = asyncio.Event()
        self._queue: asyncio.Queue[bytes | None] = asyncio.Queue(MAX_QUEUED_FRAMES)
        self._writer: asyncio.Task[None] | None = None
        #: The websocket close code once the writer stops (``bye`` may set another).
        self.close_code = 1000

    def start(self) -> None:
        self._writer = asyncio.create_task(self._write(), name=f"writer {self.peer}")

    def send(self, message: Message) -> None:
        """Queue a message; a client that lets the queue fill up is disconnected."""
        if not self.closed.is_set():
            self.send_frame(codec.encode(message, validate=False))

    def send_frame(self, frame: bytes) -> None:
        """Queue an encoded frame (``server.frames``), as ``send`` does a message."""
        if self.closed.is_set():
            return
        try:
            self._queue.put_nowait(frame)
        except asyncio.QueueFull:
            log.warning("slow client cut off", extra={"peer": self.peer})
            self.closed.set()
            self._queue = asyncio.Queue(1)
            self._queue.put_nowait(None)

    def error(
        self,
        request_id: RequestId | None,
        code: ErrorCode,
        message: str,
        detail: dict[str, object] | None = None,
    ) -> None:
        metrics.ERRORS.labels(code=code.value).inc()
        self.send(Error(id=request_id, code=code.value, message=message, detail=detail))

    def bye(self, code: str, message: str, close_code: int = 1000) -> None:
        """Say ``bye`` and close once the queued frames are out, with ``close_code`` (1008
        for a policy violation, ``docs/protocol.md``)."""
        self.close_code = close_code
        self.send(Bye(code=code, message=message))
        with contextlib.suppress(asyncio.QueueFull):
            self._queue.put_nowait(None)

    async def _write(self) -> None:
        try:
            while True:
                frame = await self._queue.get()
                if frame is None:
                    break
                if self._send_frames is None:
                    await self._send_bytes(frame)
                    metrics.FRAMES_OUT.inc()
                    continue
                # The frames queued meanwhile (an ack and its update) go out together.
                frames = [frame]
                stop = False
                while not stop and not self._queue.empty():
                    more = self._queue.get_nowait()
                    if more is None:
                        stop = True
                    else:
                        frames.append(more)
                await self._send_frames(frames)
                metrics.FRAMES_OUT.inc(len(frames))
                if stop:
                    break
        except Exception:  # the socket went away: the reader notices and cleans up
            log.debug("writer stopped", exc_info=True)
        finally:
            self.closed.set()
            with contextlib.suppress(Exception):
                await self._close(self.close_code)

    async def drain_and_stop(self) -> None:
        """Let queued frames go out (bounded), then stop the writer."""
        with contextlib.suppress(asyncio.QueueFull):
            self._queue.put_nowait(None)
        if self._writer is not None:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(self._writer), 2.0)
            self._writer.cancel()
