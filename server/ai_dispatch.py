"""Hands AI seat requests (a Redis stream with a consumer group) to the AI workers connected
to this process. A request is acknowledged in the stream once a worker has bound the seat, or
once the seat turned out to need no AI player (the worker's ``join_room`` was refused: the
room is gone, or the person it was to stand in for came back). One that no worker answered is
claimed again by some process after ``STALE_MS``, and its offer stops counting against the
worker's capacity. A request superseded by a newer one for the same seat is acknowledged and
never offered (see ``server.store.ai``).
A worker whose ``join_room`` for an offered seat was refused for another reason hands the
seat back: the offer is withdrawn at once and the request offered again, to another worker
(to one that handed it back only after ``STALE_MS``, when no other worker took it).
A worker that disconnects gives its seats back: they are requested again for another worker.
(A worker that vanishes without a word is noticed by the seat leases of ``server.ai_seats``.)

When the workers are short of capacity, requests wait, and the waiting ones are served by
rank (``AiSeatRequest.rank``: how many AI seats the asking player held already), then by age:
a player's first AI seat goes before another player's further ones. The dispatcher reads up
to ``READ_BATCH`` requests at a time and keeps those it cannot offer yet (still pending in the
stream: if this process dies, another one claims them after ``STALE_MS``).
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
from server.connection import Connection
from server.store import AiSeatRequest, Store

log = logging.getLogger(__name__)

#: A request handed to a worker that has not bound the seat after this long is handed again.
STALE_MS = 10_000
CLAIM_BLOCK_MS = 1_000
#: Requests read at a time: the lowest ranks among them are offered first.
READ_BATCH = 100

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
    """A request handed to ``worker`` at ``at`` (event loop time) and not answered yet."""

    worker: Worker
    request: AiSeatRequest
    at: float


class AiDispatcher:
    def __init__(self, store: Store, played_here: Callable[[], set[Key]] | None = None) -> None:
        self._store = store
        self._played_here = played_here or set
        self.consumer = f"server-{uuid.uuid4().hex[:12]}"
        self._workers: dict[Connection, Worker] = {}
        self._offers: dict[Key, Offer] = {}
        self._waiting: list[AiSeatRequest] = []
        #: Seats handed back, by the workers that handed them back and when (event loop time).
        self._handed_back: dict[Key, dict[Worker, float]] = {}
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

    async def seat_bound(self, conn: Connection, room_id: str, seat: int) -> None:
        """A worker took the seat (on any of its connections, offered here or not): settle
        the seat's requests."""
        key = (room_id, seat)
        offer = self._withdraw(key)
        self._handed_back.pop(key, None)
        worker = self._workers.get(conn)
        if worker is not None:
            worker.seats.add(key)
        await self._store.settle_ai_seat(room_id, seat, offer.request.entry_id if offer else None)

    async def seat_refused(self, room_id: str, seat: int) -> None:
        """A worker's ``join_room`` for the seat was refused because the seat needs no AI
        player (its room is gone, or its person came back): settle the seat's requests."""
        offer = self._withdraw((room_id, seat))
        self._handed_back.pop((room_id, seat), None)
        await self._store.settle_ai_seat(room_id, seat, offer.request.entry_id if offer else None)
        self._wakeup.set()

    def seat_handed_back(self, conn: Connection, room_id: str, seat: int) -> None:
        """The worker of ``conn`` could not take the seat it was offered (its ``join_room`` was
        refused, and the seat still wants an AI): the offer stops holding its capacity now and
        the request waits for another worker."""
        key = (room_id, seat)
        offer = self._offers.get(key)
        if offer is None or offer.worker.conn is not conn:
            return
        self._withdraw(key)
        self._handed_back.setdefault(key, {})[offer.worker] = asyncio.get_running_loop().time()
        self._waiting.append(offer.request)
        self._wakeup.set()

    def seat_released(self, conn: Connection, room_id: str, seat: int) -> None:
        """The worker's match in that room is over: its capacity is free again."""
        worker = self._workers.get(conn)
        if worker is not None:
            worker.seats.discard((room_id, seat))
            self._wakeup.set()

    async def worker_gone(self, conn: Connection) -> list[tuple[str, int, str]]:
        """Forget a departed worker; returns the seats (room, seat, level) it had been offered
        and not taken yet, whose requests are acknowledged here: the caller asks again."""
        worker = self._workers.pop(conn, None)
        if worker is None:
            return []
        for refusers in self._handed_back.values():
            refusers.pop(worker, None)
        offered: list[tuple[str, int, str]] = []
        for key in list(worker.offered):
            offer = self._withdraw(key)
            assert offer is not None
            await self._store.ack_ai_request(offer.request.entry_id)
            offered.append((key[0], key[1], offer.request.level))
        return offered

    def _withdraw(self, key: Key) -> Offer | None:
        offer = self._offers.pop(key, None)
        if offer is not None:
            offer.worker.offered.discard(key)
        return offer

    def _expire_offers(self, now: float) -> None:
        """Offers unanswered for ``STALE_MS`` stop holding their worker's capacity; their
        requests, still pending, are claimed again (``reclaim_stale_ai_requests``)."""
        for key, offer in list(self._offers.items()):
            if now - offer.at >= STALE_MS / 1000:
                self._withdraw(key)

    def _pick(self, key: Key | None = None) -> Worker | None:
        """The worker with the most free capacity (for ``key``: of those that did not hand
        that seat back in the last ``STALE_MS``)."""
        refused = self._handed_back.get(key, {}) if key is not None else {}
        since = asyncio.get_running_loop().time() - STALE_MS / 1000
        free = [
            worker
            for worker in self._workers.values()
            if worker.free > 0 and refused.get(worker, since) <= since
        ]
        return max(free, key=lambda worker: worker.free, default=None)

    async def _run(self) -> None:
        reclaim_every = 5.0
        loop = asyncio.get_running_loop()
        next_reclaim = loop.time()
        while True:
            try:
                self._expire_offers(loop.time())
                if self._pick() is None:
                    self._wakeup.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._wakeup.wait(), timeout=reclaim_every)
                    continue
                requests: list[AiSeatRequest] = []
                if loop.time() >= next_reclaim:
                    next_reclaim = loop.time() + reclaim_every
                    requests = await self._store.reclaim_stale_ai_requests(
                        self.consumer, STALE_MS, count=READ_BATCH
                    )
                    for request in requests:
                        log.warning(
                            "AI seat offer not taken: handed again",
                            extra={"room": request.room_id, "seat": request.seat},
                        )
                if not requests:
                    requests = await self._store.claim_ai_requests(
                        self.consumer,
                        count=READ_BATCH,
                        block_ms=None if self._waiting else CLAIM_BLOCK_MS,
                    )
                await self._serve(requests)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("AI dispatch failed")
                await asyncio.sleep(1.0)

    async def _serve(self, requests: list[AiSeatRequest]) -> None:
        """Offer the waiting requests and ``requests``, lowest rank first, while a worker has
        room; keep the others waiting."""
        by_entry = {request.entry_id: request for request in (*self._waiting, *requests)}
        self._waiting = []
        waiting = await self._drop_superseded(list(by_entry.values()))
        waiting.sort(key=_service_order)
        played_here = self._played_here() if waiting else set()
        for index, request in enumerate(waiting):
            if self._pick() is None:
                self._waiting = waiting[index:]
                return
            await self._offer(request, played_here)

    async def _drop_superseded(self, requests: list[AiSeatRequest]) -> list[AiSeatRequest]:
        if not requests:
            return requests
        superseded = await self._store.superseded_ai_requests(requests)
        for request in superseded:
            log.info(
                "AI seat request superseded: not offered",
                extra={"room": request.room_id, "seat": request.seat},
            )
            await self._store.ack_ai_request(request.entry_id)
            self._handed_back.pop((request.room_id, request.seat), None)
        dropped = {request.entry_id for request in superseded}
        return [request for request in requests if request.entry_id not in dropped]

    async def _offer(self, request: AiSeatRequest, played_here: set[Key]) -> None:
        key = (request.room_id, request.seat)
        if key in played_here:
            # Asked again while its worker, connected here, still plays it (its lease ran out
            # while the worker re-attached): nothing to hand over.
            await self._store.settle_ai_seat(request.room_id, request.seat, request.entry_id)
            return
        self._withdraw(key)  # an earlier offer of the seat that nobody answered
        worker = self._pick(key)
        if worker is None:
            return  # stays pending; reclaimed after STALE_MS
        worker.offered.add(key)
        self._offers[key] = Offer(worker, request, asyncio.get_running_loop().time())
        worker.conn.send(
            AiSeat(room=request.room_id, seat=request.seat, level=cast(AILevel, request.level))
        )


def _service_order(request: AiSeatRequest) -> tuple[int, int, int]:
    """Lowest rank first, then oldest (a stream entry id is ``<ms>-<n>``)."""
    ms, _, n = request.entry_id.partition("-")
    return request.rank, int(ms), int(n)
