"""Rooms and seats: create, join, quick match, watch, resume, leave, rematch, and a person's
seat marked away when their last connection to it closes."""

from __future__ import annotations

import logging
import secrets
import time
from typing import Any

from protocol import messages as m
from protocol.messages import ErrorCode
from protocol.scoring import MatchRules
from server.ai_dispatch import AiDispatcher
from server.ai_seats import AiSeatKeeper
from server.blobs import decode_room
from server.commits import Commits
from server.connection import Connection
from server.entropy import new_seed
from server.hub import Hub
from server.invite_greeting import greeting
from server.limits import Limits
from server.live import WATCHERS_TTL_MS
from server.matchmaking import RatedMatcher
from server.ratings import Ratings
from server.requests import Reply, RequestFailed, Then
from server.room import (
    Room,
    RoomError,
    Seat,
    ai_level_wanted,
    bind_ai_seat,
    bind_offered_seat,
    bind_stand_in,
    call_stand_in,
    claim_win,
    close_result,
    create_room,
    join,
    leave,
    mark_away,
    mark_back,
    may_take_seat_by_id,
    may_watch,
    rematch_room,
    request_rematch,
)
from server.settings import Settings
from server.store import QuickMatchStatus, Store
from server.store.quotas import RoomClaimResult

log = logging.getLogger(__name__)

INVITE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
INVITE_LENGTH = 8
INVITE_TTL_SECONDS = 7 * 24 * 3600
#: Level of the AI that stands in for a person who stays away past the grace period.
STAND_IN_LEVEL = "normal"
#: How long a ``create_room`` sent again with its id gets the room the first one made.
CREATE_RETRY_SECONDS = 600
#: Refusals of a worker's ``join_room`` that mean the offered seat needs no AI player.
SEAT_NEEDS_NO_AI = frozenset({ErrorCode.NOT_FOUND, ErrorCode.NOT_A_PLAYER})


def new_room_id() -> str:
    return "r" + secrets.token_urlsafe(9)


def new_invite_code() -> str:
    return "".join(secrets.choice(INVITE_ALPHABET) for _ in range(INVITE_LENGTH))


def new_watch_token() -> str:
    return secrets.token_urlsafe(16)


