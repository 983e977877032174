"""Resource limits: what one player or one client address may make the server keep.

Each limit is a setting (``server.settings``, README) that a person never meets and an abuser
always does, refused with its own error code before anything is written:

- unfinished rooms per player, and of those rooms against the AI (``GIN_MAX_OPEN_ROOMS``,
  ``GIN_MAX_AI_ROOMS``): counted in Redis (``player-rooms:ID``), atomically, by every server
  process. A room counts from its creation or join until it finishes (or is left, which
  finishes it); a counted room that is gone, finished or no longer the player's is forgotten
  when the player is at a limit, before they are refused.
- new players per client address per minute (``GIN_NEW_PLAYERS_PER_MINUTE``), in Redis.
- failed invite-code and room lookups per client address per minute
  (``GIN_LOOKUP_FAILURES_PER_MINUTE``), counted by each process on its own.

AI workers are exempt: they sit in many rooms by design. Nothing here runs on a move.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from protocol.messages import ErrorCode
from server.blobs import decode_room
from server.connection import Connection
from server.ratelimit import TokenBucket
from server.requests import RequestFailed
from server.room import Room, Seat
from server.settings import Settings
from server.store import RoomClaim, RoomClaimResult, Store

#: Client addresses whose failed lookups one process remembers at most (oldest dropped).
LOOKUP_ADDRESSES_MAX = 10_000
NEW_PLAYER_WINDOW_SECONDS = 60

_REFUSALS = {
    RoomClaim.TOO_MANY_ROOMS: ErrorCode.TOO_MANY_ROOMS,
    RoomClaim.TOO_MANY_AI_ROOMS: ErrorCode.TOO_MANY_AI_ROOMS,
}


class LimitExceeded(RequestFailed):
    """A request refused by a resource limit: answered with its code and message."""


def address_digest(address: str) -> str:
    """A key-safe name of a client address (IPv6 addresses hold colons)."""
    return hashlib.sha256(address.encode("utf-8")).hexdigest()[:32]


class Limits:
    """The resource-limit checks the request handlers call (see the module doc)."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self._store = store
        self._settings = settings
        self._lookups: dict[str, TokenBucket] = {}

    # -- rooms per player ----------------------------------------------------------------

    async def claim_room(
        self, conn: Connection, room_id: str, *, ai: bool = False
    ) -> RoomClaimResult | None:
        """Count ``room_id`` among the player's unfinished rooms, or raise LimitExceeded
        (nothing counted). None for an AI worker, which no limit counts."""
        if conn.is_worker or conn.player_id is None:
            return None
        return await self.claim_player_room(conn.player_id, room_id, ai=ai)

    async def claim_player_room(
        self, player_id: str, room_id: str, *, ai: bool = False
    ) -> RoomClaimResult:
        """``claim_room`` for a player named by id (an accepted challenge seats both)."""
        result = await self._claim(player_id, room_id, ai)
        if result.status in _REFUSALS:
            await self.forget_closed_rooms(player_id)
            result = await self._claim(player_id, room_id, ai)
        code = _REFUSALS.get(result.status)
        if code is ErrorCode.TOO_MANY_ROOMS:
            limit = self._settings.max_open_rooms
            raise LimitExceeded(
                code,
                f"you have {limit} unfinished rooms, the most allowed: finish or leave one first",
                {"limit": limit},
            )
        if code is ErrorCode.TOO_MANY_AI_ROOMS:
            limit = self._settings.max_ai_rooms
            raise LimitExceeded(
                code,
                f"you have {limit} unfinished rooms against the AI, the most allowed:"
                " finish or leave one first",
                {"limit": limit},
            )
        return result

    async def claim_for(self, player_id: str, room_id: str) -> None:
        """Count a room the server seats the player in (rated quick match's guest), limits
        aside: the room they waited in, which counted, closes right after."""
        await self._claim(player_id, room_id, False)

    async def _claim(self, player_id: str, room_id: str, ai: bool) -> RoomClaimResult:
        settings = self._settings
        return await self._store.claim_room(
            player_id,
            room_id,
            "ai" if ai else "people",
            max_rooms=settings.max_open_rooms,
            max_ai_rooms=settings.max_ai_rooms,
            ttl_seconds=settings.room_idle_seconds + settings.unjoined_room_seconds,
        )

    async def release(self, player_id: str, room_id: str) -> None:
        """Stop counting ``room_id`` for the player (a claim whose room was not made)."""
        await self._store.release_rooms(player_id, room_id)

    async def unclaim(self, conn: Connection, room_id: str, claim: RoomClaimResult | None) -> None:
        """Undo ``claim_room`` for a request that failed after it (a claim that found the room
        counted already is left as it was)."""
        if claim is not None and claim.status is RoomClaim.ADDED and conn.player_id is not None:
            await self._store.release_rooms(conn.player_id, room_id)

    async def room_changed(self, before: Room, after: Room) -> None:
        """A committed change: a room that finished (played out, or left) stops counting."""
        if after.status == "finished" and before.status != "finished":
            for player_id in _players(after.seats):
                await self._store.release_rooms(player_id, after.id)

    async def forget_closed_rooms(self, player_id: str) -> int:
        """Stop counting the player's rooms that are gone, finished or no longer theirs."""
        closed = []
        for room_id in await self._store.player_rooms(player_id):
            loaded = await self._store.load_room(room_id)
            room = decode_room(loaded[1]) if loaded is not None else None
            if room is None or room.status == "finished" or room.seat_of(player_id) is None:
                closed.append(room_id)
        return await self._store.release_rooms(player_id, *closed)

    # -- room lifetimes ------------------------------------------------------------------

    def room_ttl(self, room: Room) -> int:
        """How long the room lives after this change: any room ``GIN_ROOM_IDLE``, a private
        room nobody joined yet no longer than ``GIN_UNJOINED_ROOM_SECONDS``."""
        idle = self._settings.room_idle_seconds
        if room.mode == "private" and room.status == "waiting":
            return min(idle, self._settings.unjoined_room_seconds)
        return idle

    # -- players per address -------------------------------------------------------------

    async def count_new_player(self, conn: Connection, *, worker: bool = False) -> None:
        """Count a new player from the connection's address, or raise LimitExceeded. An AI
        worker (``worker``: its ``hello`` carries the right key) is not counted: it opens a
        connection, and a player, per seat it plays."""
        if worker:
            return
        limit = self._settings.new_players_per_minute
        counted = await self._store.count_new_player(
            address_digest(conn.address), limit, NEW_PLAYER_WINDOW_SECONDS
        )
        if not counted:
            raise LimitExceeded(
                ErrorCode.TOO_MANY_PLAYERS,
                f"{limit} new players a minute from one address at most: say hello with your"
                " token, or wait a minute",
                {"limit": limit},
            )

    # -- failed lookups per address ------------------------------------------------------

    def check_lookup(self, conn: Connection, now: float) -> None:
        """Raise LimitExceeded while the address has no failed lookup left."""
        if conn.is_worker:
            return
        budget = self._lookups.get(conn.address)
        if budget is not None and budget.left(now) < 1.0:
            limit = self._settings.lookup_failures_per_minute
            raise LimitExceeded(
                ErrorCode.TOO_MANY_LOOKUPS,
                f"{limit} failed room or invite lookups a minute at most: wait a minute",
                {"limit": limit},
            )

    def lookup_failed(self, conn: Connection, now: float) -> None:
        """An invite code or room id of the connection's request led nowhere."""
        if conn.is_worker:
            return
        budget = self._lookups.pop(conn.address, None)
        if budget is None:
            limit = self._settings.lookup_failures_per_minute
            budget = TokenBucket(limit / 60.0, limit, now)
        budget.spend(now)
        self._lookups[conn.address] = budget  # the newest last: the oldest go first
        while len(self._lookups) > LOOKUP_ADDRESSES_MAX:
            del self._lookups[next(iter(self._lookups))]


def _players(seats: Iterable[Seat]) -> list[str]:
    return [seat.player for seat in seats if seat.player is not None]
