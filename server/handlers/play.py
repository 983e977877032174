"""A move (``act``), in the order it happens:

1. before the commit: the room (the hub's, or read from Redis), the seat, the sequence number,
   the engine's new state and events;
2. while Redis runs the commit: the update frames of this process's followers
   (``Hub.prepare``, run once the command is written: ``while_waiting``);
3. after the ack, in the same write: the update to this process's followers (``Hub.deliver``).
"""

from __future__ import annotations

import time
from functools import partial

from protocol import messages as m
from protocol.messages import ErrorCode
from server import metrics
from server.blobs import decode_change, decode_room, encode_change
from server.commits import Commits
from server.connection import Connection
from server.engine import Action, IllegalAction
from server.entropy import seed_for
from server.hub import Hub
from server.requests import Reply, RequestFailed
from server.room import RoomError, act
from server.store import CommitStatus, Store

#: An act on an older sequence is applied if at most this many changes followed, all unseen.
UNSEEN_CHANGES_MAX = 4

_ENGINE_CODES = {"not_your_turn": ErrorCode.NOT_YOUR_TURN}


class Play:
    def __init__(self, store: Store, hub: Hub, commits: Commits) -> None:
        self._store = store
        self._hub = hub
        self._commits = commits

    async def act(self, conn: Connection, message: m.Act) -> Reply:
        assert conn.player_id is not None
        started = time.perf_counter()
        # When what came first was unseen (a worker taking its seat), the act is made again on
        # the room as Redis holds it now: this process's copy may not have heard of the change
        # yet (acting on it again and again was a recursion without end while its feed was
        # slow). The stored version moves on each time, within UNSEEN_CHANGES_MAX.
        for attempt in range(UNSEEN_CHANGES_MAX + 1):
            reply = await self._act(conn, message, started, stored=attempt > 0)
            if reply is not None:
                return reply
        raise RequestFailed(
            ErrorCode.STALE_SEQUENCE, "other changes kept coming first; resync and try again"
        )

    async def _act(
        self, conn: Connection, message: m.Act, started: float, *, stored: bool
    ) -> Reply | None:
        """The act applied (its reply), or None to act again on the stored room."""
        assert conn.player_id is not None
        hub = self._hub
        # The room as this process last saw it, when that is the number the client acted on:
        # no read needed, the compare-and-set of the commit refuses it if it is out of date.
        version = message.seq
        cached = None if stored else hub.cached(message.room, version)
        if cached is not None:
            room = cached
        else:
            loaded = await self._store.load_room(message.room)
            if loaded is None:
                raise RequestFailed(ErrorCode.NOT_FOUND, f"no room {message.room}")
            version, blob = loaded
            room = hub.cached(message.room, version) or decode_room(blob)
        seat = room.acting_seat(conn.player_id)
        if seat is None:
            if room.seat_of(conn.player_id) is not None:
                raise RequestFailed(
                    ErrorCode.NOT_YOUR_SEAT, "an AI stands in for you: resume to take it back"
                )
            raise RequestFailed(ErrorCode.NOT_A_PLAYER, "only the room's players can act")
        request_key = f"{conn.player_id}:{message.id}"
        if message.seq != version:
            if await self._store.request_applied(room.id, request_key):
                raise RequestFailed(
                    ErrorCode.DUPLICATE_REQUEST, f"request {message.id!r} was already applied"
                )
            if not await self._unseen_since(room.id, message.seq, version):
                raise RequestFailed(
                    ErrorCode.STALE_SEQUENCE,
                    f"the room is at sequence {version}, you acted on {message.seq}",
                    {"seq": version},
                )
        action = Action(message.action.kind, message.action.card)
        # an AI standing in for an away person: its moves are marked as made for them
        by = "stand_in" if room.seats[seat].agent == conn.player_id else None
        try:
            changed, events = act(room, seat, action, time.time(), seed_for(action), by=by)
        except IllegalAction as refusal:
            code = _ENGINE_CODES.get(refusal.code, ErrorCode.ILLEGAL_ACTION)
            raise RequestFailed(code, str(refusal), {"reason": refusal.code}) from None
        except RoomError as refusal:
            raise RequestFailed(ErrorCode(refusal.code), str(refusal)) from None
        frames = hub.parts.frames(changed, version + 1, events)
        result = await self._commits.commit(
            room,
            version,
            changed,
            encode_change(version + 1, events, seat),
            request_key=request_key,
            while_waiting=partial(hub.prepare, room.id, frames),
        )
        if result.status is CommitStatus.DUPLICATE:
            raise RequestFailed(
                ErrorCode.DUPLICATE_REQUEST, f"request {message.id!r} was already applied"
            )
        if result.status is not CommitStatus.OK:
            if await self._unseen_since(room.id, message.seq, result.version):
                return None
            raise RequestFailed(
                ErrorCode.STALE_SEQUENCE,
                "another change came first; resync and try again",
                {"seq": result.version},
            )
        metrics.count_action(action.kind)
        metrics.ACTION_LATENCY.observe(time.perf_counter() - started)

        async def deliver() -> None:  # right after the ack: no wait for the feed's copy
            hub.deliver(room.id, result.version, changed, events, frames)

        return Reply({"seq": result.version}, then=deliver)

    async def _unseen_since(self, room_id: str, seq: int, version: int) -> bool:
        """True when the changes after ``seq`` up to ``version`` had no events: an AI worker
        or a stand-in taking its seat, which nobody sees. A view at ``seq`` is then the view
        at ``version``, and an act on it means the same there (the first move of an AI match
        often crosses the worker's binding)."""
        if not seq < version <= seq + UNSEEN_CHANGES_MAX:
            return False
        changes = await self._store.changes_since(room_id, seq, limit=UNSEEN_CHANGES_MAX)
        return changes is not None and not any(decode_change(blob) for _, blob in changes)
