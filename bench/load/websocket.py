"""A small websocket client (RFC 6455): callbacks, no task per message."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import random
import traceback
from collections.abc import Callable
from typing import Any

from websockets.speedups import apply_mask  # C: masks the client frames

CONNECT_CONCURRENCY = 100
_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class WSClient(asyncio.Protocol):
    """One client websocket. ``on_message(payload)`` runs inside ``data_received`` for every
    complete data message; pings are answered, a close is echoed."""

    def __init__(self, host: str, port: int, path: str, on_message: Callable[[Any], None]):
        loop = asyncio.get_running_loop()
        self.on_message = on_message
        self.transport: asyncio.Transport | None = None
        self.opened: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()
        self.failures = 0
        self._request = (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: "
        )
        self._key = base64.b64encode(os.urandom(16))
        self._buf = bytearray()
        self._open = False
        self._fragments: list[bytes] | None = None
        self._close_sent = False

    # -- asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(self._request.encode() + self._key + b"\r\n\r\n")

    def connection_lost(self, exc: Exception | None) -> None:
        self._open = False
        if not self.opened.done():
            self.opened.set_exception(ConnectionError(f"closed during the handshake: {exc}"))
        if not self.closed.done():
            self.closed.set_result(None)

    def data_received(self, data: bytes) -> None:
        buf = self._buf
        buf += data
        if not self._open:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(buf[:end]).decode("latin-1").split("\r\n")
            del buf[: end + 4]
            headers = {}
            for line in head[1:]:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            accept = base64.b64encode(hashlib.sha1(self._key + _GUID).digest()).decode()
            if not head[0].startswith("HTTP/1.1 101") or headers.get("sec-websocket-accept") != (
                accept
            ):
                self.opened.set_exception(ConnectionError(f"handshake refused: {head[0]}"))
                assert self.transport is not None
                self.transport.close()
                return
            self._open = True
            self.opened.set_result(None)
        self._parse()

    def _parse(self) -> None:
        buf = self._buf
        size = len(buf)
        pos = 0
        while size - pos >= 2:
            first = buf[pos]
            second = buf[pos + 1]
            length = second & 0x7F
            head = 2
            if length == 126:
                if size - pos < 4:
                    break
                length = int.from_bytes(buf[pos + 2 : pos + 4], "big")
                head = 4
            elif length == 127:
                if size - pos < 10:
                    break
                length = int.from_bytes(buf[pos + 2 : pos + 10], "big")
                head = 10
            if second & 0x80:
                raise ConnectionError("the server masked a frame")
            end = pos + head + length
            if end > size:
                break
            payload = buf[pos + head : end]
            pos = end
            opcode = first & 0x0F
            if opcode in (1, 2):
                if first & 0x80:
                    self._deliver(payload)
                else:
                    self._fragments = [bytes(payload)]
            elif opcode == 0 and self._fragments is not None:
                self._fragments.append(bytes(payload))
                if first & 0x80:
                    whole, self._fragments = b"".join(self._fragments), None
                    self._deliver(whole)
            elif opcode == 9:
                self.send(bytes(payload), 0xA)
            elif opcode == 8:
                if not self._close_sent:
                    self.send(bytes(payload[:2]), 0x8)
                    self._close_sent = True
                assert self.transport is not None
                self.transport.close()
        if pos:
            del buf[:pos]

    def _deliver(self, payload: Any) -> None:
        try:
            self.on_message(payload)
        except Exception:
            self.failures += 1
            if self.failures <= 3:
                traceback.print_exc()

    # -- API

    def send(self, payload: bytes, opcode: int = 2) -> None:
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        size = len(payload)
        if size < 126:
            header = bytes((0x80 | opcode, 0x80 | size))
        elif size < 65536:
            header = bytes((0x80 | opcode, 0x80 | 126)) + size.to_bytes(2, "big")
        else:
            header = bytes((0x80 | opcode, 0x80 | 127)) + size.to_bytes(8, "big")
        mask = random.getrandbits(32).to_bytes(4, "big")
        transport.write(header + mask + apply_mask(payload, mask))

    def close(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            if self._open and not self._close_sent:
                self.send((1000).to_bytes(2, "big"), 0x8)
                self._close_sent = True
            self.transport.close()


async def open_ws(
    port: int, on_message: Callable[[Any], None], timeout: float = 30.0, path: str = "/ws"
) -> WSClient:
    loop = asyncio.get_running_loop()
    _, client = await asyncio.wait_for(
        loop.create_connection(
            lambda: WSClient("127.0.0.1", port, path, on_message), "127.0.0.1", port
        ),
        timeout,
    )
    await asyncio.wait_for(client.opened, timeout)
    return client


async def close_all(clients: list[WSClient], timeout: float = 5.0) -> None:
    for client in clients:
        client.close()
    pending = [client.closed for client in clients if not client.closed.done()]
    if pending:
        await asyncio.wait(pending, timeout=timeout)


async def bounded(
    count: int, make: Callable[[int], Any], limit: int = CONNECT_CONCURRENCY
) -> list[Any]:
    """Run make(i) for i in range(count), at most ``limit`` at a time, in order of i."""
    results: list[Any] = [None] * count
    next_index = 0

    async def worker() -> None:
        nonlocal next_index
        while next_index < count:
            index = next_index
            next_index += 1
            results[index] = await make(index)

    await asyncio.gather(*(worker() for _ in range(min(limit, count))))
    return results
