"""The websocket endpoint: origin check, frame limits, rate limit, idle timeout, and the read
loop that hands each decoded request to the service. No game logic here."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any
from urllib.parse import urlsplit

from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState

from protocol import codec
from protocol.messages import ErrorCode, Ping, ProtocolError
from server import metrics
from server.connection import Connection
from server.idle import IdleWatch
from server.ratelimit import TokenBucket
from server.service import Service
from server.settings import Settings

log = logging.getLogger(__name__)

#: Refused frames in a row (rate limit, size) after which a connection is cut off as a flood.
FLOOD_STRIKES = 50
#: The websocket close code of a connection cut off for breaking the rules (a flood).
POLICY_VIOLATION = 1008


def origin_allowed(websocket: WebSocket, settings: Settings) -> bool:
    """Browsers send an Origin: it must be this server's own or one configured as allowed.
    Clients that send none (the AI worker, scripts) are not browsers and are let in."""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True
    if origin in settings.allowed_origins or "*" in settings.allowed_origins:
        return True
    host = websocket.headers.get("host", "")
    return urlsplit(origin).netloc == host


async def serve_websocket(websocket: WebSocket) -> None:
    service: Service = websocket.app.state.service
    settings: Settings = websocket.app.state.settings
    if not origin_allowed(websocket, settings):
        metrics.count_error(ErrorCode.BAD_ORIGIN.value)
        await websocket.close(code=1008, reason="origin not allowed")
        return
    await websocket.accept()
    peer = f"{websocket.client.host}:{websocket.client.port}" if websocket.client else "?"

    async def send_bytes(frame: bytes) -> None:
        await websocket.send_bytes(frame)

    async def close(code: int) -> None:
        if websocket.application_state is not WebSocketState.DISCONNECTED:
            await websocket.close(code)

    conn = Connection(
        send_bytes,
        close,
        TokenBucket(settings.rate_per_second, settings.rate_burst, time.monotonic()),
        peer,
        writer=frame_writer(websocket),
    )
    metrics.CONNECTIONS.inc()
    websocket.app.state.connections.add(conn)
    try:
        await _read_loop(websocket, conn, service, settings)
    finally:
        websocket.app.state.connections.discard(conn)
        metrics.CONNECTIONS.dec()
        try:
            await service.connection_closed(conn)
        except Exception:
            log.exception("cleanup after a closed connection failed")
        await service.hub.drop(conn)
        await conn.drain_and_stop()


class SansIOWriter:
    """Frames straight to uvicorn's sans-I/O websocket protocol, several with one socket write
    (what its ASGI ``send`` does for one ``websocket.send``, less Starlette's and the ASGI
    layers that only pass the message on, and without waiting for a turn of the loop)."""

    __slots__ = ("_protocol",)

    def __init__(self, protocol: WebSocketsSansIOProtocol) -> None:
        self._protocol = protocol

    def write(self, frames: list[bytes]) -> bool:
        protocol = self._protocol
        if protocol.disconnected or protocol.close_sent or protocol.initial_response is not None:
            raise ConnectionError("the websocket is closed")
        if not protocol.writable.is_set():  # the transport's buffer is full
            return False
        try:
            for frame in frames:
                protocol.conn.send_binary(frame)
        except InvalidState as error:
            raise ConnectionError("the websocket is closed") from error
        protocol.transport.write(b"".join(protocol.conn.data_to_send()))
        return True

    async def writable(self) -> None:
        await self._protocol.writable.wait()


def frame_writer(websocket: WebSocket) -> SansIOWriter | None:
    """The fast writer of the websocket; None when the connection is served by another
    implementation: frames then go through ``websocket.send_bytes`` one by one."""
    protocol = _sansio_protocol(websocket)
    return SansIOWriter(protocol) if protocol is not None else None


def _sansio_protocol(websocket: WebSocket) -> WebSocketsSansIOProtocol | None:
    """The uvicorn protocol object behind the websocket's ASGI ``send``: Starlette wraps it in
    closures that pass ``websocket.send`` messages on unchanged."""
    send: Any = getattr(websocket, "_send", None)
    for _ in range(8):
        owner = getattr(send, "__self__", None)
        if owner is not None:
            if type(owner) is WebSocketsSansIOProtocol and owner.handshake_complete:
                return owner
            return None
        cells = getattr(send, "__closure__", None) or ()
        inner = [cell.cell_contents for cell in cells if callable(cell.cell_contents)]
        inner = [item for item in inner if getattr(item, "__name__", "") in ("send", "sender")]
        if len(inner) != 1:
            return None
        send = inner[0]
    return None


async def _read_loop(
    websocket: WebSocket, conn: Connection, service: Service, settings: Settings
) -> None:
    watch = IdleWatch(settings.idle_timeout_seconds)
    try:
        await _read_frames(websocket, conn, service, settings, watch)
    except asyncio.CancelledError:
        if not watch.expired:
            raise
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        conn.bye(ErrorCode.IDLE_TIMEOUT.value, "no frame for too long; reconnect to resume")
    finally:
        watch.stop()


async def _read_frames(
    websocket: WebSocket,
    conn: Connection,
    service: Service,
    settings: Settings,
    watch: IdleWatch,
) -> None:
    strikes = 0
    while not conn.closed.is_set():
        watch.waiting()
        try:
            message = await websocket.receive()
        except (WebSocketDisconnect, RuntimeError):
            return
        watch.got_frame()
        if message["type"] == "websocket.disconnect":
            return
        metrics.FRAMES.received += 1
        frame = message.get("bytes")
        if frame is None:
            conn.error(None, ErrorCode.BAD_MESSAGE, "frames are binary MessagePack, not text")
            strikes += 1
        elif len(frame) > settings.max_frame_bytes:
            conn.error(
                None,
                ErrorCode.FRAME_TOO_LARGE,
                f"a frame is at most {settings.max_frame_bytes} bytes, got {len(frame)}",
                {"max_size": settings.max_frame_bytes},
            )
            strikes += 1
        else:
            strikes = await _handle_frame(conn, service, frame, strikes)
        if strikes >= FLOOD_STRIKES:
            conn.bye(
                ErrorCode.RATE_LIMITED.value,
                "too many refused frames; slow down",
                close_code=POLICY_VIOLATION,
            )
            return


async def _handle_frame(conn: Connection, service: Service, frame: bytes, strikes: int) -> int:
    try:
        request = codec.decode(frame, direction="client", max_size=len(frame) + 1)
    except ProtocolError as error:
        conn.send(error.to_message())
        metrics.count_error(str(error.code))
        return strikes + 1
    if not isinstance(request, Ping) and not conn.bucket.allow(time.monotonic()):
        conn.error(
            getattr(request, "id", None), ErrorCode.RATE_LIMITED, "too many requests; slow down"
        )
        return strikes + 1
    with contextlib.suppress(asyncio.CancelledError):
        await service.handle(conn, request)
    conn.flush()
    return 0
