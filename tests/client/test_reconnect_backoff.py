"""A server that accepts the handshake and drops the connection at once is not hammered: the
session's reconnect pause keeps doubling until a connection lasts (``STABLE_SECONDS``)."""

from __future__ import annotations

import asyncio

import websockets

from client.session import Session
from protocol import codec
from protocol import messages as m

WATCH_SECONDS = 3.0


async def test_a_server_that_drops_every_connection_is_not_hammered() -> None:
    connections = 0

    async def accept_then_drop(ws: websockets.ServerConnection) -> None:
        nonlocal connections
        connections += 1
        frame = await ws.recv()
        assert isinstance(frame, bytes)
        hello = codec.decode(frame, direction="client")
        assert isinstance(hello, m.Hello)
        result = {"player_id": "p1", "name": "Ada", "token": "t", "protocol": m.PROTOCOL_VERSION}
        await ws.send(codec.encode(m.Ack(id=hello.id, result=result)))
        await asyncio.sleep(0.01)

    async with websockets.serve(accept_then_drop, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        session = await Session.connect(f"ws://127.0.0.1:{port}", name="Ada")
        try:
            await asyncio.sleep(WATCH_SECONDS)
        finally:
            await session.close()
    # Pauses of 0.05, 0.1, 0.2, 0.4, 0.8, 1.6 s (each x 0.5..1): at most 8 connections in 3 s;
    # a backoff that started over after each successful handshake made about 60.
    print(f"\n{connections} connections in {WATCH_SECONDS} s to a server that drops each one")
    assert 3 <= connections <= 8, connections
