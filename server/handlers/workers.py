"""AI workers: subscribing to seat offers, and the seats a worker gives back when it goes."""

from __future__ import annotations

import logging

from protocol import messages as m
from protocol.messages import ErrorCode
from server.ai_dispatch import AiDispatcher
from server.ai_seats import AiSeatKeeper
from server.blobs import decode_room
from server.connection import Connection
from server.requests import Reply, RequestFailed
from server.room import ai_level_wanted
from server.store import Store

log = logging.getLogger(__name__)


class Workers:
    def __init__(self, store: Store, dispatcher: AiDispatcher, ai_seats: AiSeatKeeper) -> None:
        self._store = store
        self._dispatcher = dispatcher
        self._ai_seats = ai_seats

    async def ai_subscribe(self, conn: Connection, message: m.AiSubscribe) -> Reply:
        if not conn.is_worker:
            raise RequestFailed(
                ErrorCode.NOT_AUTHENTICATED, "only an AI worker (hello with worker_key) may"
            )
        self._dispatcher.subscribe(conn, message.capacity)
        return Reply({"capacity": message.capacity})

    async def worker_gone(self, conn: Connection) -> None:
        """A worker's connection closed: the AI seats it was offered or playing are asked
        for again."""
        asked = await self._dispatcher.worker_gone(conn)
        for room_id, subscription in list(conn.rooms.items()):
            seat = subscription.seat
            loaded = await self._store.load_room(room_id)
            if seat is None or loaded is None:
                continue
            held = decode_room(loaded[1])
            level = ai_level_wanted(held, seat)
            if held.status == "playing" and level and held.seats[seat].ai_player == conn.player_id:
                asked.append((room_id, seat, level))
        for room_id, seat, level in asked:
            log.info("AI seat given back by its worker", extra={"room": room_id, "seat": seat})
            await self._ai_seats.request(room_id, seat, level)
