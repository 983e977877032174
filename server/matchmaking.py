"""Rated quick match: account holders wait in a room of their own; the matcher pairs them by
rating (``lua/rated_pair.lua``) and seats each pair's guest in its host's room.

The window: two players pair when their gap is within ``BASE_GAP`` plus ``GAP_PER_SECOND``
for each second the longer waiting of them has waited; after ``ANYONE_AFTER`` seconds anyone
is accepted (nobody waits much longer than that while someone else waits). Closest pairs
first; the same two not twice in a row while anyone else waits. Every process runs the
matcher each second and once more when a player joins; the script is atomic, so each waiting
player is paired once, on one Redis or a cluster (one hash tag, ``{ratedqueue}``).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from server.commits import Commits
from server.limits import Limits
from server.rated import paired_elsewhere
from server.requests import RequestFailed
from server.room import Room, Seat, join
from server.store import Store

log = logging.getLogger(__name__)

BASE_GAP = 50.0
GAP_PER_SECOND = 25.0
ANYONE_AFTER_SECONDS = 25.0
#: The longest waiting players the matcher looks at in one pass.
LOOKED_AT = 200
#: A pair noted this long ago and not yet seated (its process died) is seated by another.
PENDING_GRACE_SECONDS = 5.0


class RatedMatcher:
    def __init__(self, store: Store, commits: Commits, limits: Limits) -> None:
        self._store = store
        self._commits = commits
        self._limits = limits

    async def run_once(self) -> int:
        """Pair whoever can be paired now, and seat the pairs left by a process that died;
        returns how many pairs were seated."""
        notes = await self._store.rated_pair(
            BASE_GAP, GAP_PER_SECOND, int(ANYONE_AFTER_SECONDS * 1000), LOOKED_AT
        )
        seated = 0
        for note in notes:
            seated += await self._seat_logged(note)
        now_ms = time.time() * 1000
        for note in await self._store.rated_pending():
            if now_ms - note["at"] >= PENDING_GRACE_SECONDS * 1000:
                seated += await self._seat_logged(note)
        return seated

    async def _seat_logged(self, note: dict[str, Any]) -> int:
        try:
            return await self.seat(note)
        except Exception:
            log.exception(
                "a rated pair is left to the next pass", extra={"room": note["host_room"]}
            )
            return 0

    async def seat(self, note: dict[str, Any]) -> int:
        """Seat the pair's guest in the host's room, then close the guest's own room pointing
        there (``paired_elsewhere``); each step idempotent. A host's room that was left
        meanwhile puts the guest back in the queue."""
        guest, host_room, guest_room = note["guest"], note["host_room"], note["guest_room"]
        player = Seat(player=guest, name=note["name"])
        rating = {"rating": note["rating"], "rd": note["rd"], "shown": note.get("shown")}

        def seat_guest(room: Room, now: float) -> tuple[Room, list[dict[str, Any]]]:
            joined, events, _ = join(room, player, now, rating)
            return joined, events

        await self._limits.claim_for(guest, host_room)
        try:
            await self._commits.change(host_room, seat_guest, actor=None)
        except RequestFailed:
            await self._store.release_rooms(guest, host_room)
            await self._store.rated_seated(guest)
            await self._store.rated_join(
                guest,
                {
                    "room": guest_room,
                    "rating": note["rating"],
                    "rd": note["rd"],
                    "name": note["name"],
                },
            )
            log.info("a rated pair's host left; the guest waits again", extra={"room": guest_room})
            return 0
        await self._commits.change(
            guest_room, lambda room, now: paired_elsewhere(room, host_room), actor=None
        )
        await self._store.rated_seated(guest)
        return 1
