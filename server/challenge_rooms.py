"""The room an accepted challenge makes: a private room between the two, the sender in seat 0
and the one challenged in seat 1, with the challenge's terms (rated or casual, the turn clock
with the server's time bank, the match target), created and then joined like any private room,
so its deal, turn clock and records follow the one path every room takes (``server.commits``)."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass

from protocol.scoring import MatchRules
from server.commits import Commits
from server.entropy import new_seed
from server.limits import Limits
from server.ratings import Ratings
from server.requests import RequestFailed
from server.room import Room, Seat, create_room, join
from server.settings import Settings
from server.store import Store
from server.store.challenges import ChallengeTerms

__all__ = ["ChallengeRooms", "new_challenge_room_id"]


def new_challenge_room_id() -> str:
    """A room id of the same shape as ``create_room``'s."""
    return "r" + secrets.token_urlsafe(9)


@dataclass(frozen=True, slots=True)
class ChallengeRooms:
    store: Store
    commits: Commits
    limits: Limits
    ratings: Ratings
    settings: Settings

    async def claim(self, room_id: str, players: tuple[str, str]) -> None:
        """Count ``room_id`` among each player's unfinished rooms, within the limits
        (``server.limits``): ``LimitExceeded`` (``too_many_rooms``), nothing counted, when
        either one is at the limit."""
        counted: list[str] = []
        try:
            for player_id in players:
                await self.limits.claim_player_room(player_id, room_id)
                counted.append(player_id)
        except RequestFailed:
            await self.release(room_id, tuple(counted))
            raise

    async def release(self, room_id: str, players: tuple[str, ...]) -> None:
        for player_id in players:
            await self.limits.release(player_id, room_id)

    async def open(self, room_id: str, sender: str, target: str, terms: ChallengeTerms) -> None:
        """Make room ``room_id`` with both players seated (counted by ``claim`` before)."""
        names = []
        for player_id in (sender, target):
            player = await self.store.get_player(player_id)
            names.append(player.name if player is not None else "")
        ratings = (
            [await self.ratings.seat_rating(sender), await self.ratings.seat_rating(target)]
            if terms.rated
            else [None, None]
        )
        turn_seconds = terms.turn_seconds
        bank = self.settings.turn_bank_seconds if turn_seconds else 0
        room, events = create_room(
            room_id=room_id,
            mode="private",
            creator=Seat(player=sender, name=names[0]),
            seed=new_seed(),
            now=time.time(),
            rules=MatchRules(target=terms.target),
            turn_seconds=turn_seconds,
            turn_bank=bank,
            watch_token=secrets.token_urlsafe(16),
            rated=terms.rated,
            creator_rating=ratings[0],
        )
        await self.commits.create(room, events)
        guest = Seat(player=target, name=names[1])

        def seat_target(current: Room, now: float) -> tuple[Room, list[dict[str, object]]]:
            joined, joined_events, _ = join(current, guest, now, ratings[1])
            return joined, joined_events

        await self.commits.change(room_id, seat_target, actor=None)
