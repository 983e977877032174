"""The floor for ``bench.load``: a bare websocket echo server on the game server's own stack.

Run: ``PYTHONPATH=. .venv/bin/python -m bench.echo_server --port N``

A Starlette app served by uvicorn with the same options as ``python -m server`` (same
websocket implementation, frame size limit and keep-alive pings), whose ``/ws`` route decodes
every binary frame as MessagePack and sends the value back re-encoded: one frame in, one frame
out, no validation, no queue, no Redis. ``/healthz`` answers ``ok`` once it is up. What the
game server costs above this is what its own code adds to a round trip.
"""

from __future__ import annotations

import argparse
import os

import msgpack
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from server.__main__ import UVICORN_OPTIONS


async def echo(websocket: WebSocket) -> None:
    await websocket.accept()
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            frame = message.get("bytes")
            if frame is None:
                continue
            await websocket.send_bytes(msgpack.packb(msgpack.unpackb(frame), use_bin_type=True))
    except WebSocketDisconnect:
        return


async def healthz(request: Request) -> Response:
    return PlainTextResponse("ok")


def create_app() -> Starlette:
    return Starlette(routes=[Route("/healthz", healthz), WebSocketRoute("/ws", echo)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=int(os.environ.get("GIN_PORT", "8001")))
    args = parser.parse_args()
    uvicorn.run(create_app(), host=args.host, port=args.port, lifespan="off", **UVICORN_OPTIONS)


if __name__ == "__main__":
    main()
