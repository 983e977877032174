"""Ratings, the leaderboard, the rated quick-match queue and abandonments (``server.keys``:
the ``{rating:ID}``, ``{leaderboard}``, ``{ratedqueue}`` and ``{playban:ID}`` groups)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from server import keys
from server.store._base import StoreBase, as_text

#: Rated rooms kept in a player's rating history.
HISTORY_KEPT = 1000


@dataclass(frozen=True, slots=True)
class StoredRating:
    """A player's rating as stored; ``n``: rated matches applied (0: never rated, the
    values then are the caller's default), ``at``: unix time of the last one."""

    rating: float
    rd: float
    volatility: float
    at: float
    n: int


class RateStatus(StrEnum):
    APPLIED = "applied"
    DONE = "done"
    """The room was rated for this player already: its entry is the one applied then."""
    STALE = "stale"
    """The rating moved on since it was read: read it again."""


@dataclass(frozen=True, slots=True)
class RateResult:
    status: RateStatus
    entry: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Board:
    """The leaderboard's top (player id, rating), the viewer's 0-based rank (None: not on
    it) and how many players are on it."""

    top: list[tuple[str, float]]
    rank: int | None
    total: int


@dataclass(frozen=True, slots=True)
class Cooldown:
    """``until``: when the player's rated-queue cooldown ends (unix ms, 0: none)."""

    until_ms: int
    bans: int


def _ms_or_server_clock(now_ms: int | None) -> str:
    """A script's time argument: ``""`` asks it to read the Redis server's ``TIME``."""
    return "" if now_ms is None else str(int(now_ms))


