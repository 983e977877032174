"""Quick messages between the two players of a room (``say``): a phrase or an emote from the
fixed list of ``protocol.talk``, from a person seated in the room to the other seat.

Nothing is stored: the seat's allowance is spent and the ``said`` frame published on the
room's channel in one step (``Store.say``); each process's hub hands it to the other seat's
connections (``Hub.deliver_said``). Between two players of whom one blocked the other
(``server.blocking``) the allowance is spent and the reply is the same, but nothing is
published: the sender cannot tell.
"""

from __future__ import annotations

import time

from protocol import codec
from protocol import messages as m
from protocol.messages import ErrorCode
from server import metrics
from server.blobs import decode_room
from server.blocking import either_blocks
from server.connection import Connection
from server.hub import Hub
from server.requests import Reply, RequestFailed
from server.settings import Settings
from server.store import Store, TalkStatus


class Talk:
    def __init__(self, store: Store, hub: Hub, settings: Settings) -> None:
        self._store = store
        self._hub = hub
        self._settings = settings

    async def say(self, conn: Connection, message: m.Say) -> Reply:
        assert conn.player_id is not None
        if conn.is_worker:
            raise RequestFailed(ErrorCode.NOT_A_PLAYER, "AI seats do not send quick messages")
        loaded = await self._store.load_room(message.room)
        if loaded is None:
            raise RequestFailed(ErrorCode.NOT_FOUND, f"no room {message.room}")
        version, blob = loaded
        room = self._hub.cached(message.room, version) or decode_room(blob)
        seat = room.seat_of(conn.player_id)
        if seat is None:
            raise RequestFailed(
                ErrorCode.NOT_A_PLAYER, "only the room's players send quick messages"
            )
        at = int(time.time() * 1000)
        said = m.Said(room=message.room, seat=seat, phrase=message.phrase, at=at)
        settings = self._settings
        other = room.seats[1 - seat].player
        blocked = other is not None and await either_blocks(self._store, conn.player_id, other)
        result = await self._store.say(
            message.room,
            seat,
            codec.encode(said, validate=False),
            burst=settings.talk_burst,
            every_seconds=settings.talk_seconds,
            deliver=not blocked,
        )
        if result.status is TalkStatus.MISSING:
            raise RequestFailed(ErrorCode.NOT_FOUND, f"no room {message.room}")
        if result.status is TalkStatus.LIMITED:
            raise RequestFailed(
                ErrorCode.TOO_MANY_PHRASES,
                f"at most {settings.talk_burst} quick messages at once, then one every "
                f"{settings.talk_seconds:g} s",
                {"retry_ms": result.retry_ms, "limit": settings.talk_burst},
            )
        metrics.QUICK_MESSAGES.inc()
        return Reply({"at": at})
