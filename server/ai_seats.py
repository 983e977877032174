"""Keeps every AI-played seat played: the leases of ``ai:leases`` (see ``server.store.ai``).

Asking for an AI player holds the seat's lease for ``3 x lease``: the time a worker has to
take it. While a worker connected to this process plays a seat, this process renews the
seat's lease every ``lease / 3``. A seat whose lease ran out lost its player without a word
(its server was killed together with the worker's connection, or the worker died while it
re-attached to another server): one server claims the lease and asks for the seat again.

It also tells what the AI seats are doing to everyone: each process writes how many seats its
workers play, by level (``share_in_use``, read by ``/metrics``), and reads where each seat that
its rooms wait for stands in the queue (``queue_places``: the rooms' views say it).
"""

from __future__ import annotations

import logging
import time
from collections import Counter

from server.blobs import decode_room
from server.hub import Hub
from server.room import Room, ai_level_wanted, ai_seat_paused
from server.store import Store

log = logging.getLogger(__name__)

#: A request for a seat holds its lease this many lease periods (a worker takes it meanwhile).
REQUEST_HOLD_LEASES = 3
#: A seat that has waited this long for an AI player has its place in the queue told (one
#: served at once is not worth a word).
QUEUE_TOLD_AFTER_MS = 1_000


class AiSeatKeeper:
    def __init__(self, store: Store, hub: Hub, lease_seconds: float) -> None:
        self._store = store
        self._hub = hub
        self.lease_seconds = lease_seconds
        #: The levels this process last wrote a count of (``share_in_use``).
        self._levels_shared: set[str] = set()

    def _ms_from_now(self, seconds: float) -> int:
        return int((time.time() + seconds) * 1000)

    async def request(
        self, room_id: str, seat: int, level: str, rank: int = 0, asked_ms: int | None = None
    ) -> None:
        """Ask the AI workers for a player of ``level`` in ``seat``; ``rank``: the AI seats
        the asking player holds already (workers short of capacity serve low ranks first);
        ``asked_ms``: its age in the queue (None: now)."""
        hold = self._ms_from_now(self.lease_seconds * REQUEST_HOLD_LEASES)
        await self._store.request_ai_seat(
            room_id, seat, level, hold_until_ms=hold, rank=rank, asked_ms=asked_ms
        )

    async def person_back(self, room: Room) -> None:
        """The person of a room against the AI is back: an AI seat that its worker gave up
        while they were away (it has no lease) is asked for again, at the room's age in the
        queue (the person goes before those who came after their room was made)."""
        if room.status != "playing":
            return
        for index, seat in enumerate(room.seats):
            if seat.ai is None or await self._store.ai_lease_end(room.id, index) is not None:
                continue
            log.info("AI seat asked for again: its person is back", extra={"room": room.id})
            await self.request(room.id, index, seat.ai, asked_ms=int(room.created_at * 1000))

    def played_here(self) -> set[tuple[str, int]]:
        """The seats that workers connected to this process play now, by the rooms as this
        process last saw them."""
        return set(self._played_here_levels())

    def _played_here_levels(self) -> dict[tuple[str, int], str]:
        rooms = dict(self._hub.followed_rooms())
        seats: dict[tuple[str, int], str] = {}
        for conn in self._hub.connections():
            if not conn.is_worker:
                continue
            for room_id, subscription in conn.rooms.items():
                room = rooms.get(room_id)
                index = subscription.seat
                if room is None or index is None or room.status != "playing":
                    continue
                level = room.seats[index].ai_level
                if room.seats[index].ai_player == conn.player_id and level is not None:
                    seats[(room_id, index)] = level
        return seats

    async def share_in_use(self, ttl_seconds: float) -> dict[str, int]:
        """Write how many seats the workers connected here play, by level, valid for
        ``ttl_seconds`` unless written again (``Store.ai_in_use`` sums every process's)."""
        counts = dict(Counter(self._played_here_levels().values()))
        written = {level: counts.get(level, 0) for level in self._levels_shared | set(counts)}
        await self._store.set_ai_in_use(
            self._hub.process_id, written, max(1, int(ttl_seconds * 1000))
        )
        self._levels_shared = set(counts)
        return counts

    async def queue_places(self) -> dict[str, int]:
        """The rooms followed here that wait for an AI player (for a while: see
        ``QUEUE_TOLD_AFTER_MS``), each with its place in the queue (1: served next)."""
        seats = [
            (room_id, index)
            for room_id, room in self._hub.followed_rooms()
            if room.status == "playing"
            for index in range(len(room.seats))
            if ai_level_wanted(room, index) is not None
        ]
        told_before = self._ms_from_now(0) - QUEUE_TOLD_AFTER_MS
        places: dict[str, int] = {}
        for (room_id, _), place in (await self._store.ai_queue_places(seats)).items():
            if place.asked_ms <= told_before:
                places[room_id] = min(place.position, places.get(room_id, place.position))
        return places

    async def renew(self, seats: set[tuple[str, int]] | None = None) -> int:
        """Renew the leases of the seats played here (or of ``seats``)."""
        if seats is None:
            seats = self.played_here()
        return await self._store.renew_ai_leases(seats, self._ms_from_now(self.lease_seconds))

    async def abandoned(self, room_id: str, seat: int) -> None:
        """A worker stopped playing the seat without leaving the room: its lease ends now, so
        the next ``reclaim`` asks for another player (none when the match is over)."""
        await self._store.renew_ai_leases({(room_id, seat)}, self._ms_from_now(0))

    async def reclaim(self, batch: int = 100) -> int:
        """Ask again for the seats whose lease ran out; returns how many were asked for."""
        now = self._ms_from_now(0)
        hold = self._ms_from_now(self.lease_seconds * REQUEST_HOLD_LEASES)
        expired = await self._store.claim_expired_ai_leases(now, hold, batch)
        if not expired:
            return 0
        here = self.played_here()
        asked = 0
        for room_id, index in expired:
            if (room_id, index) in here:
                await self.renew({(room_id, index)})
                continue
            loaded = await self._store.load_room(room_id)
            room = decode_room(loaded[1]) if loaded is not None else None
            known = room is not None and index < len(room.seats)
            level = ai_level_wanted(room, index) if room is not None and known else None
            paused = room is not None and known and ai_seat_paused(room, index)
            if room is None or room.status != "playing" or level is None or paused:
                await self._store.drop_ai_lease(room_id, index)
                continue
            log.warning("AI seat lost its player", extra={"room": room_id, "seat": index})
            await self._store.request_ai_seat(room_id, index, level, hold_until_ms=hold)
            asked += 1
        return asked
