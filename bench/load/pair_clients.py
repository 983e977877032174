"""The baselines' clients: pairs of connections to the echo or the floor server."""

from __future__ import annotations

import asyncio
import base64
import functools
import os
import random
import time
from typing import Any

import msgpack

from bench.load.stats import Stats
from bench.load.websocket import WSClient, bounded, close_all, open_ws


class EchoPair:
    """Two connections; one act-sized frame in flight, sides alternating."""

    __slots__ = ("clients", "load", "n", "room", "started", "turn")

    def __init__(self, load: PairLoad, index: int) -> None:
        self.load = load
        self.clients: list[WSClient] = []
        self.turn = 0
        self.n = 0
        self.started = 0.0
        self.room = "r" + base64.urlsafe_b64encode(os.urandom(9)).decode()

    def path(self, side: int) -> str:
        return "/ws"

    async def open(self, port: int) -> None:
        for side in (0, 1):
            on_message = functools.partial(self.on_message, side)
            self.clients.append(await open_ws(port, on_message, path=self.path(side)))

    def send(self) -> None:
        self.n += 1
        frame = msgpack.packb(
            {"t": "act", "id": self.n, "room": self.room, "seq": self.n - 1,
             "action": {"kind": "discard", "card": "QS"}}
        )  # fmt: skip
        self.started = time.perf_counter()
        self.clients[self.turn].send(frame)

    def on_message(self, side: int, data: Any) -> None:
        now = time.perf_counter()
        msgpack.unpackb(data)
        if side == self.turn:
            self.done(now)

    def done(self, now: float) -> None:
        """The frame in flight has done its round: count it, and the other side sends next."""
        stats = self.load.stats
        if stats.measuring:
            stats.done += 1
            stats.sample(self.started, now)
        self.turn ^= 1
        self.load.next(self)


class FloorPair(EchoPair):
    """Two connections sharing a room of the floor server; one act in flight, sides
    alternating; done when both sides hold the update of the act's move (as a game table)."""

    __slots__ = ("held", "seated")

    def __init__(self, load: PairLoad, index: int) -> None:
        super().__init__(load, index)
        self.held = [-1, -1]
        self.seated: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def path(self, side: int) -> str:
        return f"/ws?room={self.room}&side={side}"

    async def open(self, port: int) -> None:
        await super().open(port)
        await asyncio.wait_for(self.seated, 30.0)  # both seats' first update (seq 0)

    def on_message(self, side: int, data: Any) -> None:
        now = time.perf_counter()
        message = msgpack.unpackb(data)
        if message["t"] != "update":
            return
        self.held[side] = message["seq"]
        if self.n == 0:
            if self.held == [0, 0] and not self.seated.done():
                self.seated.set_result(None)
        elif self.held[0] == self.held[1] == self.n:
            self.done(now)


class PairLoad:
    """N pairs of connections to a baseline server: the echo's (``EchoPair``) or the floor's
    (``FloorPair``)."""

    def __init__(self, port: int, pair: type[EchoPair] = EchoPair) -> None:
        self.pair = pair
        self.port = port
        self.pairs: list[EchoPair] = []
        self.stats = Stats("idle")
        self.running = False
        self.think = 0.0
        self.loop = asyncio.get_running_loop()

    async def open(self, count: int) -> None:
        async def make(index: int) -> EchoPair:
            pair = self.pair(self, index)
            await pair.open(self.port)
            return pair

        self.pairs.extend(await bounded(count, make))

    def next(self, pair: EchoPair) -> None:
        if not self.running:
            return
        if self.think > 0:
            self.loop.call_later(random.expovariate(1 / self.think), self._send_later, pair)
        else:
            pair.send()

    def _send_later(self, pair: EchoPair) -> None:
        if self.running:
            pair.send()

    def go(self, stats: Stats, think: float) -> None:
        self.stats = stats
        self.think = think
        if self.running:
            return
        self.running = True
        for pair in self.pairs:
            self.next(pair)

    def stop(self) -> None:
        self.running = False

    async def close(self) -> None:
        self.running = False
        await close_all([c for pair in self.pairs for c in pair.clients])