class RatingOps(StoreBase):
    async def get_rating(self, player_id: str) -> StoredRating | None:
        """The player's stored rating, or None if they never played a rated match."""
        raw = await self._redis.hgetall(keys.rating(player_id))
        if not raw:
            return None
        fields = {as_text(k): as_text(v) for k, v in raw.items()}
        return StoredRating(
            rating=float(fields["rating"]),
            rd=float(fields["rd"]),
            volatility=float(fields["volatility"]),
            at=float(fields.get("at", "0")),
            n=int(fields.get("n", "0")),
        )

    async def rate_player(
        self,
        player_id: str,
        room_id: str,
        expected_n: int,
        rating: tuple[float, float, float],
        now: float,
        entry: dict[str, Any],
    ) -> RateResult:
        """Apply one rated match's change to a player, once per room (``lua/rate_player.lua``)."""
        keys.check_id(room_id, "room id")
        reply = await self._run_script(
            self._scripts.rate_player,
            [
                keys.rating(player_id),
                keys.rating_history(player_id),
                keys.rating_entries(player_id),
            ],
            [
                room_id,
                expected_n,
                repr(rating[0]),
                repr(rating[1]),
                repr(rating[2]),
                repr(now),
                int(now * 1000),
                json.dumps(entry, separators=(",", ":")),
                HISTORY_KEPT,
                int(self._config.player_ttl_seconds * 1000),
            ],
        )
        status = RateStatus(as_text(reply[0]))
        if status is RateStatus.STALE:
            return RateResult(status)
        return RateResult(status, json.loads(as_text(reply[1])))

    async def rating_history(self, player_id: str, limit: int = 50) -> list[dict[str, Any]]:
        """The player's newest rating changes, newest first (each with its ``room``)."""
        rooms = await self._redis.zrevrange(keys.rating_history(player_id), 0, max(0, limit - 1))
        if not rooms:
            return []
        names = [as_text(room) for room in rooms]
        values = await self._redis.hmget(keys.rating_entries(player_id), names)
        return [
            {"room": room, **json.loads(as_text(value))}
            for room, value in zip(names, values, strict=True)
            if value is not None
        ]

    async def rating_changes(self, player_id: str, rooms: list[str]) -> dict[str, dict[str, Any]]:
        """The rating change each of ``rooms`` made for the player (rooms not rated for them
        are left out): one key, ``{rating:ID}:entries``."""
        if not rooms:
            return {}
        values = await self._redis.hmget(keys.rating_entries(player_id), rooms)
        return {
            room: json.loads(as_text(value))
            for room, value in zip(rooms, values, strict=True)
            if value is not None
        }

    # -- the leaderboard -------------------------------------------------------------------

    async def put_on_leaderboard(
        self, player_id: str, n: int, rating: float, until_ms: int
    ) -> bool:
        """The player's rating ``n`` on the board until ``until_ms`` (0: off the board)."""
        keys.check_id(player_id, "player id")
        reply = await self._run_script(
            self._scripts.leaderboard_put,
            [keys.leaderboard_ratings(), keys.leaderboard_until(), keys.leaderboard_n()],
            [player_id, n, repr(rating), until_ms],
        )
        return bool(reply)

    async def leaderboard(self, now_ms: int, limit: int, viewer: str | None) -> Board:
        """The top ``limit`` of the board and the viewer's rank (``lua/leaderboard_top.lua``)."""
        if viewer is not None:
            keys.check_id(viewer, "player id")
        reply = await self._run_script(
            self._scripts.leaderboard_top,
            [keys.leaderboard_ratings(), keys.leaderboard_until(), keys.leaderboard_n()],
            [now_ms, limit, viewer or ""],
        )
        flat = reply[0]
        top = [(as_text(flat[i]), float(flat[i + 1])) for i in range(0, len(flat), 2)]
        rank = int(reply[1])
        return Board(top, None if rank < 0 else rank, int(reply[2]))

    async def handles(self, player_ids: list[str]) -> dict[str, str]:
        """The handle of each account holder among ``player_ids`` (one key each: a read per
        player, safe on a cluster)."""
        found: dict[str, str] = {}
        for player_id in player_ids:
            value = await self._redis.hget(keys.player(player_id), "handle")
            if value is not None:
                found[player_id] = as_text(value)
        return found

    async def handle_of(self, player_id: str) -> str | None:
        """The player's handle if they hold an account (``player:ID`` has ``handle``)."""
        value = await self._redis.hget(keys.player(player_id), "handle")
        return None if value is None else as_text(value)

    # -- rated quick match ---------------------------------------------------------------

    async def rated_join(
        self, player_id: str, entry: dict[str, Any], now_ms: int | None = None
    ) -> tuple[bool, str]:
        """Wait for a rated quick match in ``entry["room"]``: (True, room) queued now,
        (False, room) already waiting there. Joined at ``now_ms`` (None: the Redis server's
        clock, one for every process)."""
        keys.check_id(player_id, "player id")
        keys.check_id(entry["room"], "room id")
        reply = await self._run_script(
            self._scripts.rated_join,
            [keys.rated_waiting()],
            [player_id, json.dumps(entry, separators=(",", ":")), _ms_or_server_clock(now_ms)],
        )
        return as_text(reply[0]) == "queued", as_text(reply[1])

    async def rated_cancel(self, player_id: str) -> str | None:
        """Stop waiting; the room waited in, or None when not waiting (perhaps paired)."""
        keys.check_id(player_id, "player id")
        reply = await self._run_script(
            self._scripts.rated_cancel, [keys.rated_waiting()], [player_id]
        )
        return None if reply is None else as_text(reply)

    async def rated_pair(
        self,
        base_gap: float,
        gap_per_second: float,
        anyone_after_ms: int,
        cap: int,
        now_ms: int | None = None,
    ) -> list[dict[str, Any]]:
        """Pair the waiting players as of ``now_ms`` (None: the Redis server's clock, the one
        ``rated_join`` stamps with) (``lua/rated_pair.lua``); the notes of the pairs made."""
        reply = await self._run_script(
            self._scripts.rated_pair,
            [keys.rated_waiting(), keys.rated_last(), keys.rated_pending(), keys.rated_blocked()],
            [
                repr(float(base_gap)),
                repr(float(gap_per_second)),
                anyone_after_ms,
                cap,
                _ms_or_server_clock(now_ms),
            ],
        )
        return [json.loads(as_text(note)) for note in reply]

    async def rated_pending(self) -> list[dict[str, Any]]:
        """The pairs whose guest is not yet seated (each note has its ``at``, ms)."""
        raw = await self._redis.hgetall(keys.rated_pending())
        return [json.loads(as_text(value)) for value in raw.values()]

    async def rated_seated(self, guest_id: str) -> None:
        """The pair's guest is seated in the host's room: the note is done."""
        await self._redis.hdel(keys.rated_pending(), keys.check_id(guest_id, "player id"))

    async def rated_waiting_count(self) -> int:
        return int(await self._redis.hlen(keys.rated_waiting()))

    # -- abandonment -----------------------------------------------------------------------

    async def abandon(
        self,
        player_id: str,
        room_id: str,
        now_ms: int,
        *,
        day_ms: int,
        week_ms: int,
        first_ms: int,
        factor: float,
        longest_ms: int,
    ) -> Cooldown:
        """Note that the player walked out of a rated room (once per room), and the cooldown
        it earns (``lua/abandon.lua``)."""
        keys.check_id(room_id, "room id")
        reply = await self._run_script(
            self._scripts.abandon,
            [keys.abandons(player_id), keys.ban(player_id)],
            [room_id, now_ms, day_ms, week_ms, first_ms, repr(float(factor)), longest_ms],
        )
        return Cooldown(int(reply[0]), int(reply[1]))

    async def cooldown(self, player_id: str) -> Cooldown:
        """The player's rated-queue cooldown (``until`` 0: none ever given this week)."""
        values = await self._redis.hmget(keys.ban(player_id), ["until", "bans"])
        return Cooldown(
            int(as_text(values[0]) if values[0] else 0), int(as_text(values[1]) if values[1] else 0)
        )
