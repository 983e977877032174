"""Keeps every AI-played seat played: the leases of ``ai:leases`` (see ``server.store.ai``).

Asking for an AI player holds the seat's lease for ``3 x lease``: the time a worker has to
take it. While a worker connected to this process plays a seat, this process renews the
seat's lease every ``lease / 3``. A seat whose lease ran out lost its player without a word
(its server was killed together with the worker's connection, or the worker died while it
re-attached to another server): one server claims the lease and asks for the seat again.
"""

from __future__ import annotations

import logging
import time

from server.blobs import decode_room
from server.hub import Hub
from server.room import ai_level_wanted
from server.store import Store

log = logging.getLogger(__name__)

#: A request for a seat holds its lease this many lease periods (a worker takes it meanwhile).
REQUEST_HOLD_LEASES = 3


class AiSeatKeeper:
    def __init__(self, store: Store, hub: Hub, lease_seconds: float) -> None:
        self._store = store
        self._hub = hub
        self.lease_seconds = lease_seconds

    def _ms_from_now(self, seconds: float) -> int:
        return int((time.time() + seconds) * 1000)

    async def request(self, room_id: str, seat: int, level: str, rank: int = 0) -> None:
        """Ask the AI workers for a player of ``level`` in ``seat``; ``rank``: the AI seats
        the asking player holds already (workers short of capacity serve low ranks first)."""
        hold = self._ms_from_now(self.lease_seconds * REQUEST_HOLD_LEASES)
        await self._store.request_ai_seat(room_id, seat, level, hold_until_ms=hold, rank=rank)

    def played_here(self) -> set[tuple[str, int]]:
        """The seats that workers connected to this process play now, by the rooms as this
        process last saw them."""
        rooms = dict(self._hub.followed_rooms())
        seats: set[tuple[str, int]] = set()
        for conn in self._hub.connections():
            if not conn.is_worker:
                continue
            for room_id, subscription in conn.rooms.items():
                room = rooms.get(room_id)
                index = subscription.seat
                if room is None or index is None or room.status != "playing":
                    continue
                if room.seats[index].ai_player == conn.player_id:
                    seats.add((room_id, index))
        return seats

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
            if room is None or room.status != "playing" or level is None:
                await self._store.drop_ai_lease(room_id, index)
                continue
            log.warning("AI seat lost its player", extra={"room": room_id, "seat": index})
            await self._store.request_ai_seat(room_id, index, level, hold_until_ms=hold)
            asked += 1
        return asked