class Rooms:
    def __init__(
        self,
        store: Store,
        hub: Hub,
        commits: Commits,
        settings: Settings,
        dispatcher: AiDispatcher,
        ai_seats: AiSeatKeeper,
        limits: Limits,
        ratings: Ratings,
        matcher: RatedMatcher,
    ) -> None:
        self._ratings = ratings
        self._matcher = matcher
        self._limits = limits
        self._store = store
        self._hub = hub
        self._commits = commits
        self._settings = settings
        self._dispatcher = dispatcher
        self._ai_seats = ai_seats

    async def create_room(self, conn: Connection, message: m.CreateRoom) -> Reply:
        assert conn.player_id is not None
        rules = _match_rules(message.rules)
        turn_seconds = message.turn_seconds
        if turn_seconds is None:
            turn_seconds = 0 if message.mode == "ai" else self._settings.default_turn_seconds
        room_id = await self._store.room_for_request(
            conn.player_id, _request_field(message.id), new_room_id(), CREATE_RETRY_SECONDS
        )
        made_before = await self._store.load_room(room_id)
        if made_before is not None:  # a retry of a request that made its room
            return await self._created_before(conn, message, decode_room(made_before[1]))
        rated = bool(message.rated)
        creator_rating = await self._rating_to_sit(conn) if rated else None
        claim = await self._limits.claim_room(conn, room_id, ai=message.mode == "ai")
        invite = new_invite_code() if message.mode == "private" else None
        public = bool(message.public)
        watch_token = None if public else new_watch_token()
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
            turn_bank=self._turn_bank(turn_seconds, message.turn_bank),
            public=public,
            watch_token=watch_token,
            rated=rated,
            creator_rating=creator_rating,
            ai_pace=message.ai_pace or "normal",
            tutorial=bool(message.tutorial),
        )
        await self._commits.create(room, events)
        if invite is not None:
            await self._store.put_invite(invite, room_id, INVITE_TTL_SECONDS)
        if message.mode == "ai" and message.level is not None:
            await self._ai_seats.request(room_id, 1, message.level, claim.ai_rooms if claim else 0)
        history = await self._follow_from_start(conn, room_id, 0)
        result: dict[str, Any] = {"room": room_id, "seat": 0}
        if invite is not None:
            result["invite"] = invite
        if watch_token is not None:
            result["watch_token"] = watch_token
        return Reply(result, then=history)

    async def _created_before(self, conn: Connection, message: m.CreateRoom, room: Room) -> Reply:
        """``create_room`` sent again (its answer was a retryable store error) after its room
        was made: the steps after the room's creation are done again (each is idempotent),
        and the answer is the first one's. Once the room is over, the request is spent."""
        if room.seat_of(conn.player_id or "") != 0 or room.status == "finished":
            raise RequestFailed(
                ErrorCode.DUPLICATE_REQUEST, f"request {message.id!r} was already applied"
            )
        if room.invite is not None:
            await self._store.put_invite(room.invite, room.id, INVITE_TTL_SECONDS)
        ai_seat = room.seats[1]
        if ai_seat.ai is not None and ai_seat.ai_player is None:
            await self._ai_seats.request(room.id, 1, ai_seat.ai)
        history = await self._follow_from_start(conn, room.id, 0)
        result: dict[str, Any] = {"room": room.id, "seat": 0}
        if room.invite is not None:
            result["invite"] = room.invite
        if room.watch_token is not None:
            result["watch_token"] = room.watch_token
        return Reply(result, then=history)

    async def join_room(
        self, conn: Connection, message: m.JoinRoom, *, paired: bool = False
    ) -> Reply:
        """``paired``: quick match joins the room of the player it paired with (no lookup)."""
        assert conn.player_id is not None
        room_id = message.room
        if not paired:
            self._limits.check_lookup(conn, time.monotonic())
        if message.invite is not None:
            room_id = await self._store.resolve_invite(message.invite.upper())
            if room_id is None:
                self._limits.lookup_failed(conn, time.monotonic())
                raise RequestFailed(ErrorCode.NOT_FOUND, "no room has this invite code")
        assert room_id is not None
        if message.seat is not None and not conn.is_worker:
            raise RequestFailed(
                ErrorCode.INVALID_ARGUMENT, "only an AI worker names the seat it takes"
            )
        player = Seat(player=conn.player_id, name=conn.name)
        # A rated room seats account holders only, with their rating as they sit down.
        rating = None
        if not conn.is_worker and await self._store.handle_of(conn.player_id) is not None:
            rating = await self._ratings.seat_rating(conn.player_id)
        # A person's free seat by room id alone only in a public room (workers take AI seats).
        by_id = message.invite is None and not conn.is_worker
        seat_box: list[int] = []
        stood_in: list[bool] = []

        def seat_player(room: Room, now: float) -> tuple[Room, list[dict[str, Any]]]:
            if by_id and not may_take_seat_by_id(room, player.player or ""):
                raise RequestFailed(ErrorCode.NOT_FOUND, f"no room {message.room}")
            existing = room.seat_of(player.player or "")
            if message.seat is not None and existing not in (None, message.seat):
                raise RequestFailed(
                    ErrorCode.INVALID_ARGUMENT,
                    f"this connection plays seat {existing} of the room already",
                )
            if existing is not None:
                seat_box.append(existing)
                stood_in.append(room.seats[existing].stand_in is not None)
                return mark_back(room, existing, now)
            if message.seat is not None:  # a worker takes the seat of the offer it took
                seat_box.append(message.seat)
                return bind_offered_seat(room, message.seat, player.player or "")
            if conn.is_worker:
                for index, seat in enumerate(room.seats):
                    if seat.stand_in is not None and ai_level_wanted(room, index) is not None:
                        seat_box.append(index)
                        return bind_stand_in(room, index, player.player or "")
                for index, seat in enumerate(room.seats):
                    if seat.ai is not None:
                        seat_box.append(index)
                        return bind_ai_seat(room, index, player.player or "")
            # An account holder sits in a rated room's free seat only once they agree to it.
            unagreed = room.rated and rating is not None and message.rated is not True
            if unagreed and room.status == "waiting" and room.seats[1].open:
                raise RequestFailed(
                    ErrorCode.RATED_NOT_AGREED,
                    "this match is rated: join with rated: true to agree",
                    {"target": room.rules.target},
                )
            try:
                joined, events, taken = join(room, player, now, rating)
            except RoomError as refusal:
                raise RequestFailed(ErrorCode(refusal.code), str(refusal)) from None
            seat_box.append(taken)
            return joined, events

        claim = await self._limits.claim_room(conn, room_id)
        try:
            await self._commits.change(room_id, seat_player, actor=None)
        except RequestFailed as refusal:
            await self._limits.unclaim(conn, room_id, claim)
            if refusal.code is ErrorCode.NOT_FOUND and not paired:
                self._limits.lookup_failed(conn, time.monotonic())
            if message.seat is not None and refusal.code in SEAT_NEEDS_NO_AI:
                await self._dispatcher.seat_refused(room_id, message.seat)
            elif message.seat is not None and conn.is_worker:
                self._dispatcher.seat_handed_back(conn, room_id, message.seat)
            raise
        seat = seat_box[-1]
        if stood_in and stood_in[-1]:  # a person back from a stand-in: no AI wanted there now
            await self._store.drop_ai_lease(room_id, seat)
        if stood_in and not conn.is_worker:  # a person back in their own seat
            loaded = await self._store.load_room(room_id)
            if loaded is not None:
                await self._ai_seats.person_back(decode_room(loaded[1]))
        if conn.is_worker:
            await self._dispatcher.seat_bound(conn, room_id, seat)
            await self._ai_seats.renew({(room_id, seat)})
        history = await self._follow_from_start(conn, room_id, seat)
        return Reply({"room": room_id, "seat": seat}, then=history)

    async def invite_info(self, conn: Connection, message: m.InviteInfo) -> Reply:
        """The greeting of an invite code, without taking its seat; a wrong code counts as a
        failed lookup, like ``join_room``'s."""
        self._limits.check_lookup(conn, time.monotonic())
        room_id = await self._store.resolve_invite(message.invite.upper())
        loaded = None if room_id is None else await self._store.load_room(room_id)
        if loaded is None:
            self._limits.lookup_failed(conn, time.monotonic())
            raise RequestFailed(ErrorCode.NOT_FOUND, "no room has this invite code")
        return Reply(greeting(decode_room(loaded[1]), conn.player_id or ""))

    async def quick_match(self, conn: Connection, message: m.QuickMatch) -> Reply:
        assert conn.player_id is not None
        if message.rated:
            return await self._rated_quick_match(conn)
        room_id, claim = await self._create_quick_room(conn)
        while True:  # each round takes one entry off the queue: it ends
            outcome = await self._store.quick_match(conn.player_id, room_id)
            if outcome.status is not QuickMatchStatus.PAIRED:
                break
            await self._limits.unclaim(conn, room_id, claim)  # the opponent's room counts
            try:
                pairing = m.JoinRoom(id=message.id, room=outcome.room_id)
                joined = await self.join_room(conn, pairing, paired=True)
            except RequestFailed as refusal:
                # The waiting player's room was taken by room id, left or swept meanwhile:
                # that queue entry is gone now, try the next one.
                if refusal.code in (ErrorCode.ROOM_FULL, ErrorCode.NOT_FOUND):
                    continue
                raise
            await self._store.expire_room(room_id, 1)
            return Reply({"queued": False, **joined.result}, then=joined.then)
        if outcome.status is QuickMatchStatus.WAITING:
            await self._limits.unclaim(conn, room_id, claim)
            await self._store.expire_room(room_id, 1)
            raise RequestFailed(ErrorCode.ALREADY_IN_QUEUE, "you are already waiting for a match")
        history = await self._follow_from_start(conn, outcome.room_id, 0)
        return Reply({"queued": True, "room": outcome.room_id, "seat": 0}, then=history)

    async def _create_quick_room(
        self, conn: Connection, rating: dict[str, Any] | None = None
    ) -> tuple[str, RoomClaimResult | None]:
        """A quick match room of the player's own, counted against their rooms; rated when the
        player sits down with a ``rating``. Its id and the claim that counts it."""
        assert conn.player_id is not None
        room_id = new_room_id()
        claim = await self._limits.claim_room(conn, room_id)
        room, events = create_room(
            room_id=room_id,
            mode="quick",
            creator=Seat(player=conn.player_id, name=conn.name),
            seed=new_seed(),
            now=time.time(),
            turn_seconds=self._settings.default_turn_seconds,
            turn_bank=self._turn_bank(self._settings.default_turn_seconds, None),
            rated=rating is not None,
            creator_rating=rating,
        )
        await self._commits.create(room, events)
        return room_id, claim

    async def _rating_to_sit(self, conn: Connection) -> dict[str, Any]:
        """The rating an account holder sits down with in a rated room, or
        ``account_required``."""
        assert conn.player_id is not None
        if conn.is_worker or await self._store.handle_of(conn.player_id) is None:
            raise RequestFailed(
                ErrorCode.ACCOUNT_REQUIRED,
                "rated matches are for account holders: keep your player first",
            )
        return await self._ratings.seat_rating(conn.player_id)

    async def _rated_quick_match(self, conn: Connection) -> Reply:
        """Wait for a rated opponent in a room of one's own; the matcher seats one there, or
        seats this player in theirs (this room then points at it: ``next_room``)."""
        assert conn.player_id is not None
        rating = await self._rating_to_sit(conn)
        left = await self._ratings.cooldown_left(conn.player_id)
        if left > 0:
            raise RequestFailed(
                ErrorCode.RATED_COOLDOWN,
                f"you walked out of rated matches: the rated queue opens again in {left} s",
                {"seconds": left},
            )
        room_id, claim = await self._create_quick_room(conn, rating)
        entry = {"room": room_id, "rating": rating["rating"], "rd": rating["rd"], "name": conn.name}
        entry["shown"] = rating["shown"]
        queued, _ = await self._store.rated_join(conn.player_id, entry)
        if not queued:
            await self._limits.unclaim(conn, room_id, claim)
            await self._store.expire_room(room_id, 1)
            raise RequestFailed(ErrorCode.ALREADY_IN_QUEUE, "you are already waiting for a match")
        history = await self._follow_from_start(conn, room_id, 0)
        await self._matcher.run_once()
        return Reply({"queued": True, "room": room_id, "seat": 0, "rated": True}, then=history)

    async def cancel_quick_match(self, conn: Connection, message: m.CancelQuickMatch) -> Reply:
        assert conn.player_id is not None
        room_id = await self._store.cancel_quick_match(conn.player_id)
        if room_id is None:
            room_id = await self._store.rated_cancel(conn.player_id)
        if room_id is not None:
            await self._commits.change(room_id, lambda room, now: leave(room, 0, now), actor=0)
            await self._hub.unfollow(conn, room_id)
        return Reply({"cancelled": room_id is not None})

    async def watch(self, conn: Connection, message: m.Watch) -> Reply:
        self._limits.check_lookup(conn, time.monotonic())
        loaded = await self._store.load_room(message.room)
        if loaded is None or not (
            conn.is_worker or may_watch(decode_room(loaded[1]), conn.player_id, message.watch_token)
        ):
            self._limits.lookup_failed(conn, time.monotonic())
            raise RequestFailed(ErrorCode.NOT_FOUND, f"no room {message.room}")
        version = loaded[0]
        subscription = await self._hub.follow(conn, message.room, None, -1)
        if not conn.is_worker:
            await self._count_watchers(message.room)

        async def send_snapshot() -> None:
            await self._hub.snapshot(conn, subscription)

        return Reply({"room": message.room, "seq": version}, then=send_snapshot)

    async def resume(self, conn: Connection, message: m.Resume) -> Reply:
        assert conn.player_id is not None
        loaded = await self._store.load_room(message.room)
        if loaded is None:
            raise RequestFailed(ErrorCode.NOT_FOUND, f"no room {message.room}")
        version, blob = loaded
        room = decode_room(blob)
        seat = room.acting_seat(conn.player_id)
        owner = room.seat_of(conn.player_id)
        if seat is None and not (
            conn.is_worker or may_watch(room, conn.player_id, message.watch_token)
        ):
            raise RequestFailed(ErrorCode.NOT_FOUND, f"no room {message.room}")
        if owner is not None and (room.seats[owner].away_since or room.seats[owner].stand_in):
            await self._commits.change(
                message.room, lambda current, now: mark_back(current, owner, now), None
            )
            if room.seats[owner].stand_in is not None:
                await self._store.drop_ai_lease(message.room, owner)
            await self._ai_seats.person_back(room)
            seat = owner
        if message.last_seq > version:
            raise RequestFailed(
                ErrorCode.STALE_SEQUENCE,
                f"room {room.id} is at {version}, not {message.last_seq}",
                {"seq": version},
            )
        await self._hub.unfollow(conn, message.room)
        subscription = await self._hub.follow(conn, message.room, seat, message.last_seq)
        if seat is None and not conn.is_worker:
            await self._count_watchers(message.room)
        if conn.is_worker and seat is not None and room.seats[seat].ai_player == conn.player_id:
            await self._ai_seats.renew({(message.room, seat)})
        oldest = await self._store.changes_since(message.room, message.last_seq)
        mode = "events" if oldest is not None else "snapshot"

        async def send_missing() -> None:
            await self._hub.catch_up(conn, subscription)

        result = {"from_seq": message.last_seq + 1, "to_seq": version, "mode": mode, "seat": seat}
        return Reply(result, then=send_missing)

    async def _count_watchers(self, room_id: str) -> None:
        """Write this process's count of the room's spectators now (Upkeep renews it), and
        read the total into the views."""
        hub = self._hub
        await self._store.set_watchers(hub.process_id, hub.spectators([room_id]), WATCHERS_TTL_MS)
        hub.set_watchers(await self._store.watcher_counts([room_id]))

    async def unfollow(self, conn: Connection, message: m.Unfollow) -> Reply:
        """The connection stops following the room. A person's seat there that no other
        connection of theirs follows is away (as if they had gone), until they resume it; an
        AI seat a worker stops following frees its capacity and is asked for again."""
        subscription = conn.rooms.get(message.room)
        await self._hub.unfollow(conn, message.room)
        if subscription is None:
            return Reply({"room": message.room})
        if subscription.seat is None:
            await self._count_watchers(message.room)
        elif conn.is_worker:
            self._dispatcher.seat_released(conn, message.room, subscription.seat)
            await self._ai_seats.abandoned(message.room, subscription.seat)
        else:
            await self._mark_seat_away(conn, message.room, subscription.seat)
        return Reply({"room": message.room})

    async def leave(self, conn: Connection, message: m.Leave) -> Reply:
        assert conn.player_id is not None
        player_id = conn.player_id

        def leave_room(room: Room, now: float) -> tuple[Room, list[dict[str, Any]]]:
            seat = room.seat_of(player_id)
            if seat is None:
                raise RequestFailed(ErrorCode.NOT_A_PLAYER, "you have no seat in this room")
            return leave(room, seat, now)

        subscription = conn.rooms.get(message.room)
        version = await self._commits.change(message.room, leave_room, actor=None)
        await self._hub.unfollow(conn, message.room)
        if conn.is_worker and subscription is not None and subscription.seat is not None:
            self._dispatcher.seat_released(conn, message.room, subscription.seat)
        return Reply({"room": message.room, "seq": version})

    async def claim_win(self, conn: Connection, message: m.ClaimWin) -> Reply:
        """The opponent is away past the grace: the match ends, they forfeit."""
        player_id = conn.player_id or ""
        grace = self._settings.disconnect_grace_seconds

        def claim(room: Room, now: float) -> tuple[Room, list[dict[str, Any]]]:
            return claim_win(room, _own_seat(room, player_id), now, grace)

        version = await self._commits.change(message.room, claim, actor=None)
        return Reply({"room": message.room, "seq": version})

    async def close_result(self, conn: Connection, message: m.CloseResult) -> Reply:
        """The player closed the last hand's result: a turn of theirs that waited starts."""
        player_id = conn.player_id or ""

        def close(room: Room, now: float) -> tuple[Room, list[dict[str, Any]]]:
            return close_result(room, _own_seat(room, player_id), message.hand, now)

        version = await self._commits.change(message.room, close, actor=None)
        return Reply({"room": message.room, "seq": version})

    async def call_stand_in(self, conn: Connection, message: m.CallStandIn) -> Reply:
        """The opponent is away past the grace: an AI plays their seat until they are back."""
        player_id = conn.player_id or ""
        grace = self._settings.disconnect_grace_seconds
        away: list[int] = []

        def call(room: Room, now: float) -> tuple[Room, list[dict[str, Any]]]:
            seat = _own_seat(room, player_id)
            away.append(1 - seat)
            return call_stand_in(room, seat, STAND_IN_LEVEL, now, grace)

        version = await self._commits.change(message.room, call, actor=None)
        await self._ai_seats.request(message.room, away[-1], STAND_IN_LEVEL)
        return Reply({"room": message.room, "seq": version, "ai_seat": away[-1]})

    def _turn_bank(self, turn_seconds: int, asked: int | None) -> int:
        """Each seat's time bank: as asked, else the server's; none without a turn clock."""
        if not turn_seconds:
            return 0
        return self._settings.turn_bank_seconds if asked is None else asked

    async def rematch(self, conn: Connection, message: m.Rematch) -> Reply:
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

        await self._commits.change(message.room, ask, actor=None)
        loaded = await self._store.load_room(message.room)
        assert loaded is not None
        old = decode_room(loaded[1])
        if old.next_room is None:
            return Reply({"room": None})
        if old.next_room == candidate:
            room, events = rematch_room(old, candidate, new_seed(), time.time())
            await self._commits.create(room, events)
            for index, seat in enumerate(room.seats):
                if seat.ai is not None:
                    await self._ai_seats.request(room.id, index, seat.ai)
        return Reply({"room": old.next_room})

    async def mark_away(self, conn: Connection) -> None:
        """A person's connection closed: each seat of theirs that no other connection of theirs
        follows is marked away (it waits; a stand-in may take over after the grace)."""
        for room_id, subscription in list(conn.rooms.items()):
            if subscription.seat is not None:
                await self._mark_seat_away(conn, room_id, subscription.seat)

    async def _mark_seat_away(self, conn: Connection, room_id: str, seat: int) -> None:
        """The person of ``conn`` no longer follows their seat of the room on it: the seat is
        away, unless another connection of theirs follows the room here."""
        player_id = conn.player_id
        if player_id is None:
            return
        if any(
            other is not conn and other.player_id == player_id and room_id in other.rooms
            for other in self._hub.connections()
        ):
            return

        def away(room: Room, now: float) -> tuple[Room, list[Any]]:
            if room.seat_of(player_id) != seat:
                return room, []
            return mark_away(room, seat, now)

        try:
            await self._commits.change(room_id, away, actor=None)
        except RequestFailed as failure:
            if failure.code is not ErrorCode.NOT_FOUND:  # a room gone has nobody to tell
                log.warning(
                    "seat not marked away",
                    extra={"room": room_id, "seat": seat, "code": failure.code.value},
                )

    async def _follow_from_start(self, conn: Connection, room_id: str, seat: int) -> Then:
        """Follow the room from its creation on; returns the sending of its history so far,
        to follow the ack."""
        await self._hub.unfollow(conn, room_id)
        subscription = await self._hub.follow(conn, room_id, seat, -1)

        async def send_history() -> None:
            await self._hub.catch_up(conn, subscription)

        return send_history


def _request_field(request_id: m.RequestId) -> str:
    """A request id as kept in Redis: an integer apart from the same digits as a string."""
    kind = "i" if isinstance(request_id, int) else "s"
    return f"{kind}:{request_id}"


def _own_seat(room: Room, player_id: str) -> int:
    seat = room.seat_of(player_id)
    if seat is None:
        raise RequestFailed(ErrorCode.NOT_A_PLAYER, "you have no seat in this room")
    return seat


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
    """An AI stands in for an absent person in a room between people that asks for it. A room
    against the AI has none: it waits for its person (``stand_in: true`` is refused there)."""
    return message.mode != "ai" and bool(message.stand_in)
