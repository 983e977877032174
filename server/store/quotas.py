"""Quotas: the unfinished rooms each player sits in, and the players created per address.

Both are counted in Redis, so that every server process counts the same, each step in one key.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from server import keys
from server.store._base import StoreBase, as_text, check_positive

ROOM_KINDS = ("ai", "people")


class RoomClaim(StrEnum):
    ADDED = "added"
    """The room counts among the player's unfinished rooms now."""
    HELD = "held"
    """It counted already; nothing changed."""
    TOO_MANY_ROOMS = "too_many_rooms"
    """The player has the most unfinished rooms allowed; nothing changed."""
    TOO_MANY_AI_ROOMS = "too_many_ai_rooms"
    """The player has the most rooms against the AI allowed; nothing changed."""


@dataclass(frozen=True, slots=True)
class RoomClaimResult:
    """The outcome of ``Store.claim_room``; ``ai_rooms``: the player's AI rooms before it."""

    status: RoomClaim
    ai_rooms: int


class QuotaOps(StoreBase):
    """``player-rooms:ID`` hashes and ``new-players:ADDR`` counters."""

    async def claim_room(
        self,
        player_id: str,
        room_id: str,
        kind: str,
        *,
        max_rooms: int,
        max_ai_rooms: int,
        ttl_seconds: int,
    ) -> RoomClaimResult:
        """Count ``room_id`` (of ``kind``: ``ai`` or ``people``) among the player's unfinished
        rooms, atomically, unless the player has ``max_rooms`` already, or ``max_ai_rooms``
        AI rooms for an AI room (``lua/claim_room.lua``). The hash lives ``ttl_seconds``
        from the last claim."""
        keys.check_id(room_id, "room id")
        if kind not in ROOM_KINDS:
            raise ValueError(f"kind must be one of {ROOM_KINDS}, got {kind!r}")
        status, ai_rooms = await self._run_script(
            self._scripts.claim_room,
            [keys.player_rooms(player_id)],
            [room_id, kind, max_rooms, max_ai_rooms, int(check_positive(ttl_seconds, "ttl"))],
        )
        return RoomClaimResult(RoomClaim(as_text(status)), int(ai_rooms))

    async def release_rooms(self, player_id: str, *room_ids: str) -> int:
        """The player's rooms ``room_ids`` no longer count (finished, left, gone)."""
        if not room_ids:
            return 0
        for room_id in room_ids:
            keys.check_id(room_id, "room id")
        return int(await self._redis.hdel(keys.player_rooms(player_id), *room_ids))

    async def player_rooms(self, player_id: str) -> dict[str, str]:
        """The rooms counted as the player's unfinished ones: room id -> kind."""
        raw = await self._redis.hgetall(keys.player_rooms(player_id))
        return {as_text(room_id): as_text(kind) for room_id, kind in raw.items()}

    async def count_new_player(self, address_digest: str, limit: int, window_seconds: int) -> bool:
        """Count a new player from an address (``lua/count_new_player.lua``): False, counting
        nothing, when ``limit`` were counted within the current ``window_seconds``."""
        reply = await self._run_script(
            self._scripts.count_new_player,
            [keys.new_players(address_digest)],
            [int(check_positive(limit, "limit")), int(check_positive(window_seconds, "w"))],
        )
        return int(reply) == 1
