"""Raw websocket connections for the abuse tests: an attacker's view of the server, no
``client.session`` in between (it would say hello, pace itself, and reconnect)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from protocol import codec
from protocol import messages as m


async def open_raw(
    port: int, *, host: str = "127.0.0.1", headers: Mapping[str, str] | None = None
) -> ClientConnection:
    """A websocket to the server on ``127.0.0.1:port`` that names ``host`` in its Host header."""
    sock = socket.create_connection(("127.0.0.1", port))
    return await connect(
        f"ws://{host}:{port}/ws",
        sock=sock,
        compression=None,
        proxy=None,
        open_timeout=10,
        close_timeout=2,
        ping_interval=None,
        additional_headers=dict(headers or {}),
    )


@dataclass
class Ending:
    """What a connection got until the server closed it: answers by type or error code, the
    ``bye`` code, the close code."""

    answers: Counter[str] = field(default_factory=Counter)
    bye: str | None = None
    close: int | None = None


async def read_until_closed(ws: ClientConnection, timeout: float = 30.0) -> Ending:
    """Read until the server closes ``ws``; a ``TimeoutError`` when it never does."""
    ending = Ending()

    async def read() -> None:
        with contextlib.suppress(ConnectionClosed):
            async for data in ws:
                message = codec.decode(data, direction="server")  # type: ignore[arg-type]
                if isinstance(message, m.Error):
                    ending.answers[str(message.code)] += 1
                elif isinstance(message, m.Bye):
                    ending.bye = str(message.code)
                else:
                    ending.answers[message.t] += 1

    await asyncio.wait_for(read(), timeout)
    ending.close = ws.close_code
    return ending


async def request(ws: ClientConnection, message: m.Message) -> m.ServerMessage:
    """Send ``message`` and return the first answer (ack, error, pong or bye): a ``bye`` may
    come before it was sent (a refused connection)."""
    with contextlib.suppress(ConnectionClosed):
        await ws.send(codec.encode(message))
    while True:
        answer = codec.decode(await asyncio.wait_for(ws.recv(), 10), direction="server")  # type: ignore[arg-type]
        if isinstance(answer, m.Ack | m.Error | m.Pong | m.Bye):
            return answer


def hello(number: int = 0, **fields: object) -> m.Hello:
    return m.Hello(id=f"h{number}", version=m.PROTOCOL_VERSION, **fields)  # type: ignore[arg-type]
