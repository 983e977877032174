"""Friendship: each player's friends and the requests between them (the ``{friends}`` slot
group), changed by one script per change (``lua/friends.lua``), and the ``friend-requests:ID``
counters of the requests each player sent."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from server import keys
from server.store._base import StoreBase, as_text, check_positive

__all__ = ["FriendCard", "FriendLimits", "FriendOps", "FriendStanding"]

FriendChange = Literal["ask", "accept", "decline", "remove"]


@dataclass(frozen=True, slots=True)
class FriendLimits:
    """The most friends of one player, unanswered requests one player sent, and unanswered
    requests to one player."""

    friends: int
    sent: int
    received: int


@dataclass(frozen=True, slots=True)
class FriendStanding:
    """One player's side: friends, requests to them and their unanswered requests (player id
    -> when, ms)."""

    friends: dict[str, int]
    received: dict[str, int]
    sent: dict[str, int]


@dataclass(frozen=True, slots=True)
class FriendCard:
    """What a friends list shows of a player: handle, name, when last seen (ms; None if
    never)."""

    handle: str
    name: str
    seen: int | None


class FriendOps(StoreBase):
    """``{friends}:of:ID``, ``{friends}:in:ID``, ``{friends}:out:ID``, ``friend-requests:ID``."""

    async def change_friendship(
        self, change: FriendChange, me: str, other: str, now_ms: int, limits: FriendLimits
    ) -> str:
        """One change between ``me`` and ``other``; the script's word (``lua/friends.lua``)."""
        friend_keys = [
            keys.friends_of(me),
            keys.friends_of(other),
            keys.friends_in(me),
            keys.friends_out(me),
            keys.friends_in(other),
            keys.friends_out(other),
        ]
        reply = await self._run_script(
            self._scripts.friends,
            friend_keys,
            [
                change,
                me,
                other,
                int(now_ms),
                int(check_positive(limits.friends, "friends")),
                int(check_positive(limits.sent, "sent")),
                int(check_positive(limits.received, "received")),
            ],
        )
        return as_text(reply)

    async def end_friendship(self, me: str, other: str) -> bool:
        """Take out a friendship and the requests between the two, either way (a block:
        ``server.blocking``); a removal checks no limit."""
        word = await self.change_friendship("remove", me, other, 0, FriendLimits(1, 1, 1))
        return word == "removed"

    async def forget_friends(self, player_id: str) -> int:
        """An account deleted: each friendship and request of the player ended, both sides
        (one script each); how many."""
        standing = await self.friend_standing(player_id)
        others = {**standing.friends, **standing.received, **standing.sent}
        for other in others:
            await self.end_friendship(player_id, other)
        return len(others)

    async def friend_standing(self, player_id: str) -> FriendStanding:
        """The player's friends and requests, read in one step (one slot)."""
        raw = await self._together(
            ("HGETALL", keys.friends_of(player_id)),
            ("HGETALL", keys.friends_in(player_id)),
            ("HGETALL", keys.friends_out(player_id)),
        )
        friends, received, sent = (_when_by_player(reply) for reply in raw)
        return FriendStanding(friends=friends, received=received, sent=sent)

    async def friend_card(self, player_id: str) -> FriendCard | None:
        """The player's handle, name and time last seen (one HMGET, on the pipelined
        connection: a friends list reads every listed player's at once); None for a player gone
        or one without a handle."""
        handle, name, seen = await self._fast(
            "HMGET", keys.player(player_id), "handle", "name", "seen"
        )
        if handle is None:
            return None
        seen_text = None if seen is None else as_text(seen)
        return FriendCard(
            handle=as_text(handle),
            name=as_text(name) if name is not None else "",
            seen=int(seen_text) if seen_text is not None and seen_text.isdigit() else None,
        )

    async def count_friend_request(self, player_id: str, limit: int, window_seconds: int) -> bool:
        """Count one friend request: False, counting nothing, past ``limit`` in the window
        (``lua/count_new_player.lua``, the same counter)."""
        reply = await self._run_script(
            self._scripts.count_new_player,
            [keys.friend_requests(player_id)],
            [int(check_positive(limit, "limit")), int(check_positive(window_seconds, "window"))],
        )
        return int(reply) == 1


def _when_by_player(reply: object) -> dict[str, int]:
    """An HGETALL reply (a dict from redis-py, a flat list from the direct connection)."""
    if isinstance(reply, dict):
        pairs = list(reply.items())
    else:
        assert isinstance(reply, list)
        pairs = list(zip(reply[::2], reply[1::2], strict=True))
    return {as_text(player): int(as_text(at)) for player, at in pairs}
