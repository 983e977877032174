"""The websocket endpoint: origin check, connections per address, frame limits, rate limits,
the hello deadline, the idle timeout, and the read loop that answers pings and hands each
other decoded request to the service. No game logic here."""

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
from protocol.messages import AiSubscribe, ErrorCode, Hello, Ping, Pong, ProtocolError
from server import metrics
from server.addresses import AddressCounter, TrustedProxies
from server.connection import Connection
from server.idle import IdleWatch
from server.ratelimit import StrikeCount, TokenBucket
from server.service import Service
from server.settings import Settings

log = logging.getLogger(__name__)

#: The websocket close code of a connection cut off for breaking the rules (a flood, no hello).
POLICY_VIOLATION = 1008
#: The websocket close code of a connection refused for now (too many from its address).
TRY_AGAIN_LATER = 1013


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


def client_address(websocket: WebSocket) -> str:
    """The client's IP address: the socket's peer, or the one a trusted proxy forwarded."""
    peer = websocket.client.host if websocket.client else "?"
    proxies: TrustedProxies = websocket.app.state.trusted_proxies
    return proxies.client_address(peer, websocket.headers.get("x-forwarded-for"))


async def serve_websocket(websocket: WebSocket) -> None:
    service: Service = websocket.app.state.service
    settings: Settings = websocket.app.state.settings
    if not origin_allowed(websocket, settings):
        metrics.count_error(ErrorCode.BAD_ORIGIN.value)
        await websocket.close(code=1008, reason="origin not allowed")
        return
    address = client_address(websocket)
    counter: AddressCounter = websocket.app.state.addresses
    await websocket.accept()
    port = websocket.client.port if websocket.client else "?"

    async def send_bytes(frame: bytes) -> None:
        await websocket.send_bytes(frame)

    async def close(code: int) -> None:
        if websocket.application_state is not WebSocketState.DISCONNECTED:
            await websocket.close(code)

    conn = Connection(
        send_bytes,
        close,
        TokenBucket(settings.rate_per_second, settings.rate_burst, time.monotonic()),
        f"{address}:{port}",
        writer=frame_writer(websocket),
    )
    if not counter.acquire(address):
        log.warning("too many connections", extra={"peer": conn.peer})
        metrics.count_error(ErrorCode.TOO_MANY_CONNECTIONS.value)
        conn.bye(
            ErrorCode.TOO_MANY_CONNECTIONS.value,
            f"at most {counter.limit} connections per address; close one and try again",
            close_code=TRY_AGAIN_LATER,
        )
        await conn.drain_and_stop()
        return
    metrics.CONNECTIONS.inc()
    websocket.app.state.connections.add(conn)
    try:
        await _read_loop(websocket, conn, service, settings)
    finally:
        counter.release(address)
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
    hello_deadline = asyncio.get_running_loop().call_later(
        settings.hello_timeout_seconds, _hello_overdue, conn, settings.hello_timeout_seconds
    )
    try:
        limits = FrameLimits(settings, conn.bucket, time.monotonic())
        await _read_frames(websocket, conn, service, limits, watch)
    except asyncio.CancelledError:
        if not watch.expired:
            raise
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        conn.bye(ErrorCode.IDLE_TIMEOUT.value, "no frame for too long; reconnect to resume")
    finally:
        hello_deadline.cancel()
        watch.stop()


def _hello_overdue(conn: Connection, seconds: float) -> None:
    if conn.player_id is None:
        conn.bye(
            ErrorCode.HELLO_TIMEOUT.value,
            f"no hello within {seconds:g} s of connecting",
            close_code=POLICY_VIOLATION,
        )


class FrameLimits:
    """What one connection may send: requests and pings each from a bucket of its own (an AI
    worker's requests scaled by the seats it plays), and the refused frames that make it a
    flood."""

    __slots__ = ("_settings", "max_frame_bytes", "pings", "requests", "strikes")

    def __init__(self, settings: Settings, requests: TokenBucket, now: float) -> None:
        self._settings = settings
        self.max_frame_bytes = settings.max_frame_bytes
        self.requests = requests
        self.pings = TokenBucket(settings.ping_rate_per_second, settings.ping_burst, now)
        self.strikes = StrikeCount(settings.flood_strikes, settings.strike_window_seconds, now)

    def said_hello(self, worker: bool) -> None:
        """After each ``hello``: a worker's (with the worker key) frames may be larger, a long
        hand's review is one."""
        settings = self._settings
        self.max_frame_bytes = (
            settings.max_worker_frame_bytes if worker else settings.max_frame_bytes
        )

    def serve_seats(self, seats: int) -> None:
        """An authenticated AI worker plays up to ``seats`` seats over this connection: a
        person's pace in each of them."""
        scale = max(1, seats)
        settings = self._settings
        self.requests.widen(settings.rate_per_second * scale, settings.rate_burst * scale)


async def _read_frames(
    websocket: WebSocket,
    conn: Connection,
    service: Service,
    limits: FrameLimits,
    watch: IdleWatch,
) -> None:
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
            refused = True
        elif len(frame) > (max_frame_bytes := limits.max_frame_bytes):
            conn.error(
                None,
                ErrorCode.FRAME_TOO_LARGE,
                f"a frame is at most {max_frame_bytes} bytes, got {len(frame)}",
                {"max_size": max_frame_bytes},
            )
            refused = True
        else:
            refused = not await _handle_frame(conn, service, frame, limits)
        if refused and limits.strikes.strike(time.monotonic()):
            conn.bye(
                ErrorCode.RATE_LIMITED.value,
                "too many refused frames; slow down",
                close_code=POLICY_VIOLATION,
            )
            return


async def _handle_frame(
    conn: Connection, service: Service, frame: bytes, limits: FrameLimits
) -> bool:
    """Answer one frame; False when it was refused before reaching the service."""
    try:
        request = codec.decode(frame, direction="client", max_size=len(frame) + 1)
    except ProtocolError as error:
        conn.send(error.to_message())
        metrics.count_error(str(error.code))
        return False
    if isinstance(request, Ping):
        if not limits.pings.allow(time.monotonic()):
            conn.error(request.id, ErrorCode.RATE_LIMITED, "too many pings; slow down")
            return False
        conn.send(Pong(id=request.id))
        conn.flush()
        return True
    if not limits.requests.allow(time.monotonic()):
        conn.error(
            getattr(request, "id", None), ErrorCode.RATE_LIMITED, "too many requests; slow down"
        )
        return False
    with contextlib.suppress(asyncio.CancelledError):
        await service.handle(conn, request)
    if isinstance(request, AiSubscribe) and conn.is_worker:
        limits.serve_seats(request.capacity)
    elif isinstance(request, Hello):
        limits.said_hello(conn.is_worker)
    conn.flush()
    return True
