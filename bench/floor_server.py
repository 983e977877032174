"""The floor of a move for ``bench.load``: the game server's own I/O for every move, no game.

Run: ``PYTHONPATH=. .venv/bin/python -m bench.floor_server --port N --redis URL``

A Starlette app served by uvicorn with the same options as ``python -m server``. Two
connections share a room (``/ws?room=R&side=0`` and ``side=1``). For every binary frame it
gets, it does what the game server does with a move once the game has decided it, with the
game server's own parts:

- one compare-and-set of the room with the real commit script (``server/lua/commit.lua``)
  through the server's pipelined Redis connection (``DirectConnection``): the stored room, the
  change and the request key have the sizes of a real move, and the change is published;
- the published copy comes back on a subscribed pub/sub connection (``Subscriber``), as every
  move's does to the game server, and is dropped;
- an ack and an update to the sender in one socket write, the update to the other side,
  through the server's frame writer (``SansIOWriter``). The update carries a real seat's view
  of a hand in play, of the mean size of an update frame.

What it leaves out is the game: validating the request, the seat and the sequence number,
applying the move, encoding the room and the views, records and metrics. ``bench.load``
measures it beside the game server, so that what the game server costs above it is the game's
own code, and what the floor costs is what the stack costs whatever the game code does.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from typing import Any

import msgpack
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from bench.engine_moves import new_room, script
from bench.seeds import deal_seed
from server import keys
from server.__main__ import UVICORN_OPTIONS
from server.blobs import RoomBlobs, encode_change
from server.frames import FrameParts, ack_frame, update_frame
from server.room import act
from server.store._base import LUA_DIR, StoreConfig
from server.store.direct import DirectConnection
from server.store.subscriber import FeedSink, Subscriber, open_subscriber
from server.ws import SansIOWriter, frame_writer

#: The mean size of an update frame over 30 seeded matches (``update_frame`` of both seats).
UPDATE_BYTES = 1957
REQUEST_TTL_MS = 3_600_000
EVENTS_MAXLEN = 10_000
ROOM_TTL_MS = 86_400_000


def typical_move() -> tuple[bytes, bytes, bytes]:
    """A seat's encoded view, the stored room and the change of one move of a seeded match,
    the first within a hand (no deal, no hand's end) whose update frame reaches the mean
    size."""
    seed, moves = script(1)
    room = new_room(seed)
    blobs, parts = RoomBlobs(), FrameParts()
    for seq, (seat, action) in enumerate(moves, start=1):
        hand = room.game.hand_number if room.game is not None else 0
        room, events = act(room, seat, action, 1000.0, deal_seed(seed, hand + 1))
        frames = parts.frames(room, seq, events)
        ordinary = not any(event["type"] in ("deal", "hand_over") for event in events)
        if ordinary and len(frames.update(0)) >= UPDATE_BYTES:
            return frames.view(0), blobs.encode_room(room), encode_change(seq, events, seat)
    raise RuntimeError("no move of the seeded match reaches the mean update size")


class Floor:
    """The rooms of the connections, the Redis connections and the move's parts."""

    def __init__(self, redis_url: str) -> None:
        self.redis_url = redis_url
        self.config = StoreConfig()
        self.redis = DirectConnection(redis_url, self.config)
        self.view, self.blob, self.change = typical_move()
        self.rooms: dict[str, list[SansIOWriter | None]] = {}
        self.versions: dict[str, int] = {}
        self.subscriber: Subscriber | None = None
        self.sha: str | None = None
        self._ready = asyncio.Lock()  # binds to the server's loop on first use

    async def ready(self) -> tuple[str, Subscriber]:
        """The commit script's sha and the subscribed connection, made by the first caller."""
        async with self._ready:
            if self.sha is None or self.subscriber is None:
                script_text = (LUA_DIR / "commit.lua").read_text()
                sha = await self.redis.execute("SCRIPT", "LOAD", script_text)
                self.sha = sha.decode() if isinstance(sha, bytes) else str(sha)
                sink = FeedSink(lambda channel, data: None, lambda _: None, lambda _: None)
                self.subscriber = await open_subscriber(self.redis_url, self.config, sink)
        return self.sha, self.subscriber

    async def serve(self, websocket: WebSocket) -> None:
        await websocket.accept()
        room = websocket.query_params["room"]
        side = int(websocket.query_params["side"])
        writer = frame_writer(websocket)
        if writer is None:
            raise RuntimeError("the floor needs uvicorn's sans-I/O websocket protocol")
        sha, subscriber = await self.ready()
        room_keys = keys.room_keys(room)
        if room not in self.rooms:
            self.rooms[room] = [None, None]
            self.versions[room] = 0
            await self.redis.execute("SET", room_keys.version, 0)
            subscriber.subscribe(room_keys.channel.encode())
        self.rooms[room][side] = writer
        writer.write([update_frame(room, 0, [], side, self.view)])  # seated: the client may act
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    return
                frame = message.get("bytes")
                if frame is not None:
                    await self.move(room, side, sha, room_keys, msgpack.unpackb(frame))
        except WebSocketDisconnect:
            return

    async def move(
        self, room: str, side: int, sha: str, room_keys: keys.RoomKeys, request: dict[str, Any]
    ) -> None:
        reply = await self.redis.execute(
            "EVALSHA", sha, 5, *room_keys, self.versions[room], self.blob, self.change,
            f"{side}:{request['id']}", REQUEST_TTL_MS, EVENTS_MAXLEN, ROOM_TTL_MS,
        )  # fmt: skip
        status, seq = reply
        if status != b"ok":
            raise RuntimeError(f"the floor's commit was refused: {reply!r}")
        self.versions[room] = seq
        update = update_frame(room, seq, [], side, self.view)
        writers = self.rooms[room]
        own, other = writers[side], writers[1 - side]
        if own is not None:
            own.write([ack_frame(request["id"], {"seq": seq}), update])
        if other is not None:
            other.write([update])


async def healthz(request: Request) -> Response:
    return PlainTextResponse("ok")


def create_app(redis_url: str) -> Starlette:
    floor = Floor(redis_url)
    return Starlette(routes=[Route("/healthz", healthz), WebSocketRoute("/ws", floor.serve)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=int(os.environ.get("GIN_PORT", "8002")))
    parser.add_argument("--redis", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379"))
    args = parser.parse_args()
    app = create_app(args.redis)
    uvicorn.run(app, host=args.host, port=args.port, lifespan="off", **UVICORN_OPTIONS)


if __name__ == "__main__":
    main()
