"""The requests of a connection, dispatched to their handlers (``server.handlers``); no
transport and no Starlette.

Every request gets exactly one ``ack`` or one ``error``. A handler returns its ``Reply``: the
ack's result, and what follows the ack on the connection (the update of a move, the catch-up
of a room just followed). ``Service.handle`` sends the one, then runs the other, in one turn
of the event loop when nothing there waits, so that they leave in one write.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from protocol import messages as m
from protocol.messages import ErrorCode
from server.ai_dispatch import AiDispatcher
from server.ai_seats import AiSeatKeeper
from server.blobs import RoomBlobs
from server.commits import Commits
from server.connection import Connection
from server.frames import ack_frame
from server.handlers.play import Play
from server.handlers.players import Players
from server.handlers.rooms import Rooms
from server.handlers.talk import Talk
from server.handlers.workers import Workers
from server.hub import Hub
from server.limits import Limits
from server.live import LiveRooms
from server.periodic import Upkeep
from server.requests import Reply, RequestFailed
from server.settings import Settings
from server.store import ReplicationTimeout, Store, store_unavailable

log = logging.getLogger(__name__)

Handler = Callable[[Connection, Any], Awaitable[Reply]]

#: ``detail.retry_ms`` of the store's retryable errors: when to send the same request again.
STORE_RETRY_MS = 1000


class Service:
    def __init__(
        self,
        store: Store,
        hub: Hub,
        blobs: RoomBlobs,
        settings: Settings,
        dispatcher: AiDispatcher,
        ai_seats: AiSeatKeeper,
    ) -> None:
        self.hub = hub
        limits = Limits(store, settings)
        commits = Commits(store, hub, blobs, settings, limits)
        self.live = LiveRooms(store)
        self.players = Players(store, settings, limits, self.live)
        self.rooms = Rooms(store, hub, commits, settings, dispatcher, ai_seats, limits)
        self.play = Play(store, hub, commits)
        self.talk = Talk(store, hub, settings)
        self.workers = Workers(store, dispatcher, ai_seats)
        self.upkeep = Upkeep(store, hub, commits, settings, ai_seats)
        self._handlers: dict[type[Any], Handler] = {
            m.Hello: self.players.hello,
            m.SetName: self.players.set_name,
            m.Stats: self.players.stats,
            m.Lobby: self.players.lobby,
            m.CreateRoom: self.rooms.create_room,
            m.JoinRoom: self.rooms.join_room,
            m.QuickMatch: self.rooms.quick_match,
            m.CancelQuickMatch: self.rooms.cancel_quick_match,
            m.Watch: self.rooms.watch,
            m.Resume: self.rooms.resume,
            m.Leave: self.rooms.leave,
            m.Unfollow: self.rooms.unfollow,
            m.Rematch: self.rooms.rematch,
            m.Act: self.play.act,
            m.ClaimWin: self.rooms.claim_win,
            m.CallStandIn: self.rooms.call_stand_in,
            m.AiSubscribe: self.workers.ai_subscribe,
            m.Say: self.talk.say,
        }

    async def handle(self, conn: Connection, message: m.Message) -> None:
        """Answer one request: an ack with the handler's result and what follows it, or an
        error."""
        request_id = getattr(message, "id", None)
        handler = self._handlers.get(type(message))
        if handler is None:
            conn.error(request_id, ErrorCode.UNKNOWN_TYPE, f"{message.t} is not a request")
            return
        if conn.player_id is None and not isinstance(message, m.Hello):
            conn.error(request_id, ErrorCode.NOT_AUTHENTICATED, "send hello first")
            return
        try:
            reply = await handler(conn, message)
        except RequestFailed as failure:
            conn.error(request_id, failure.code, failure.message, failure.detail)
            return
        except ReplicationTimeout as error:
            # The change is on its master, not yet on enough replicas: a failover now may
            # lose it. The same request again is answered as if it were the first.
            log.warning("request not replicated", extra={"type": message.t, "error": str(error)})
            conn.error(
                request_id,
                ErrorCode.NOT_REPLICATED,
                "the change was made but no replica confirmed it in time; send the same"
                " request again",
                {"retry_ms": STORE_RETRY_MS},
            )
            return
        except Exception as error:
            if store_unavailable(error):
                log.warning("store unavailable", extra={"type": message.t, "error": str(error)})
                conn.error(
                    request_id,
                    ErrorCode.STORE_UNAVAILABLE,
                    "the game store cannot be reached just now; send the same request again",
                    {"retry_ms": STORE_RETRY_MS},
                )
                return
            log.exception("request failed", extra={"type": message.t})
            conn.error(request_id, ErrorCode.INTERNAL, "internal error; nothing was changed")
            return
        if request_id is not None:
            conn.send_frame(ack_frame(request_id, reply.result))
        if reply.then is not None:
            await reply.then()

    async def connection_closed(self, conn: Connection) -> None:
        """A worker that goes away gives back the AI seats it was playing; a person who goes
        away is marked away (their seat waits; a stand-in may take over after the grace)."""
        if conn.is_worker:
            await self.workers.worker_gone(conn)
        else:
            await self.rooms.mark_away(conn)

    async def recent_hands(self, limit: int) -> list[dict[str, Any]]:
        return await self.players.recent_hands(limit)
