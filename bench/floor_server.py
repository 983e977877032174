"""The floor of a move for ``bench.load``: the game server's own I/O for every move, no game.

Run: ``PYTHONPATH=. .venv/bin/python -m bench.floor_server --port N --redis URL
[--cluster] [--wait-replicas N]``

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

With ``--cluster`` (``URL`` names a node of a Redis Cluster) it does the same on a cluster, as
the game server does with ``GIN_REDIS_CLUSTER=1``: the commit goes to the master of the room's
slot on the server's cluster connection (``ClusterConnection``, a pipelined connection per
master), the script publishes with ``SPUBLISH`` (its last argument) and the copy comes back on
an ``SSUBSCRIBE`` connection to that master. ``--wait-replicas N`` follows each commit with
``WAIT N`` on the same connection, as ``GIN_REDIS_WAIT_REPLICAS`` does, and refuses a move
that fewer replicas confirmed.

What it leaves out is the game: validating the request, the seat and the sequence number,
applying the move, encoding the room and the views, records and metrics. ``bench.load``
measures it beside the game server, so that what the game server costs above it is the game's
own code, and what the floor costs is what the stack costs whatever the game code does.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
from collections.abc import Sequence
from typing import Any

import msgpack
import uvicorn
from redis.exceptions import ResponseError
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
from server.store.cluster import Address, ClusterConnection, node_url
from server.store.direct import DirectConnection
from server.store.slots import Command
from server.store.subscriber import FeedSink, Subscriber, open_subscriber
from server.ws import SansIOWriter, frame_writer

#: The mean size of an update frame over 30 seeded matches (``update_frame`` of both seats).
UPDATE_BYTES = 1957
REQUEST_TTL_MS = 600_000
REQUEST_KEYS_MAX = 128
EVENTS_MAXLEN = 10_000
ROOM_TTL_MS = 86_400_000
#: How long a commit waits for its replicas (``GIN_REDIS_WAIT_TIMEOUT_MS``'s default).
WAIT_TIMEOUT_MS = 20_000


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

    def __init__(
        self,
        redis_url: str,
        *,
        cluster: bool = False,
        wait_replicas: int = 0,
        tls_ca: str | None = None,
    ) -> None:
        self.redis_url = redis_url
        self.config = StoreConfig(cluster=cluster, wait_replicas=wait_replicas, tls_ca=tls_ca)
        self.redis: DirectConnection | ClusterConnection = (
            ClusterConnection(redis_url, self.config)
            if cluster
            else DirectConnection(redis_url, self.config)
        )
        self.publish = "SPUBLISH" if cluster else "PUBLISH"
        self.wait: Command | None = (
            ("WAIT", wait_replicas, WAIT_TIMEOUT_MS) if wait_replicas else None
        )
        self.view, self.blob, self.change = typical_move()
        self.rooms: dict[str, list[SansIOWriter | None]] = {}
        self.versions: dict[str, int] = {}
        self.script = (LUA_DIR / "commit.lua").read_bytes()
        self.sha = hashlib.sha1(self.script).hexdigest()
        #: One subscribed connection: the Redis's, or one per master (sharded pub/sub).
        self.subscribers: dict[Address | None, Subscriber] = {}
        self._ready = asyncio.Lock()  # binds to the server's loop on first use

    async def subscriber_of(self, channel: bytes) -> Subscriber:
        """The subscribed connection ``channel``'s messages come on, made by the first caller."""
        async with self._ready:
            sink = FeedSink(lambda channel, data: None, lambda _: None, lambda _: None)
            redis = self.redis
            if not isinstance(redis, ClusterConnection):
                if None not in self.subscribers:
                    self.subscribers[None] = await open_subscriber(
                        self.redis_url, self.config, sink
                    )
                return self.subscribers[None]
            if not redis.covered:
                await redis.refresh()
            owner = redis.owner(keys.hash_slot(channel))
            assert owner is not None, "the cluster serves every slot"
            if owner not in self.subscribers:
                self.subscribers[owner] = await open_subscriber(
                    node_url(self.redis_url, owner), self.config, sink, sharded=True
                )
            return self.subscribers[owner]

    async def commit(self, room_keys: keys.RoomKeys, args: Sequence[Any]) -> Any:
        """The commit script (loaded where it is missing), then ``WAIT`` when asked: the
        script's reply."""
        call: Command = (
            "EVALSHA", self.sha, 5, *room_keys, *args, self.publish, REQUEST_KEYS_MAX, ROOM_TTL_MS
        )  # fmt: skip
        commands: tuple[Command, ...] = (call,) if self.wait is None else (call, self.wait)
        replies = await self.redis.run(commands)
        if isinstance(replies[0], ResponseError) and str(replies[0]).startswith("NOSCRIPT"):
            replies = (await self.redis.run((("SCRIPT", "LOAD", self.script), *commands)))[1:]
        if isinstance(replies[0], ResponseError):
            raise replies[0]
        if self.wait is not None and int(replies[1]) < int(self.wait[1]):
            raise RuntimeError(f"{replies[1]} replicas confirmed the floor's commit in time")
        return replies[0]

    async def serve(self, websocket: WebSocket) -> None:
        await websocket.accept()
        room = websocket.query_params["room"]
        side = int(websocket.query_params["side"])
        writer = frame_writer(websocket)
        if writer is None:
            raise RuntimeError("the floor needs uvicorn's sans-I/O websocket protocol")
        room_keys = keys.room_keys(room)
        if room not in self.rooms:
            self.rooms[room] = [None, None]
            self.versions[room] = 0
            await self.redis.execute("SET", room_keys.version, 0)
            channel = room_keys.channel.encode()
            (await self.subscriber_of(channel)).subscribe(channel)
        self.rooms[room][side] = writer
        writer.write([update_frame(room, 0, [], side, self.view)])  # seated: the client may act
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    return
                frame = message.get("bytes")
                if frame is not None:
                    await self.move(room, side, room_keys, msgpack.unpackb(frame))
        except WebSocketDisconnect:
            return

    async def move(
        self, room: str, side: int, room_keys: keys.RoomKeys, request: dict[str, Any]
    ) -> None:
        args = (
            self.versions[room], self.blob, self.change, f"{side}:{request['id']}",
            REQUEST_TTL_MS, EVENTS_MAXLEN, ROOM_TTL_MS,
        )  # fmt: skip
        reply = await self.commit(room_keys, args)
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


def create_app(
    redis_url: str, *, cluster: bool = False, wait_replicas: int = 0, tls_ca: str | None = None
) -> Starlette:
    floor = Floor(redis_url, cluster=cluster, wait_replicas=wait_replicas, tls_ca=tls_ca)
    return Starlette(routes=[Route("/healthz", healthz), WebSocketRoute("/ws", floor.serve)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=int(os.environ.get("GIN_PORT", "8002")))
    parser.add_argument("--redis", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379"))
    parser.add_argument(
        "--cluster", action="store_true", help="--redis names a node of a Redis Cluster"
    )
    parser.add_argument(
        "--wait-replicas",
        type=int,
        default=0,
        metavar="N",
        help="each commit waits (WAIT) for N replicas (default 0: no wait)",
    )
    parser.add_argument(
        "--tls-ca", default=None, metavar="FILE", help="rediss:// URLs: the CA of Redis's cert"
    )
    args = parser.parse_args()
    app = create_app(
        args.redis, cluster=args.cluster, wait_replicas=args.wait_replicas, tls_ca=args.tls_ca
    )
    uvicorn.run(app, host=args.host, port=args.port, lifespan="off", **UVICORN_OPTIONS)


if __name__ == "__main__":
    main()
