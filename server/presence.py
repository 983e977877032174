"""Presence: whether a player is online (a websocket connection on some server process),
playing (seated in a room in play) or offline since when, as their friends see it.

Each process writes what its own connections say (``Store.put_presence``) the moment one of
them changes it: a ``hello``, following or leaving a room as a seat, the connection closing;
and renews it every third of ``Settings.presence_seconds`` (``GIN_PRESENCE_SECONDS``, 30 s),
valid for all of it, so that the players of a process that died go offline within that: one
late renewal never shows anyone offline. The friends list reads it across every
process (``presence_entry``); nobody else is ever shown it (``server.friends``)."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from server.blobs import decode_room
from server.connection import Connection
from server.store import Store

log = logging.getLogger(__name__)

__all__ = ["PresenceKeeper", "presence_entry", "standing"]

Standing = tuple[str | None, tuple[str, ...]]


def standing(conn: Connection) -> Standing:
    """What a connection says of its player's presence: who, and the rooms they sit in."""
    if conn.is_worker or conn.player_id is None:
        return None, ()
    return conn.player_id, tuple(room for room, sub in conn.rooms.items() if sub.seat is not None)


class PresenceKeeper:
    """This process's connections' presence, written for every process to read."""

    def __init__(
        self,
        store: Store,
        process_id: str,
        connections: Iterable[Connection],
        valid_seconds: float = 30.0,
    ) -> None:
        self._store = store
        self._process_id = process_id
        self._connections = connections
        self._ttl_ms = max(1, round(valid_seconds * 1000))
        #: How often ``renew`` runs (``Upkeep.run``): three renewals per validity.
        self.renew_every = valid_seconds / 3

    def _here(self, only: str | None = None) -> dict[str, str | None]:
        """The people connected here (or only ``only``), each with a room they sit in."""
        found: dict[str, str | None] = {}
        for conn in self._connections:
            player, rooms = standing(conn)
            if player is None or (only is not None and player != only):
                continue
            if found.get(player) is None:
                found[player] = rooms[0] if rooms else None
        return found

    async def changed(self, player_id: str) -> None:
        """A connection of ``player_id`` here said hello, sat down, stood up or closed."""
        here = self._here(player_id)
        try:
            if here:
                await self._store.put_presence(self._process_id, here, self._ttl_ms)
            else:
                await self._store.drop_presence(self._process_id, player_id)
        except Exception:  # presence is renewed soon; the request it follows stands
            log.exception("writing presence failed", extra={"player": player_id})

    async def renew(self) -> None:
        """Every player connected here: still here (``Upkeep.run``)."""
        here = self._here()
        if here:
            await self._store.put_presence(self._process_id, here, self._ttl_ms)


async def presence_entry(store: Store, player_id: str, seen_ms: int | None) -> dict[str, Any]:
    """``{"state": "online"}``; ``{"state": "playing", "watch": "/room/ID"}`` (the watch link
    only for a public room: another needs its players' own watch link); or ``{"state":
    "offline", "seen": MS}`` (``seen_ms``, the player's time last seen; null when never)."""
    seen = await store.presence_of(player_id)
    if not seen.online:
        return {"state": "offline", "seen": seen_ms}
    for room_id in seen.rooms:
        loaded = await store.load_room(room_id)
        if loaded is None:
            continue
        room = decode_room(loaded[1])
        if room.status != "playing" or room.seat_of(player_id) is None:
            continue
        entry: dict[str, Any] = {"state": "playing"}
        if room.public:
            entry["watch"] = f"/room/{room_id}"
        return entry
    return {"state": "online"}
