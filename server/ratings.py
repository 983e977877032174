"""Ratings around the pure Glicko-2 (``server.glicko``): read a player's, rate a finished
match exactly once, keep the leaderboard, note abandonments (``docs/ratings.md``).

Exactly once: a rated match's end owes ``MATCH_RECORDS`` (``server.commits``), which the
records sweep writes again until it is done. Each player's rating changes in its own slot
group by a compare-and-set that records the room (``lua/rate_player.lua``): a room already
rated for a player is never rated again, whichever process writes it, however often. The
opponent's side of the computation is the room's own (``Room.ratings``: each seat's rating as
it sat down), the same every time it is written.
"""

from __future__ import annotations

import time
from typing import Any

from server import glicko, playban
from server.glicko import PARAMETERS, Rating, Result
from server.rated import abandoned_by, rating_scores, seat_rating
from server.room import Room
from server.store import Store
from server.store.ratings import RateStatus, StoredRating

#: Retries of a rating change that lost its compare-and-set to another match of the player.
RATE_RETRIES = 50
#: How long a player stays on the leaderboard after their last rated match.
BOARD_DAYS = 30
LEADERBOARD_SIZE = 100


def current(stored: StoredRating | None) -> Rating:
    return (
        glicko.initial() if stored is None else Rating(stored.rating, stored.rd, stored.volatility)
    )


def shown_now(stored: StoredRating | None, now: float) -> Rating:
    """The rating as shown now: its deviation grown by the days since the last rated match."""
    rating = current(stored)
    if stored is None:
        return rating
    days = max(0.0, now - stored.at) / 86400
    return Rating(rating.rating, glicko.grown_rd(rating, days), rating.volatility)


def board_until_ms(rating: Rating, at: float) -> int:
    """When a player rated ``rating`` at ``at`` leaves the leaderboard (ms; 0: not on it)."""
    if glicko.provisional(rating.rd):
        return 0
    days = min(float(BOARD_DAYS), glicko.days_until_provisional(rating))
    return int((at + days * 86400) * 1000)


class Ratings:
    def __init__(self, store: Store) -> None:
        self._store = store

    async def seat_rating(self, player_id: str) -> dict[str, Any]:
        """The player's rating as a rated room keeps it when they sit down."""
        return seat_rating(shown_now(await self._store.get_rating(player_id), time.time()))

    async def rate(self, room: Room) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """Rate the finished room's match for both players, once (None: it is not rated).
        Returns each seat's change: ``before``, ``after`` (ratings), ``rd``, ``shown``,
        ``delta``."""
        scores = rating_scores(room)
        if scores is None:
            return None
        players = [seat.player or "" for seat in room.seats]
        seated = room.ratings or (None, None)
        opponents: list[Rating] = []
        for index in (0, 1):
            other = seated[1 - index]
            if other is not None:
                opponents.append(
                    Rating(other["rating"], other["rd"], PARAMETERS.initial_volatility)
                )
            else:
                opponents.append(
                    shown_now(await self._store.get_rating(players[1 - index]), time.time())
                )
        changes = []
        for index in (0, 1):
            entry = await self._rate_one(
                players[index], players[1 - index], room.id, opponents[index], scores[index]
            )
            changes.append(entry)
        return changes[0], changes[1]

    async def _rate_one(
        self, player_id: str, opponent_id: str, room_id: str, opponent: Rating, score: float
    ) -> dict[str, Any]:
        store = self._store
        for _ in range(RATE_RETRIES):
            stored = await store.get_rating(player_id)
            now = time.time()
            before = current(stored)
            periods = (
                0.0
                if stored is None
                else max(0.0, now - stored.at) / 86400 * PARAMETERS.periods_per_day
            )
            after = glicko.update(before, [Result(opponent, score)], periods=periods)
            entry = {
                "opponent": opponent_id,
                "score": score,
                "before": round(before.rating, 2),
                "after": round(after.rating, 2),
                "rd": round(after.rd, 2),
                "shown": glicko.shown(after.rating, after.rd),
                "delta": round(after.rating) - round(before.rating),
                "at": round(now, 3),
            }
            n = 0 if stored is None else stored.n
            result = await store.rate_player(
                player_id, room_id, n, (after.rating, after.rd, after.volatility), now, entry
            )
            if result.status is RateStatus.STALE:
                continue
            assert result.entry is not None
            await self._put_on_board(player_id)
            return result.entry
        raise RuntimeError(f"the rating of {player_id} keeps changing; left to the sweep")

    async def _put_on_board(self, player_id: str) -> None:
        """The player's rating as stored now, on the leaderboard (or off it)."""
        stored = await self._store.get_rating(player_id)
        if stored is None or await self._store.ban_of(player_id) is not None:
            return  # a banned player stays off the board (server.moderation)
        until = board_until_ms(current(stored), stored.at)
        await self._store.put_on_leaderboard(player_id, stored.n, stored.rating, until)

    async def note_abandonment(self, room: Room) -> None:
        """The player who walked out of the rated room: noted, once; a cooldown if earned."""
        seat = abandoned_by(room)
        if seat is None:
            return
        player_id = room.seats[seat].player
        if player_id is None:
            return
        await self._store.abandon(
            player_id,
            room.id,
            int(time.time() * 1000),
            day_ms=playban.DAY_SECONDS * 1000,
            week_ms=playban.WEEK_SECONDS * 1000,
            first_ms=playban.FIRST_SECONDS * 1000,
            factor=playban.FACTOR,
            longest_ms=playban.LONGEST_SECONDS * 1000,
        )

    async def cooldown_left(self, player_id: str) -> int:
        """Seconds left of the player's rated-queue cooldown (0: none)."""
        cooldown = await self._store.cooldown(player_id)
        return playban.seconds_left(cooldown.until_ms, time.time())

    async def leaderboard(self, viewer: str | None) -> dict[str, Any]:
        """``GET /api/leaderboard``: the top, with handles, and the viewer's own rank."""
        board = await self._store.leaderboard(int(time.time() * 1000), LEADERBOARD_SIZE, viewer)
        handles = await self._store.handles([player for player, _ in board.top])
        top = [
            {"rank": index + 1, "handle": handles.get(player), "rating": round(rating)}
            for index, (player, rating) in enumerate(board.top)
        ]
        mine: dict[str, Any] | None = None
        if viewer is not None:
            stored = await self._store.get_rating(viewer)
            if stored is not None:
                shown = shown_now(stored, time.time())
                mine = {
                    "rank": None if board.rank is None else board.rank + 1,
                    "rating": round(shown.rating),
                    "shown": glicko.shown(shown.rating, shown.rd),
                    "provisional": glicko.provisional(shown.rd),
                }
        return {"top": top, "total": board.total, "you": mine}
