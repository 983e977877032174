"""The requests of a connection, dispatched to their handlers (``server.handlers``); no
transport and no Starlette.

Every request gets exactly one ``ack`` or one ``error``. A handler returns its ``Reply``: the
ack's result, and what follows the ack on the connection (the update of a move, the catch-up
of a room just followed). ``Service.handle`` sends the one, then runs the other, in one turn
of the event loop when nothing there waits, so that they leave in one write.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from protocol import messages as m
from protocol.messages import ErrorCode
from server.connection import Connection
from server.frames import ack_frame
from server.handlers.dispatch import Handler
from server.handlers.rooms import Rooms
from server.handlers.workers import Workers
from server.hub import Hub
from server.presence import PresenceKeeper, standing
from server.requests import RequestFailed
from server.store import ReplicationTimeout, store_unavailable

log = logging.getLogger(__name__)

#: ``detail.retry_ms`` of the store's retryable errors: when to send the same request again.
STORE_RETRY_MS = 1000


class Service:
    """Each request to its handler (``handlers``: the dispatch table of
    ``server.handlers.dispatch``), and what a closed connection leaves behind. Made by the
    composition root, ``server.wiring``."""

    def __init__(
        self,
        handlers: Mapping[type[m.Message], Handler],
        *,
        hub: Hub,
        rooms: Rooms,
        workers: Workers,
        presence: PresenceKeeper | None = None,
    ) -> None:
        self.hub = hub
        self._presence = presence
        self._handlers = handlers
        self._rooms = rooms
        self._workers = workers

    async def handle(self, conn: Connection, message: m.Message) -> None:
        """Answer one request: an ack with the handler's result and what follows it, or an
        error; then, if the request changed the player's presence (a hello, a seat taken or
        left), write it for every process (``server.presence``)."""
        before = standing(conn)
        await self._answer(conn, message)
        after = standing(conn)
        if after != before and self._presence is not None and after[0] is not None:
            await self._presence.changed(after[0])

    async def _answer(self, conn: Connection, message: m.Message) -> None:
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
        away is marked away (their seat waits; a stand-in may take over after the grace), and
        offline once no connection of theirs is left on this process."""
        if conn.is_worker:
            await self._workers.worker_gone(conn)
            return
        await self._rooms.mark_away(conn)
        if self._presence is not None and conn.player_id is not None:
            await self._presence.changed(conn.player_id)
