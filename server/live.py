"""The lobby's "Live now": the public rooms in play one may watch, with how many watch each.

Which rooms are live is kept in Redis (``rooms:live``) by the processes that follow them
(``Upkeep.share_watchers``); a listing reads it, checks every room as stored (public and in
play, else it is taken off) and says only what a spectator of the room sees. Listings are
kept for a second, so that a flood of lobby requests costs Redis one listing a second.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from server.blobs import decode_room
from server.room import Room, seat_names
from server.store import Store

#: Rooms in a listing, at most.
LIVE_LIMIT = 20
#: How often each process renews its rooms in the list and its watcher counts (seconds).
WATCHERS_EVERY = 2.0
#: A watcher count (and a room in the list) not renewed for this long no longer counts: the
#: process that kept it is gone, or follows the room no more.
WATCHERS_TTL_MS = 10_000
#: How long a listing is reused.
LISTING_SECONDS = 1.0


class LiveRooms:
    def __init__(self, store: Store) -> None:
        self._store = store
        self._listing: tuple[float, int, list[dict[str, Any]]] | None = None
        self._lock = asyncio.Lock()

    async def listing(self, limit: int = LIVE_LIMIT) -> list[dict[str, Any]]:
        """Up to ``limit`` (at most ``LIVE_LIMIT``) live public rooms, most recently seen
        first: ``room``, ``mode``, ``seats`` (``name``, ``name_id``, ``ai``), ``hand``,
        ``scores``, ``target`` and ``watchers``."""
        limit = max(1, min(LIVE_LIMIT, limit))
        async with self._lock:
            now = time.monotonic()
            kept = self._listing
            if kept is None or now - kept[0] >= LISTING_SECONDS or kept[1] < limit:
                kept = (now, limit, await self._read(limit))
                self._listing = kept
        return kept[2][:limit]

    async def _read(self, limit: int) -> list[dict[str, Any]]:
        store = self._store
        since = int(time.time() * 1000) - WATCHERS_TTL_MS
        ids = await store.live_rooms(limit, since)
        loaded = await asyncio.gather(*(store.load_room(room_id) for room_id in ids))
        rooms: list[Room] = []
        gone: list[str] = []
        for room_id, stored in zip(ids, loaded, strict=True):
            room = decode_room(stored[1]) if stored is not None else None
            if room is None or not room.public or room.status != "playing":
                gone.append(room_id)
            else:
                rooms.append(room)
        if gone:
            await store.drop_live(gone)
        counts = await store.watcher_counts(room.id for room in rooms)
        return [_summary(room, counts.get(room.id, 0)) for room in rooms]


def _summary(room: Room, watchers: int) -> dict[str, Any]:
    game = room.game
    return {
        "room": room.id,
        "mode": room.mode,
        "seats": seat_names(room),
        "hand": game.hand_number if game is not None else 0,
        "scores": list(game.scores) if game is not None else [0, 0],
        "target": room.rules.target,
        "watchers": watchers,
    }
