"""Hands the seats waiting for an AI player to the AI workers connected to this process.

The waiting seats are one queue in Redis, shared by every server process (``{ai}:queue``, see
``server.store.ai``), in the order they are served: by rank (``AiSeatRequest.rank``: how many
AI seats the asking player held already), then by age, so a player's first AI seat goes
before another player's further ones, and otherwise the oldest waiting seat goes first. A
seat asked for again keeps its place.

While a worker connected here has free capacity, the dispatcher takes the queue's first seats
that no worker has been offered (one script, which marks them offered for ``STALE_MS``: no
other process offers them meanwhile) and offers each to the worker with the most free
capacity. Capacity freed on any process (a match over, a worker's seat given up, a new
worker) is so spent on the oldest waiting seat, wherever it was asked for.

A seat leaves the queue once a worker has bound it, or once it turned out to need no AI
player (the room is gone or over, the person it was to stand in for came back, or the
worker's ``join_room`` was refused for one of those reasons). An offer that no worker
answered lapses after ``STALE_MS``: it stops counting against the worker's capacity, and the
seat is taken again by some process. A worker whose ``join_room`` for an offered seat was
refused for another reason hands the seat back: the offer is withdrawn at once and the seat
offered to another worker (to one that handed it back only after ``STALE_MS``). A worker that
disconnects gives its seats back: they are asked for again (keeping their place).
(A worker that vanishes without a word is noticed by the seat leases of ``server.ai_seats``.)

The request stream's new entries wake up a dispatcher whose workers have room (one that has
none leaves them to another); each is acknowledged as soon as read, and one written before
the queue existed is put in the queue at its entry's age. A dispatcher whose read finds
nothing looks at the queue again every ``CLAIM_BLOCK_MS``, for the seats that another process
was woken for but had no room for.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import cast

from protocol.messages import AILevel, AiSeat
from server.blobs import decode_room
from server.connection import Connection
from server.room import ai_level_wanted, ai_seat_paused
from server.store import AiSeatRequest, Store

log = logging.getLogger(__name__)

#: A seat offered to a worker that has not bound it after this long is offered again.
STALE_MS = 10_000
CLAIM_BLOCK_MS = 1_000
#: Stream entries read at a time.
READ_BATCH = 100
#: Requests that a dead server read and never acknowledged are looked for this often.
RECLAIM_EVERY = 5.0

Key = tuple[str, int]
"""A seat: (room id, seat index)."""


@dataclass(eq=False)
class Worker:
    conn: Connection
    capacity: int
    seats: set[Key] = field(default_factory=set)
    offered: set[Key] = field(default_factory=set)

    @property
    def free(self) -> int:
        return self.capacity - len(self.seats) - len(self.offered)


@dataclass(frozen=True, slots=True)
class Offer:
    """A seat offered to ``worker`` at ``at`` (event loop time) and not answered yet."""

    worker: Worker
    level: str
    at: float


class AiDispatcher:
    def __init__(self, store: Store, played_here: Callable[[], set[Key]] | None = None) -> None:
        self._store = store
        self._played_here = played_here or set
        self.consumer = f"server-{uuid.uuid4().hex[:12]}"
        self._workers: dict[Connection, Worker] = {}
        self._offers: dict[Key, Offer] = {}
        #: Seats handed back, by the workers that handed them back and when (event loop time).
        self._handed_back: dict[Key, dict[Worker, float]] = {}
        #: Seats handed back whose offer is still to be withdrawn in Redis.
        self._to_release: set[Key] = set()
        self._wakeup = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="ai dispatcher")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def subscribe(self, conn: Connection, capacity: int) -> None:
        worker = self._workers.get(conn)
        if worker is None:
            self._workers[conn] = Worker(conn, capacity)
        else:
            worker.capacity = capacity
        self._wakeup.set()

    def capacity(self) -> tuple[int, int]:
        """The workers connected here: their seats in all, and how many are free."""
        workers = self._workers.values()
        return sum(w.capacity for w in workers), sum(max(w.free, 0) for w in workers)

    async def seat_bound(self, conn: Connection, room_id: str, seat: int) -> None:
        """A worker took the seat (on any of its connections, offered here or not): the seat
        leaves the queue."""
        key = (room_id, seat)
        self._withdraw(key)
        self._handed_back.pop(key, None)
        worker = self._workers.get(conn)
        if worker is not None:
            worker.seats.add(key)
        await self._store.settle_ai_seat(room_id, seat)

    async def seat_refused(self, room_id: str, seat: int) -> None:
        """A worker's ``join_room`` for the seat was refused because the seat needs no AI
        player (its room is gone, or its person came back): the seat leaves the queue."""
        self._withdraw((room_id, seat))
        self._handed_back.pop((room_id, seat), None)
        await self._store.settle_ai_seat(room_id, seat)
        self._wakeup.set()

    def seat_handed_back(self, conn: Connection, room_id: str, seat: int) -> None:
        """The worker of ``conn`` could not take the seat it was offered (its ``join_room`` was
        refused, and the seat still wants an AI): the offer stops holding its capacity now and
        the seat waits for another worker."""
        key = (room_id, seat)
        offer = self._offers.get(key)
        if offer is None or offer.worker.conn is not conn:
            return
        self._withdraw(key)
        self._handed_back.setdefault(key, {})[offer.worker] = asyncio.get_running_loop().time()
        self._to_release.add(key)
        self._wakeup.set()

    def seat_released(self, conn: Connection, room_id: str, seat: int) -> None:
        """The worker's match in that room is over (or it left the seat): its capacity is free
        again, for the oldest waiting seat."""
        worker = self._workers.get(conn)
        if worker is not None:
            worker.seats.discard((room_id, seat))
            self._wakeup.set()

    async def worker_gone(self, conn: Connection) -> list[tuple[str, int, str]]:
        """Forget a departed worker; returns the seats (room, seat, level) it had been offered
        and not taken yet, whose offers are withdrawn here: the caller asks again."""
        worker = self._workers.pop(conn, None)
        if worker is None:
            return []
        for refusers in self._handed_back.values():
            refusers.pop(worker, None)
        offered: list[tuple[str, int, str]] = []
        for key in list(worker.offered):
            offer = self._withdraw(key)
            assert offer is not None
            await self._store.release_ai_offer(*key)
            offered.append((key[0], key[1], offer.level))
        self._wakeup.set()
        return offered

    def _withdraw(self, key: Key) -> Offer | None:
        offer = self._offers.pop(key, None)
        if offer is not None:
            offer.worker.offered.discard(key)
        return offer

    def _expire_offers(self, now: float) -> None:
        """Offers unanswered for ``STALE_MS`` stop holding their worker's capacity (their mark
        in Redis lapses at the same time: some process takes the seat again)."""
        for key, offer in list(self._offers.items()):
            if now - offer.at >= STALE_MS / 1000:
                self._withdraw(key)
        since = now - STALE_MS / 1000
        for key, refusers in list(self._handed_back.items()):
            for worker, at in list(refusers.items()):
                if at <= since:
                    del refusers[worker]
            if not refusers:
                del self._handed_back[key]

    def _pick(self, key: Key | None = None) -> Worker | None:
        """The worker with the most free capacity (for ``key``: of those that did not hand
        that seat back in the last ``STALE_MS``)."""
        refused = self._handed_back.get(key, {}) if key is not None else {}
        free = [worker for worker in self._workers.values() if worker.free > 0]
        free = [worker for worker in free if worker not in refused]
        return max(free, key=lambda worker: worker.free, default=None)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        next_reclaim = loop.time()
        signals: asyncio.Task[list[AiSeatRequest]] | None = None
        try:
            while True:
                try:
                    self._wakeup.clear()
                    await self._release_handed_back()
                    self._expire_offers(loop.time())
                    if loop.time() >= next_reclaim and self._pick() is not None:
                        next_reclaim = loop.time() + RECLAIM_EVERY
                        await self._queue(
                            await self._store.reclaim_stale_ai_requests(
                                self.consumer, STALE_MS, count=READ_BATCH
                            )
                        )
                    free = self._pick() is not None
                    if free and await self._serve():
                        continue  # more seats may wait
                    # Wait for a change of this process's capacity, and while a worker here
                    # has room, for a new request (a process whose workers are full leaves
                    # the stream's entries to one whose workers are not).
                    if signals is None and free:
                        signals = asyncio.create_task(
                            self._store.claim_ai_requests(
                                self.consumer, count=READ_BATCH, block_ms=CLAIM_BLOCK_MS
                            )
                        )
                    woken = asyncio.create_task(self._wakeup.wait())
                    try:
                        await asyncio.wait(
                            {woken} if signals is None else {signals, woken},
                            timeout=RECLAIM_EVERY,
                            return_when=asyncio.FIRST_COMPLETED,
                        )
                    finally:
                        woken.cancel()
                    if signals is not None and signals.done():
                        read, signals = signals, None
                        await self._queue(read.result())
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("AI dispatch failed")
                    await asyncio.sleep(1.0)
        finally:
            if signals is not None:
                signals.cancel()
                with contextlib.suppress(BaseException):
                    await signals

    async def _release_handed_back(self) -> None:
        while self._to_release:
            key = self._to_release.pop()
            await self._store.release_ai_offer(*key)

    async def _queue(self, requests: list[AiSeatRequest]) -> None:
        """Stream entries read: each one still wanted is in the queue (a request made before
        the queue existed is put there), and each is acknowledged."""
        if not requests:
            return
        superseded = {r.entry_id for r in await self._store.superseded_ai_requests(requests)}
        await self._store.queue_ai_requests(r for r in requests if r.entry_id not in superseded)
        for request in requests:
            await self._store.ack_ai_request(request.entry_id)

    async def _serve(self) -> int:
        """Offer the first waiting seats of the queue to the workers connected here, while
        they have room; returns how many seats were dealt with (offered, or found to need no
        AI player)."""
        _, free = self.capacity()
        skip = [key for key in self._handed_back if self._pick(key) is None]
        taken = await self._store.take_ai_seats(free, STALE_MS, skip)
        played_here = self._played_here() if taken else set()
        dealt = 0
        for room_id, seat in taken:
            key = (room_id, seat)
            if key in played_here:
                # Asked again while its worker, connected here, still plays it (its lease ran
                # out while the worker re-attached): nothing to hand over.
                await self._store.settle_ai_seat(room_id, seat)
                dealt += 1
                continue
            level = await self._level_wanted(room_id, seat)
            if level is None:
                # Nobody needs an AI there (now): the seat's lease ends with its place, so
                # that a person back in a paused room has it asked for again.
                await self._store.drop_ai_lease(room_id, seat)
                dealt += 1
                continue
            worker = self._pick(key)
            if worker is None:
                await self._store.release_ai_offer(room_id, seat)
                continue
            self._withdraw(key)
            worker.offered.add(key)
            self._offers[key] = Offer(worker, level, asyncio.get_running_loop().time())
            worker.conn.send(AiSeat(room=room_id, seat=seat, level=cast(AILevel, level)))
            dealt += 1
        return dealt

    async def _level_wanted(self, room_id: str, seat: int) -> str | None:
        """The level of the AI the seat waits for, or None if it needs none any more."""
        loaded = await self._store.load_room(room_id)
        if loaded is None:
            return None
        room = decode_room(loaded[1])
        if room.status != "playing" or seat >= len(room.seats) or ai_seat_paused(room, seat):
            return None  # (a paused seat is asked for again when its person is back)
        return ai_level_wanted(room, seat)
