"""The request handlers: one method per client message type, no transport and no Starlette.

Every request gets exactly one ``ack`` or one ``error``. A change to a room is computed from the
room as stored, written with one atomic compare-and-set, and only then announced: the ack goes
to the requester and the update reaches every follower through the hub.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from protocol import codec
from protocol import messages as m
from protocol.messages import ErrorCode
from protocol.scoring import MatchRules
from server import identity, metrics, names
from server.ai_dispatch import AiDispatcher
from server.ai_seats import AiSeatKeeper
from server.connection import Connection
from server.engine import SEED_BYTES, Action, IllegalAction
from server.frames import RoomFrames, ack_frame
from server.hub import Hub, decode_change, decode_room, encode_change, encode_room
from server.room import (
    MATCH_RECORDS,
    Room,
    RoomError,
    Seat,
    act,
    bind_ai_seat,
    bind_offered_seat,
    bind_stand_in,
    create_room,
    expire_turn,
    hand_id,
    hand_log_complete,
    hand_log_from_changes,
    hand_record,
    join,
    leave,
    mark_away,
    mark_back,
    owed_records,
    records_due,
    rematch_room,
    request_rematch,
    start_stand_in,
)
from server.settings import Settings
from server.store import CommitResult, CommitStatus, QuickMatchStatus, Store

log = logging.getLogger(__name__)

SERVER_VERSION = "gin-rummy-server/0.1"
INVITE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
INVITE_LENGTH = 8
INVITE_TTL_SECONDS = 7 * 24 * 3600
#: Level of the AI that stands in for a person who stays away past the grace period.
STAND_IN_LEVEL = "normal"
#: Refusals of a worker's ``join_room`` that mean the offered seat needs no AI player.
SEAT_NEEDS_NO_AI = frozenset({ErrorCode.NOT_FOUND, ErrorCode.NOT_A_PLAYER})
#: Retries of a server-initiated change (join, leave, rematch) that lost a compare-and-set race.
CHANGE_RETRIES = 20
#: An act on an older sequence is applied if at most this many changes followed, all unseen.
UNSEEN_CHANGES_MAX = 4
#: Changes read at a time when a finished hand's log is read back from the change stream.
HAND_LOG_SCAN = 128
#: Records still owed this long after their change was noted are written by the sweep.
OWED_GRACE_SECONDS = 5.0

_ENGINE_CODES = {"not_your_turn": ErrorCode.NOT_YOUR_TURN}


class RequestFailed(Exception):
    """Answer the request with this error code and message."""

    def __init__(self, code: ErrorCode, message: str, detail: dict[str, Any] | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.detail = detail


def new_room_id() -> str:
    return "r" + secrets.token_urlsafe(9)


def new_invite_code() -> str:
    return "".join(secrets.choice(INVITE_ALPHABET) for _ in range(INVITE_LENGTH))


def _clean_name(raw: str, *, ai_worker: bool) -> str:
    try:
        return names.clean_name(raw, ai_worker=ai_worker)
    except names.BadName as refusal:
        raise RequestFailed(ErrorCode.BAD_NAME, str(refusal)) from None


def new_seed() -> bytes:
    """The seed of one deal: fresh entropy that nothing public reveals (kept, until the deal,
    in the stored room only)."""
    return secrets.token_bytes(SEED_BYTES)


Handler = Callable[[Connection, Any], Awaitable[dict[str, Any] | None]]


class Service:
    def __init__(
        self,
        store: Store,
        hub: Hub,
        settings: Settings,
        dispatcher: AiDispatcher,
        ai_seats: AiSeatKeeper,
    ) -> None:
        self.store = store
        self.hub = hub
        self.settings = settings
        self.dispatcher = dispatcher
        self.ai_seats = ai_seats
        self._handlers: dict[type[Any], Handler] = {
            m.Hello: self.hello,
            m.SetName: self.set_name,
            m.CreateRoom: self.create_room,
            m.JoinRoom: self.join_room,
            m.QuickMatch: self.quick_match,
            m.CancelQuickMatch: self.cancel_quick_match,
            m.Watch: self.watch,
            m.Resume: self.resume,
            m.Act: self.act,
            m.Leave: self.leave,
            m.Rematch: self.rematch,
            m.Lobby: self.lobby,
            m.Stats: self.stats,
            m.AiSubscribe: self.ai_subscribe,
        }

    async def handle(self, conn: Connection, message: m.Message) -> None:
        """Answer one request: an ack with the handler's result, or an error."""
        request_id = getattr(message, "id", None)
        if isinstance(message, m.Ping):
            conn.send(m.Pong(id=message.id))
            return
        handler = self._handlers.get(type(message))
        if handler is None:
            conn.error(request_id, ErrorCode.UNKNOWN_TYPE, f"{message.t} is not a request")
            return
        if conn.player_id is None and not isinstance(message, m.Hello):
            conn.error(request_id, ErrorCode.NOT_AUTHENTICATED, "send hello first")
            return
        try:
            result = await handler(conn, message)
        except RequestFailed as failure:
            conn.error(request_id, failure.code, failure.message, failure.detail)
            return
        except Exception:
            log.exception("request failed", extra={"type": message.t})
            conn.error(request_id, ErrorCode.INTERNAL, "internal error; nothing was changed")
            return
        if result is not None and request_id is not None:
            conn.send_frame(ack_frame(request_id, result))
        post = getattr(conn, "after_ack", None)
        if post is not None:
            conn.after_ack = None  # type: ignore[attr-defined]
            await post()

    # --- identity -----------------------------------------------------------------------------

    async def hello(self, conn: Connection, message: m.Hello) -> dict[str, Any]:
        if not m.is_compatible(message.version):
            raise RequestFailed(
                ErrorCode.UNSUPPORTED_VERSION,
                f"this server speaks protocol {m.PROTOCOL_VERSION}, not {message.version}",
                {"supported": m.PROTOCOL_VERSION},
            )
        if conn.player_id is not None:
            raise RequestFailed(ErrorCode.INVALID_ARGUMENT, "hello was already sent")
        if message.worker_key is not None:
            expected = self.settings.ai_worker_key
            if expected is None or not hmac.compare_digest(message.worker_key, expected):
                raise RequestFailed(ErrorCode.BAD_TOKEN, "wrong AI worker key")
        token = message.token
        if token is not None:
            player_id = identity.token_player_id(token)
            player = await self.store.get_player(player_id) if player_id else None
            if player is None or not identity.token_matches(token, player.token_hash):
                raise RequestFailed(ErrorCode.BAD_TOKEN, "unknown or revoked token")
            await self.store.touch_player(player.player_id)
            worker = message.worker_key is not None  # a wrong key was refused above
            name = names.kept_name(player.name, player.player_id, ai_worker=worker)
            wanted = name if message.name is None else _clean_name(message.name, ai_worker=worker)
            if wanted != player.name:
                await self.store.set_player_name(player.player_id, wanted)
                name = wanted
            conn.player_id = player.player_id
        else:
            player_id = identity.new_player_id()
            token = identity.new_token(player_id)
            if message.name is not None:
                name = _clean_name(message.name, ai_worker=message.worker_key is not None)
            else:
                name = names.default_name(player_id)
            await self.store.create_player(player_id, identity.hash_token(token), name)
            conn.player_id = player_id
        conn.name = name
        conn.client = message.client
        conn.is_worker = message.worker_key is not None
        return {
            "player_id": conn.player_id,
            "name": name,
            "token": token,
            "protocol": m.PROTOCOL_VERSION,
            "server": SERVER_VERSION,
        }

    async def set_name(self, conn: Connection, message: m.SetName) -> dict[str, Any]:
        assert conn.player_id is not None
        name = _clean_name(message.name, ai_worker=conn.is_worker)
        await self.store.set_player_name(conn.player_id, name)
        conn.name = name
        return {"name": name}

    # --- rooms --------------------------------------------------------------------------------

    async def create_room(self, conn: Connection, message: m.CreateRoom) -> dict[str, Any]:
        assert conn.player_id is not None
        rules = _match_rules(message.rules)
        turn_seconds = message.turn_seconds
        if turn_seconds is None:
            turn_seconds = 0 if message.mode == "ai" else self.settings.default_turn_seconds
        room_id = new_room_id()
        invite = new_invite_code() if message.mode == "private" else None
        room, events = create_room(
            room_id=room_id,
            mode=message.mode,
            creator=Seat(player=conn.player_id, name=conn.name),
            seed=new_seed(),
            now=time.time(),
            rules=rules,
            level=message.level,
            turn_seconds=turn_seconds,
            invite=invite,
            stand_in_level=STAND_IN_LEVEL if _stand_in_wanted(message) else None,
        )
        await self._create(room, events)
        if invite is not None:
            await self.store.put_invite(invite, room_id, INVITE_TTL_SECONDS)
        if message.mode == "ai" and message.level is not None:
            await self.ai_seats.request(room_id, 1, message.level)
        await self._follow_from_start(conn, room_id, 0)
        result: dict[str, Any] = {"room": room_id, "seat": 0}
        if invite is not None:
            result["invite"] = invite
        return result

    async def join_room(self, conn: Connection, message: m.JoinRoom) -> dict[str, Any]:
        assert conn.player_id is not None
        room_id = message.room
        if message.invite is not None:
            room_id = await self.store.resolve_invite(message.invite.upper())
            if room_id is None:
                raise RequestFailed(ErrorCode.NOT_FOUND, "no room has this invite code")
        assert room_id is not None
        if message.seat is not None and not conn.is_worker:
            raise RequestFailed(
                ErrorCode.INVALID_ARGUMENT, "only an AI worker names the seat it takes"
            )
        player = Seat(player=conn.player_id, name=conn.name)
        seat_box: list[int] = []
        stood_in: list[bool] = []

        def seat_player(room: Room, now: float) -> tuple[Room, list[dict[str, Any]]]:
            existing = room.seat_of(player.player or "")
            if message.seat is not None and existing not in (None, message.seat):
                raise RequestFailed(
                    ErrorCode.INVALID_ARGUMENT,
                    f"this connection plays seat {existing} of the room: take the other seat"
                    " on a connection of its own",
                )
            if existing is not None:
                seat_box.append(existing)
                stood_in.append(room.seats[existing].stand_in is not None)
                return mark_back(room, existing)
            if message.seat is not None:  # a worker takes the seat of the offer it took
                seat_box.append(message.seat)
                return bind_offered_seat(room, message.seat, player.player or "")
            if conn.is_worker:
                for index, seat in enumerate(room.seats):
                    if seat.stand_in is not None and seat.ai is None:
                        seat_box.append(index)
                        return bind_stand_in(room, index, player.player or "")
                for index, seat in enumerate(room.seats):
                    if seat.ai is not None:
                        seat_box.append(index)
                        return bind_ai_seat(room, index, player.player or "")
            joined, events, taken = join(room, player, now)
            seat_box.append(taken)
            return joined, events

        try:
            await self._change(room_id, seat_player, actor=None)
        except RequestFailed as refusal:
            if message.seat is not None and refusal.code in SEAT_NEEDS_NO_AI:
                await self.dispatcher.seat_refused(room_id, message.seat)
            raise
        seat = seat_box[-1]
        if stood_in and stood_in[-1]:  # a person back from a stand-in: no AI wanted there now
            await self.store.drop_ai_lease(room_id, seat)
        if conn.is_worker:
            await self.dispatcher.seat_bound(conn, room_id, seat)
            await self.ai_seats.renew({(room_id, seat)})
        await self._follow_from_start(conn, room_id, seat)
        return {"room": room_id, "seat": seat}

    async def quick_match(self, conn: Connection, message: m.QuickMatch) -> dict[str, Any]:
        assert conn.player_id is not None
        room_id = new_room_id()
        room, events = create_room(
            room_id=room_id,
            mode="quick",
            creator=Seat(player=conn.player_id, name=conn.name),
            seed=new_seed(),
            now=time.time(),
            turn_seconds=self.settings.default_turn_seconds,
        )
        await self._create(room, events)
        while True:  # each round takes one entry off the queue: it ends
            outcome = await self.store.quick_match(conn.player_id, room_id)
            if outcome.status is not QuickMatchStatus.PAIRED:
                break
            try:
                joined = await self.join_room(conn, m.JoinRoom(id=message.id, room=outcome.room_id))
            except RequestFailed as refusal:
                # The waiting player's room was taken by room id, left or swept meanwhile:
                # that queue entry is gone now, try the next one.
                if refusal.code in (ErrorCode.ROOM_FULL, ErrorCode.NOT_FOUND):
                    continue
                raise
            await self.store.expire_room(room_id, 1)
            return {"queued": False, **joined}
        if outcome.status is QuickMatchStatus.WAITING:
            await self.store.expire_room(room_id, 1)
            raise RequestFailed(ErrorCode.ALREADY_IN_QUEUE, "you are already waiting for a match")
        await self._follow_from_start(conn, outcome.room_id, 0)
        return {"queued": True, "room": outcome.room_id, "seat": 0}

    async def cancel_quick_match(
        self, conn: Connection, message: m.CancelQuickMatch
    ) -> dict[str, Any]:
        assert conn.player_id is not None
        room_id = await self.store.cancel_quick_match(conn.player_id)
        if room_id is not None:
            await self._change(room_id, lambda room, now: leave(room, 0, now), actor=0)
            await self.hub.unfollow(conn, room_id)
        return {"cancelled": room_id is not None}

    async def watch(self, conn: Connection, message: m.Watch) -> dict[str, Any]:
        version = await self.store.room_version(message.room)
        if version is None:
            raise RequestFailed(ErrorCode.NOT_FOUND, f"no room {message.room}")
        subscription = await self.hub.follow(conn, message.room, None, -1)

        async def send_snapshot() -> None:
            await self.hub.snapshot(conn, subscription)

        conn.after_ack = send_snapshot  # type: ignore[attr-defined]
        return {"room": message.room, "seq": version}

    async def resume(self, conn: Connection, message: m.Resume) -> dict[str, Any]:
        assert conn.player_id is not None
        loaded = await self.store.load_room(message.room)
        if loaded is None:
            raise RequestFailed(ErrorCode.NOT_FOUND, f"no room {message.room}")
        version, blob = loaded
        room = decode_room(blob)
        seat = room.acting_seat(conn.player_id)
        owner = room.seat_of(conn.player_id)
        if owner is not None and (room.seats[owner].away_since or room.seats[owner].stand_in):
            await self._change(message.room, lambda current, now: mark_back(current, owner), None)
            if room.seats[owner].stand_in is not None:
                await self.store.drop_ai_lease(message.room, owner)
            seat = owner
        if message.last_seq > version:
            raise RequestFailed(
                ErrorCode.STALE_SEQUENCE,
                f"room {room.id} is at {version}, not {message.last_seq}",
                {"seq": version},
            )
        await self.hub.unfollow(conn, message.room)
        subscription = await self.hub.follow(conn, message.room, seat, message.last_seq)
        if conn.is_worker and seat is not None and room.seats[seat].ai_player == conn.player_id:
            await self.ai_seats.renew({(message.room, seat)})
        oldest = await self.store.changes_since(message.room, message.last_seq)
        mode = "events" if oldest is not None else "snapshot"

        async def send_missing() -> None:
            await self.hub.catch_up(conn, subscription)

        conn.after_ack = send_missing  # type: ignore[attr-defined]
        return {"from_seq": message.last_seq + 1, "to_seq": version, "mode": mode, "seat": seat}

    async def act(self, conn: Connection, message: m.Act) -> dict[str, Any]:
        assert conn.player_id is not None
        started = time.perf_counter()
        # The room as this process last saw it, when that is the number the client acted on:
        # no read needed, the compare-and-set of the commit refuses it if it is out of date.
        version = message.seq
        cached = self.hub.cached(message.room, version)
        if cached is not None:
            room = cached
        else:
            loaded = await self.store.load_room(message.room)
            if loaded is None:
                raise RequestFailed(ErrorCode.NOT_FOUND, f"no room {message.room}")
            version, blob = loaded
            room = self.hub.cached(message.room, version) or decode_room(blob)
        seat = room.acting_seat(conn.player_id)
        if seat is None:
            if room.seat_of(conn.player_id) is not None:
                raise RequestFailed(
                    ErrorCode.NOT_YOUR_SEAT, "an AI stands in for you: resume to take it back"
                )
            raise RequestFailed(ErrorCode.NOT_A_PLAYER, "only the room's players can act")
        request_key = f"{conn.player_id}:{message.id}"
        if message.seq != version:
            if await self.store.request_applied(room.id, request_key):
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
        try:
            changed, events = act(room, seat, action, time.time(), new_seed())
        except IllegalAction as refusal:
            code = _ENGINE_CODES.get(refusal.code, ErrorCode.ILLEGAL_ACTION)
            raise RequestFailed(code, str(refusal), {"reason": refusal.code}) from None
        except RoomError as refusal:
            raise RequestFailed(ErrorCode(refusal.code), str(refusal)) from None
        change = encode_change(version + 1, events, seat)
        frames = RoomFrames(changed, version + 1, events)
        loop = asyncio.get_running_loop()
        # The commit's command goes out at the end of this turn of the loop (the direct
        # connection's flush, scheduled as the command is queued): two hops put the building
        # of the update frames after that write, while Redis runs the commit.
        loop.call_soon(loop.call_soon, self.hub.prepare, room.id, frames)
        result = await self._commit(room, version, changed, change, request_key=request_key)
        if result.status is CommitStatus.DUPLICATE:
            raise RequestFailed(
                ErrorCode.DUPLICATE_REQUEST, f"request {message.id!r} was already applied"
            )
        if result.status is not CommitStatus.OK:
            if await self._unseen_since(room.id, message.seq, result.version):
                # What came first was unseen (a worker taking its seat): act again on the room
                # as it is now. The version moved, so this ends within UNSEEN_CHANGES_MAX.
                return await self.act(conn, message)
            raise RequestFailed(
                ErrorCode.STALE_SEQUENCE,
                "another change came first; resync and try again",
                {"seq": result.version},
            )
        metrics.count_action(action.kind)
        metrics.ACTION_LATENCY.observe(time.perf_counter() - started)

        async def deliver() -> None:  # right after the ack: no wait for the feed's copy
            self.hub.deliver(room.id, result.version, changed, events, frames)

        conn.after_ack = deliver  # type: ignore[attr-defined]
        return {"seq": result.version}

    async def _unseen_since(self, room_id: str, seq: int, version: int) -> bool:
        """True when the changes after ``seq`` up to ``version`` had no events: an AI worker
        or a stand-in taking its seat, which nobody sees. A view at ``seq`` is then the view
        at ``version``, and an act on it means the same there (the first move of an AI match
        often crosses the worker's binding)."""
        if not seq < version <= seq + UNSEEN_CHANGES_MAX:
            return False
        changes = await self.store.changes_since(room_id, seq, limit=UNSEEN_CHANGES_MAX)
        return changes is not None and not any(decode_change(blob) for _, blob in changes)

    async def leave(self, conn: Connection, message: m.Leave) -> dict[str, Any]:
        assert conn.player_id is not None
        player_id = conn.player_id

        def leave_room(room: Room, now: float) -> tuple[Room, list[dict[str, Any]]]:
            seat = room.seat_of(player_id)
            if seat is None:
                raise RequestFailed(ErrorCode.NOT_A_PLAYER, "you have no seat in this room")
            return leave(room, seat, now)

        subscription = conn.rooms.get(message.room)
        version = await self._change(message.room, leave_room, actor=None)
        await self.hub.unfollow(conn, message.room)
        if conn.is_worker and subscription is not None and subscription.seat is not None:
            self.dispatcher.seat_released(conn, message.room, subscription.seat)
        return {"room": message.room, "seq": version}

    async def rematch(self, conn: Connection, message: m.Rematch) -> dict[str, Any]:
        assert conn.player_id is not None
        player_id = conn.player_id
        candidate = new_room_id()

        def ask(room: Room, now: float) -> tuple[Room, list[dict[str, Any]]]:
            seat = room.seat_of(player_id)
            if seat is None:
                raise RequestFailed(ErrorCode.NOT_A_PLAYER, "you have no seat in this room")
            try:
                return request_rematch(room, seat, candidate)
            except RoomError as refusal:
                raise RequestFailed(ErrorCode.ILLEGAL_ACTION, str(refusal)) from None

        await self._change(message.room, ask, actor=None)
        loaded = await self.store.load_room(message.room)
        assert loaded is not None
        old = decode_room(loaded[1])
        if old.next_room is None:
            return {"room": None}
        if old.next_room == candidate:
            room, events = rematch_room(old, candidate, new_seed(), time.time())
            await self._create(room, events)
            for index, seat in enumerate(room.seats):
                if seat.ai is not None:
                    await self.ai_seats.request(room.id, index, seat.ai)
        return {"room": old.next_room}

    async def ai_subscribe(self, conn: Connection, message: m.AiSubscribe) -> dict[str, Any]:
        if not conn.is_worker:
            raise RequestFailed(
                ErrorCode.NOT_AUTHENTICATED, "only an AI worker (hello with worker_key) may"
            )
        self.dispatcher.subscribe(conn, message.capacity)
        return {"capacity": message.capacity}

    async def connection_closed(self, conn: Connection) -> None:
        """A worker that goes away gives back the AI seats it was playing; a person who goes
        away is marked away (their seat waits; a stand-in may take over after the grace)."""
        if not conn.is_worker:
            await self._mark_away(conn)
            return
        asked = await self.dispatcher.worker_gone(conn)
        for room_id, subscription in list(conn.rooms.items()):
            seat = subscription.seat
            loaded = await self.store.load_room(room_id)
            if seat is None or loaded is None:
                continue
            held = decode_room(loaded[1])
            level = held.seats[seat].ai_level
            if held.status == "playing" and level and held.seats[seat].ai_player == conn.player_id:
                asked.append((room_id, seat, level))
        for room_id, seat, level in asked:
            log.info("AI seat given back by its worker", extra={"room": room_id, "seat": seat})
            await self.ai_seats.request(room_id, seat, level)

    async def _mark_away(self, conn: Connection) -> None:
        player_id = conn.player_id
        if player_id is None:
            return
        others = [
            other
            for other in self.hub.connections()
            if other is not conn and other.player_id == player_id
        ]
        for room_id, subscription in list(conn.rooms.items()):
            if subscription.seat is None:
                continue
            if any(room_id in other.rooms for other in others):
                continue
            seat = subscription.seat

            def away(room: Room, now: float, seat: int = seat) -> tuple[Room, list[Any]]:
                if room.seat_of(player_id) != seat:
                    return room, []
                return mark_away(room, seat, now)

            try:
                await self._change(room_id, away, actor=None)
            except RequestFailed:
                continue

    async def lobby(self, conn: Connection, message: m.Lobby) -> dict[str, Any]:
        return {"recent_hands": await self.recent_hands(20)}

    async def stats(self, conn: Connection, message: m.Stats) -> dict[str, Any]:
        assert conn.player_id is not None
        stats = await self.store.get_stats(conn.player_id) or {}
        fields = ("matches", "wins", "hands", "gins", "undercuts", "points")
        return {name: int(stats.get(name, 0)) for name in fields}

    # --- shared steps -------------------------------------------------------------------------

    async def recent_hands(self, limit: int) -> list[dict[str, Any]]:
        summaries = []
        for recent_id in await self.store.recent_hands(limit):
            record = await self.store.get_hand(recent_id)
            if record is None:
                continue
            data = codec.unpack(record.blob)
            if isinstance(data, dict):
                summaries.append(
                    {
                        "id": recent_id,
                        "room": record.room_id,
                        "players": data.get("players"),
                        "result": data.get("result"),
                        "finished_at": record.finished_at,
                    }
                )
        return summaries

    async def _create(self, room: Room, events: list[dict[str, Any]]) -> None:
        created = await self.store.create_room(
            room.id, encode_room(room), encode_change(0, events, None)
        )
        if not created:
            raise RequestFailed(ErrorCode.INTERNAL, "room id collision; try again")

    async def _follow_from_start(self, conn: Connection, room_id: str, seat: int) -> None:
        await self.hub.unfollow(conn, room_id)
        subscription = await self.hub.follow(conn, room_id, seat, -1)

        async def send_history() -> None:
            await self.hub.catch_up(conn, subscription)

        conn.after_ack = send_history  # type: ignore[attr-defined]

    async def _change(
        self,
        room_id: str,
        change: Callable[[Room, float], tuple[Room, list[dict[str, Any]]]],
        actor: int | None,
    ) -> int:
        """Apply a server-side change, retrying when another change wins the race."""
        for _ in range(CHANGE_RETRIES):
            loaded = await self.store.load_room(room_id)
            if loaded is None:
                raise RequestFailed(ErrorCode.NOT_FOUND, f"no room {room_id}")
            version, blob = loaded
            room = decode_room(blob)
            try:
                changed, events = change(room, time.time())
            except RoomError as refusal:
                raise RequestFailed(ErrorCode(refusal.code), str(refusal)) from None
            if changed == room and not events:
                return version
            entry = encode_change(version + 1, events, actor)
            result = await self._commit(room, version, changed, entry)
            if result.status is CommitStatus.OK:
                return result.version
        raise RequestFailed(ErrorCode.INTERNAL, "the room is too busy; try again")

    async def _commit(
        self,
        before: Room,
        version: int,
        after: Room,
        change: bytes,
        *,
        request_key: str | None = None,
    ) -> CommitResult:
        """Store the change from ``before`` (at ``version``) to ``after`` with one
        compare-and-set. The records it will owe are noted first, and written once it stands.
        The feed's copy of it is held meanwhile and then delivered from ``after``, not decoded
        (``Hub.committing``)."""
        await self._owe(before, after)
        seq = version + 1
        self.hub.committing(before.id, seq)
        result = None
        try:
            result = await self.store.commit(
                before.id,
                version,
                encode_room(after),
                change,
                request_key=request_key,
                finished=after.status == "finished",
            )
        finally:
            ok = result is not None and result.status is CommitStatus.OK
            self.hub.committed(before.id, seq, after if ok else None)
        if ok:
            await self._after_change(before, after)
        return result

    async def _owe(self, before: Room, after: Room) -> None:
        """Note the records a change will owe, before committing it (``records:pending``)."""
        for what in owed_records(before, after):
            await self.store.owe_records(before.id, what)

    async def _after_change(self, before: Room, after: Room) -> None:
        """Records and statistics of what the committed change finished: a hand, a match.
        The change stands whatever happens here: what fails is left to the sweep."""
        for what in owed_records(before, after):
            try:
                await self._write_records(after, what)
            except Exception:
                log.exception("records left to the sweep", extra={"room": after.id})

    async def write_owed_records(self, batch: int = 100) -> int:
        """Write the records still owed ``OWED_GRACE_SECONDS`` after their change was noted
        (its process died in between, or Redis failed the write); returns how many."""
        older_than = int((time.time() - OWED_GRACE_SECONDS) * 1000)
        written = 0
        for room_id, what in await self.store.owed_records(older_than, batch):
            loaded = await self.store.load_room(room_id)
            room = decode_room(loaded[1]) if loaded is not None else None
            if room is not None and records_due(room, what):
                await self._write_records(room, what)
                written += 1
            else:  # the change never happened, or the room is gone
                await self.store.records_done(room_id, what)
        return written

    async def _write_records(self, room: Room, what: str) -> None:
        if what == MATCH_RECORDS:
            await self.store.expire_room(room.id, self.settings.room_idle_seconds)
            await self._record_match(room)
        else:
            await self._record_hand(room, int(what))
        await self.store.records_done(room.id, what)

    async def _record_hand(self, room: Room, number: int) -> None:
        """The replay record of hand ``number`` and the players' statistics of it. Written
        once: a record that exists already (a sweep after a partial write) is kept, and its
        statistics are not counted again."""
        game = room.game
        record_id = hand_id(room.id, number)
        if game is None or len(game.results) < number or await self.store.hand_exists(record_id):
            return
        current = number == game.hand_number and hand_log_complete(room)
        hand_log = room.hand_log if current else await self._stored_hand_log(room.id, number)
        record = hand_record(room, number, hand_log) if hand_log else None
        if record is None:
            return
        await self.store.save_hand(record_id, room.id, codec.pack(record), time.time())
        result = game.results[number - 1]
        last = record["result"]
        knocker = last.get("knocker")
        for index, seat in enumerate(room.seats):
            if seat.player is None or seat.ai is not None:
                continue
            won = result.winner == index
            await self.store.add_stats(
                seat.player,
                hands=1,
                points=result.points if won else 0,
                gins=1 if result.kind == "gin" and won else 0,
                undercuts=1 if result.kind == "undercut" and won and knocker != index else 0,
            )

    async def _stored_hand_log(self, room_id: str, hand_number: int) -> tuple[Any, ...] | None:
        """The log of hand ``hand_number`` from the room's change stream (newest first, until
        its deal): the stored room does not hold it."""
        changes: list[list[dict[str, Any]]] = []
        before: int | None = None
        while True:
            chunk = await self.store.changes_before(room_id, before, HAND_LOG_SCAN)
            for seq, change in chunk:
                events = decode_change(change)
                changes.append(events)
                if any(e.get("type") == "deal" and e.get("hand") == hand_number for e in events):
                    return hand_log_from_changes(reversed(changes), hand_number)
                before = seq
            if len(chunk) < HAND_LOG_SCAN:
                log.warning("hand %s of room %s is gone from its stream", hand_number, room_id)
                return None

    async def _record_match(self, room: Room) -> None:
        winner = room.winner
        for index, seat in enumerate(room.seats):
            if seat.player is None or seat.ai is not None:
                continue
            await self.store.add_stats(seat.player, matches=1, wins=1 if winner == index else 0)

    # --- the turn clock -----------------------------------------------------------------------

    async def sweep_idle_rooms(self, batch: int = 100) -> int:
        """Delete rooms still unfinished ``room_idle_seconds`` after their creation (abandoned
        waiting rooms, matches nobody came back to). Finished rooms expire by themselves."""
        cutoff = time.time() - self.settings.room_idle_seconds
        swept = 0
        for room_id in await self.store.active_rooms(batch):
            loaded = await self.store.load_room(room_id)
            if loaded is not None and decode_room(loaded[1]).created_at > cutoff:
                break  # oldest first: the rest are younger
            await self.store.expire_room(room_id, 0)
            swept += 1
        return swept

    async def start_stand_ins(self) -> int:
        """Ask for an AI to stand in for every person away longer than the grace period."""
        started = 0
        now = time.time()
        grace = self.settings.disconnect_grace_seconds
        for room_id, room in self.hub.followed_rooms():
            if room.stand_in_level is None or room.status != "playing":
                continue
            for index, seat in enumerate(room.seats):
                away = seat.away_since
                if seat.stand_in is not None or away is None or now < away + grace:
                    continue

                def stand_in(
                    current: Room, at: float, index: int = index
                ) -> tuple[Room, list[Any]]:
                    return start_stand_in(current, index, at, grace)

                try:
                    await self._change(room_id, stand_in, actor=None)
                except RequestFailed:
                    continue
                loaded = await self.store.load_room(room_id)
                if loaded is not None and decode_room(loaded[1]).seats[index].stand_in:
                    await self.ai_seats.request(room_id, index, room.stand_in_level)
                    started += 1
        return started

    async def expire_turns(self) -> int:
        """Play the default move for every followed room whose turn clock ran out."""
        played = 0
        now = time.time()
        for room_id, room in self.hub.followed_rooms():
            if room.turn_deadline is None or room.turn_deadline > now:
                continue
            loaded = await self.store.load_room(room_id)
            if loaded is None:
                continue
            version, blob = loaded
            current = decode_room(blob)
            expired = expire_turn(current, now)
            if expired is None:
                continue
            changed, events = expired
            seat = current.game.turn if current.game is not None else None
            change = encode_change(version + 1, [{"type": "timeout", "seat": seat}, *events], seat)
            result = await self._commit(current, version, changed, change)
            if result.status is CommitStatus.OK:
                played += 1
        return played


def _unused(room: Room) -> Room:  # keeps ``replace`` imported for subclasses' convenience
    return replace(room)


def _match_rules(requested: m.Rules | None) -> MatchRules:
    if requested is None:
        return MatchRules()
    given = {
        "target": requested.target,
        "game_bonus": requested.game_bonus,
        "box_bonus": requested.box_bonus,
        "shutout_bonus": requested.shutout_bonus,
    }
    return MatchRules.from_dict({key: value for key, value in given.items() if value is not None})


def _stand_in_wanted(message: m.CreateRoom) -> bool:
    """An AI stands in for an absent person: on by default against an AI, off otherwise."""
    if message.stand_in is not None:
        return message.stand_in
    return message.mode == "ai"
