"""Presence: which players are connected to some server process, and seated where
(``presence:ID``), and when each was last seen (``seen`` in ``player:ID``, read with the
player's handle: ``FriendOps.friend_card``).

Each process writes its own entry in a player's hash, ``UNTIL ROOM``, when the player's
connections there change and again before ``UNTIL``; an entry past its ``UNTIL`` is not
counted, so the players of a process that died go offline within one renewal period. Every
command touches one key: nothing spans slots."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass

from server import keys
from server.store._base import StoreBase, as_text, check_positive

__all__ = ["NOT_SEATED", "PresenceOps", "Seen"]

#: The ROOM of an entry whose player is seated in no room there.
NOT_SEATED = "-"


@dataclass(frozen=True, slots=True)
class Seen:
    """A player's presence as stored: connected now (on some process), and the rooms they
    sit in."""

    online: bool
    rooms: tuple[str, ...]


class PresenceOps(StoreBase):
    """``presence:ID`` and the ``seen`` field of ``player:ID``."""

    async def put_presence(
        self, process_id: str, players: Mapping[str, str | None], ttl_ms: int
    ) -> None:
        """These players are connected to ``process_id`` (each seated in a room, or None) for
        ``ttl_ms`` unless written again; each one's ``seen`` is now."""
        keys.check_id(process_id, "process id")
        check_positive(ttl_ms, "ttl_ms")
        now = int(time.time() * 1000)
        await asyncio.gather(
            *(
                self._put_one(player_id, process_id, room, now, ttl_ms)
                for player_id, room in players.items()
            )
        )

    async def _put_one(
        self, player_id: str, process_id: str, room: str | None, now: int, ttl_ms: int
    ) -> None:
        key = keys.presence(player_id)
        seat = NOT_SEATED if room is None else keys.check_id(room, "room id")
        await self._together(
            ("HSET", key, process_id, f"{now + ttl_ms} {seat}"), ("PEXPIRE", key, ttl_ms)
        )
        await self._mark_seen(player_id, now)

    async def drop_presence(self, process_id: str, player_id: str) -> None:
        """The player has no connection left on ``process_id``: seen now."""
        keys.check_id(process_id, "process id")
        await self._fast("HDEL", keys.presence(player_id), process_id)
        await self._mark_seen(player_id, int(time.time() * 1000))

    async def _mark_seen(self, player_id: str, now: int) -> None:
        # no wait for replicas: a time last seen lost in a failover is written again soon
        await self._run_script(
            self._scripts.hash_update, [keys.player(player_id)], ["seen", str(now)], writes=False
        )

    async def presence_of(self, player_id: str) -> Seen:
        """The player's presence on every process, as of now (one HGETALL, on the pipelined
        connection: a friends list reads every friend's at once)."""
        now = int(time.time() * 1000)
        reply = await self._fast("HGETALL", keys.presence(player_id))
        values = reply.values() if isinstance(reply, dict) else reply[1::2]
        rooms: list[str] = []
        online = False
        for value in values:
            until, _, room = as_text(value).partition(" ")
            if not until.isdigit() or int(until) < now:
                continue
            online = True
            if room and room != NOT_SEATED and room not in rooms:
                rooms.append(room)
        return Seen(online=online, rooms=tuple(sorted(rooms)))
