"""Lobby: invite codes and the quick-match queue."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from server import keys
from server.store._base import StoreBase, as_text, check_positive

#: The longest waiting players a joiner is paired with the first of, past any they blocked or
#: who blocked them.
LOOKED_AT = 32


class QuickMatchStatus(StrEnum):
    PAIRED = "paired"
    """Another player was waiting: they left the queue; join their room."""
    QUEUED = "queued"
    """Nobody was waiting: the player now waits in the room they offered."""
    WAITING = "waiting"
    """The player was already waiting, in ``room_id`` (the room offered now is not used)."""


@dataclass(frozen=True, slots=True)
class QuickMatch:
    """The outcome of ``Store.quick_match``. ``opponent_id`` is set only when PAIRED; then
    ``room_id`` is the room the opponent waits in, else the room this player waits in."""

    status: QuickMatchStatus
    room_id: str
    opponent_id: str | None = None


class LobbyOps(StoreBase):
    """``invite:CODE`` keys and the ``{quickmatch}`` queue."""

    # -- invites -----------------------------------------------------------------------------

    async def put_invite(self, code: str, room_id: str, ttl_seconds: float) -> bool:
        """Let ``code`` lead to ``room_id`` for ``ttl_seconds`` (millisecond precision).
        False, changing nothing, if the code is already in use."""
        key = keys.invite(code)
        keys.check_id(room_id, "room id")
        ttl_ms = max(1, int(check_positive(ttl_seconds, "ttl_seconds") * 1000))
        return bool(await self._redis.set(key, room_id, px=ttl_ms, nx=True))

    async def resolve_invite(self, code: str) -> str | None:
        """The room an invite code leads to, or None (unknown or expired code)."""
        room_id = await self._redis.get(keys.invite(code))
        return None if room_id is None else as_text(room_id)

    async def delete_invite(self, code: str) -> bool:
        """Withdraw an invite code; False if it did not exist."""
        return bool(await self._redis.delete(keys.invite(code)))

    # -- quick match -------------------------------------------------------------------------

    async def quick_match(self, player_id: str, room_id: str) -> QuickMatch:
        """Pair ``player_id`` with the longest-waiting other player, or queue them (atomic,
        ``lua/quick_match.lua``: two simultaneous joiners on any servers make one pair).

        ``room_id`` is the room this player will wait in if nobody is waiting: the caller
        creates it first (one free seat), so whoever pairs with them later just joins it, and
        the waiting player's server learns of it from that room's feed. When the result is
        PAIRED the caller joins ``result.room_id`` and may expire its own offered room. A
        player is never paired with themselves, nor with someone either of them blocked
        (``server.blocking``: the next of the ``LOOKED_AT`` longest waiting is taken), and never
        queued twice (WAITING).
        """
        keys.check_id(player_id, "player id")
        keys.check_id(room_id, "room id")
        reply = await self._run_script(
            self._scripts.quick_match,
            [keys.quickmatch_queue(), keys.quickmatch_rooms(), keys.quickmatch_blocked()],
            [player_id, room_id, LOOKED_AT],
        )
        status = QuickMatchStatus(as_text(reply[0]))
        if status is QuickMatchStatus.PAIRED:
            return QuickMatch(status, as_text(reply[2]), opponent_id=as_text(reply[1]))
        return QuickMatch(status, as_text(reply[1]))

    async def cancel_quick_match(self, player_id: str) -> str | None:
        """Take a player out of the queue. Returns the room they were waiting in (the caller
        may expire it), or None if they were not waiting (perhaps just paired)."""
        keys.check_id(player_id, "player id")
        reply = await self._run_script(
            self._scripts.cancel_quick_match,
            [keys.quickmatch_queue(), keys.quickmatch_rooms()],
            [player_id],
        )
        return None if reply is None else as_text(reply)

    async def quick_match_waiting(self) -> int:
        """How many players wait in the quick-match queue, for metrics (0 or 1 in practice;
        more only while players who blocked one another wait)."""
        return int(await self._redis.zcard(keys.quickmatch_queue()))
