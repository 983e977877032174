"""The game clients: tables of two scripted players acting at random, in private rooms."""

from __future__ import annotations

import asyncio
import random
import sys
import time
from collections.abc import Callable
from typing import Any

import msgpack

from bench.load.stats import Stats
from bench.load.websocket import WSClient, bounded, close_all, open_ws

#: The one move both seats may make (after a hand, either deals the next): only the first
#: seat makes it here, since the second one's, sent at the same time, is refused as
#: ``stale_sequence`` (about one act a hand, ~1 % of the saturated phase's acts).
NEXT_HAND = {"kind": "next_hand"}


class Player:
    """One seat's connection: requests with callbacks, updates handed to its table."""

    __slots__ = ("callbacks", "index", "next_id", "pending", "seq", "table", "ws")

    def __init__(self, table: Table, index: int) -> None:
        self.table = table
        self.index = index
        self.ws: WSClient | None = None
        self.next_id = 1
        self.callbacks: dict[int, Callable[[dict[str, Any]], None]] = {}
        self.seq = -1
        self.pending: tuple[int, list[dict[str, Any]]] | None = None

    def request(
        self, message: dict[str, Any], on_reply: Callable[[dict[str, Any]], None] | None = None
    ) -> int:
        request_id = self.next_id
        self.next_id += 1
        message["id"] = request_id
        if on_reply is not None:
            self.callbacks[request_id] = on_reply
        assert self.ws is not None
        self.ws.send(msgpack.packb(message))
        return request_id

    async def call(self, message: dict[str, Any]) -> dict[str, Any]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.request(message, future.set_result)
        return await asyncio.wait_for(future, 30.0)

    def on_message(self, data: Any) -> None:
        now = time.perf_counter()
        message = msgpack.unpackb(data)
        kind = message["t"]
        if kind in ("update", "snapshot"):
            self.table.on_update(self, message, now)
        elif kind in ("ack", "error"):
            callback = self.callbacks.pop(message["id"], None)
            if callback is not None:
                callback(message)
            else:
                self.table.game.on_act_reply(message)
        else:
            self.table.game.stats.errors[f"{kind}:{message.get('code', '')}"] += 1


class Table:
    """Two players in one private room; a new room when the match is over."""

    __slots__ = ("game", "invite", "last_progress", "players", "restarting", "room", "sent")

    def __init__(self, game: GameLoad) -> None:
        self.game = game
        self.players = (Player(self, 0), Player(self, 1))
        self.room: str | None = None
        self.invite = ""
        self.sent: dict[int, float] = {}
        self.restarting = False
        self.last_progress = time.perf_counter()

    async def open(self, port: int) -> None:
        for player in self.players:
            player.ws = await open_ws(port, player.on_message)
            reply = await player.call(
                {"t": "hello", "version": "1.0", "name": "bench", "client": "bench/load"}
            )
            if reply["t"] != "ack":
                raise RuntimeError(f"hello refused: {reply}")
        await self.new_match()

    async def new_match(self) -> None:
        creator, joiner = self.players
        created: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def on_created(reply: dict[str, Any]) -> None:
            if reply["t"] != "ack":
                created.set_exception(RuntimeError(f"create_room refused: {reply}"))
                return
            # Set inside the callback: the room's first update follows in the same read.
            self.room = reply["result"]["room"]
            self.invite = reply["result"]["invite"]
            self.sent.clear()
            for player in self.players:
                player.seq = -1
                player.pending = None
            created.set_result(None)

        creator.request({"t": "create_room", "mode": "private"}, on_created)
        await asyncio.wait_for(created, 30.0)
        reply = await joiner.call({"t": "join_room", "invite": self.invite})
        if reply["t"] != "ack":
            raise RuntimeError(f"join_room refused: {reply}")
        self.restarting = False

    def on_update(self, player: Player, message: dict[str, Any], now: float) -> None:
        if message["room"] != self.room:
            return
        seq = message["seq"]
        if seq <= player.seq:
            return
        player.seq = seq
        self.last_progress = now
        if self.players[1 - player.index].seq >= seq:
            started = self.sent.pop(seq - 1, None)
            if started is not None:
                self.game.stats.sample(started, now)
        view = message.get("view")
        if view is None:
            return
        if view["status"] == "finished":
            if player.index == 0 and not self.restarting:
                self.restarting = True
                self.game.matches += 1
                task = asyncio.ensure_future(self.new_match())
                task.add_done_callback(_report_failure)
            return
        game = view.get("game")
        if game:
            legal = game["legal_actions"]
            if legal and not (player.index == 1 and legal == [NEXT_HAND]):
                self.game.decide(self, player, seq, legal)


class GameLoad:
    """N tables playing random legal actions."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.tables: list[Table] = []
        self.stats = Stats("idle")
        self.running = False
        self.think = 0.0
        self.matches = 0
        self.loop = asyncio.get_running_loop()

    async def open(self, count: int) -> None:
        async def make(_index: int) -> Table:
            table = Table(self)
            await table.open(self.port)
            return table

        self.tables.extend(await bounded(count, make))

    def on_act_reply(self, reply: dict[str, Any]) -> None:
        stats = self.stats
        if reply["t"] == "ack":
            if stats.measuring:
                stats.done += 1
        elif stats.measuring:
            stats.errors[reply.get("code", "?")] += 1

    def decide(self, table: Table, player: Player, seq: int, legal: list[dict[str, Any]]) -> None:
        player.pending = (seq, legal)
        if not self.running:
            return
        if self.think > 0:
            self.loop.call_later(
                random.expovariate(1 / self.think), self._act_later, table, player, seq
            )
        else:
            self._act(table, player, seq, legal)

    def _act_later(self, table: Table, player: Player, seq: int) -> None:
        pending = player.pending
        if not self.running or pending is None or pending[0] != seq or player.seq != seq:
            return
        self._act(table, player, seq, pending[1])

    def _act(self, table: Table, player: Player, seq: int, legal: list[dict[str, Any]]) -> None:
        player.pending = None
        table.sent.setdefault(seq, time.perf_counter())
        if self.stats.measuring:
            self.stats.sent += 1
        player.request({"t": "act", "room": table.room, "seq": seq, "action": random.choice(legal)})

    def go(self, stats: Stats, think: float) -> None:
        """Start (or re-pace) playing: every seat with a decision waiting acts."""
        self.stats = stats
        self.think = think
        was_running, self.running = self.running, True
        if was_running:
            return
        for table in self.tables:
            for player in table.players:
                if player.pending is not None and player.pending[0] == player.seq:
                    self.decide(table, player, *player.pending)

    def stop(self) -> None:
        self.running = False

    def stalled(self, since: float) -> int:
        """Tables that made no progress since ``since`` (a perf_counter time)."""
        return sum(1 for table in self.tables if table.last_progress < since)

    def unanswered(self, seconds: float) -> int:
        """Acts whose update did not reach both seats within ``seconds``."""
        horizon = time.perf_counter() - seconds
        return sum(1 for t in self.tables for sent in t.sent.values() if sent < horizon)

    async def close(self) -> None:
        self.running = False
        await close_all([p.ws for t in self.tables for p in t.players if p.ws is not None])


def _report_failure(task: asyncio.Future[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        print(f"  ! a table could not start a new match: {task.exception()}", file=sys.stderr)
