"""A room: two seats, who sits in them, and the match they play. Pure: no I/O, no clock.

Every operation returns the new room and the full-information events it caused; the caller
stores both atomically and only then tells anyone. Times are passed in (seconds since the epoch).
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from operator import attrgetter
from typing import Any, Literal

from protocol.cards import card_index, to_mask
from protocol.melds import min_deadwood_mask
from protocol.scoring import MatchRules
from server.engine import (
    SEED_BYTES,
    Action,
    GameState,
    Phase,
    apply,
    deal_event,
    legal_actions,
    new_match,
)
from server.engine.events import Event
from server.engine.plain import names, plain_writer, read_plain, replacer, shown_fields, stored
from server.engine.state import MOVE_BY, rules_dict
from server.engine.views import ROOM_EVENT_TYPES, game_view
from server.names import name_id, shown_names
from server.tutorial import TUTORIAL_LEVEL, TUTORIAL_SEED

RoomMode = Literal["ai", "private", "quick"]
ROOM_MODES = ("ai", "private", "quick")
AI_LEVELS = ("easy", "normal", "hard")
#: How quickly the AI of a room against the AI plays (``create_room``'s ``ai_pace``).
AI_PACES = ("normal", "fast")
ROOM_FORMAT = 1
#: How long a turn waits for a person still looking at the last hand's result (who neither
#: dealt the next hand nor closed the result, ``close_result``) before its clock runs.
RESULT_READING_SECONDS = 30
#: The stored form (``to_dict(hand_log=False)``): format 1 without the hand log, which the
#: room's change stream holds already (a move then rewrites a small blob, not the whole hand).
ROOM_BLOB_FORMAT = 2


class RoomError(ValueError):
    """A room operation that cannot happen; ``code`` is the wire error code."""

    code = "invalid_argument"


class RoomFull(RoomError):
    code = "room_full"


class NotAPlayer(RoomError):
    code = "not_a_player"


class RoomClosed(RoomError):
    code = "illegal_action"


class OpponentPresent(RoomError):
    code = "opponent_present"


class NotAwayLongEnough(RoomError):
    code = "not_away_long_enough"


class AccountRequired(RoomError):
    code = "account_required"


def _seed(stored: object) -> bytes:
    """A stored room's first-deal seed (hex); a room stored before seeds were bytes has a
    secret 63-bit integer, which keys its deal just as well."""
    if isinstance(stored, int) and not isinstance(stored, bool) and stored >= 0:
        return stored.to_bytes(SEED_BYTES, "big")
    if isinstance(stored, str) and len(stored) == 2 * SEED_BYTES:
        return bytes.fromhex(stored)
    raise ValueError(f"a room's seed is {SEED_BYTES} bytes in hex")


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat: the player bound to it (by id), the name shown, its AI level if it is an AI
    seat, and for a person: since when they are away, whether they have been away past the
    grace (``away_choice``: the other person may claim the win or call a stand-in), and the AI
    standing in for them (its level, and the worker bound to play it) until they come back."""

    player: str | None = stored(None)
    name: str | None = stored(None)
    ai: str | None = stored(None)
    away_since: float | None = stored(None, old=None)
    stand_in: str | None = stored(None, old=None)
    agent: str | None = stored(None, old=None)
    away_choice: bool = stored(False, into=bool, old=False)

    @property
    def open(self) -> bool:
        return self.player is None and self.ai is None

    @property
    def ai_level(self) -> str | None:
        """The level of the AI that plays this seat: an AI seat's, or a stand-in's."""
        return self.ai if self.ai is not None else self.stand_in

    @property
    def ai_player(self) -> str | None:
        """The worker bound to play this seat for an AI, if any."""
        if self.ai is not None:
            return self.player
        return self.agent if self.stand_in is not None else None

    def to_dict(self) -> dict[str, Any]:
        return _write_seat(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Seat:
        return read_plain(cls, data)


_write_seat = plain_writer(Seat)


@dataclass(frozen=True, slots=True)
class Room:
    # Each field says how it is stored (``server.engine.plain``: ``out``, ``into``, ``old``: what
    # a room stored before it existed reads as) and whether the room's view shows it
    # (``shown``: ``room_view``, ``server.frames``). ``to_dict``, ``from_dict``, the stored
    # blob's parts (``server.blobs``), the views' and the fast copies are made from these.
    id: str = stored()
    mode: str = stored()
    seats: tuple[Seat, Seat] = stored(
        out=lambda seats: [seat.to_dict() for seat in seats],
        into=lambda seats: (Seat.from_dict(seats[0]), Seat.from_dict(seats[1])),
    )
    status: Literal["waiting", "playing", "finished"] = stored()
    rules: MatchRules = stored(
        out=lambda rules: rules_dict(rules).copy(), into=MatchRules.from_dict
    )
    turn_seconds: int = stored(shown=True)
    #: The seed of the match's first deal (made with the room; it deals when its seats fill).
    #: Every later hand is dealt from a seed drawn for it when it is dealt (``act``).
    seed: bytes = stored(out=bytes.hex, into=_seed)
    created_at: float = stored()
    invite: str | None = stored(None)
    game: GameState | None = stored(
        None,
        out=lambda game: None if game is None else game.to_dict(),
        into=lambda game: None if game is None else GameState.from_dict(game),
    )
    turn_deadline: float | None = stored(None, shown=True)
    #: Format 1 only (``ROOM_BLOB_FORMAT`` leaves it out).
    hand_log: tuple[Event, ...] = stored((), out=list, into=tuple, old=())
    hand_ids: tuple[str, ...] = stored((), out=list, into=tuple)
    forfeit: int | None = stored(None, shown=True)
    rematch: tuple[bool, bool] = stored(
        (False, False), out=list, into=lambda wants: (bool(wants[0]), bool(wants[1])), shown=True
    )
    next_room: str | None = stored(None, shown=True)
    #: Level of the AI that stands in for a person away longer than the grace (None: off).
    stand_in_level: str | None = stored(None, old=None, shown=True)
    #: Listed (its finished hands) and watchable by room id alone: quick match, or chosen.
    #: Rooms stored before privacy: quick-match rooms were the public ones.
    public: bool = stored(False, into=bool, missing=lambda data: data["mode"] == "quick")
    #: What a watcher of a room that is not public needs besides the room id (its link).
    watch_token: str | None = stored(None, old=None)
    #: The time bank each seat starts the match with (seconds); ``banks``: what is left of it.
    #: A turn's deadline is its ``turn_seconds`` plus the bank left to the seat to play.
    turn_bank: int = stored(0, old=0, shown=True)
    banks: tuple[float, float] = stored(
        (0.0, 0.0),
        out=list,
        into=lambda banks: (float(banks[0]), float(banks[1])),
        old=(0.0, 0.0),
        shown=True,
    )
    #: A rated match (``docs/ratings.md``): rated quick match, or a private room its creator
    #: made rated (whoever takes its seat agrees). Both seats are account holders.
    rated: bool = stored(False, into=bool, old=False, shown=True)
    #: A rated room's ratings per seat (``SeatRating.to_dict``): as the seat sat down, and
    #: once the match is rated, before and after its update (``rated_match``).
    ratings: tuple[dict[str, Any] | None, dict[str, Any] | None] | None = stored(
        None,
        out=lambda pair: None if pair is None else list(pair),
        into=lambda pair: None if pair is None else (pair[0], pair[1]),
        old=None,
        shown=True,
    )

    #: Whose result of the last hand is still open: each person's from the hand's end until
    #: they deal the next hand or close the result (``close_result``). A turn of theirs gets
    #: ``RESULT_READING_SECONDS`` more before its clock runs, and starts afresh when they close it.
    results_open: tuple[bool, bool] = stored(
        (False, False),
        out=list,
        into=lambda flags: (bool(flags[0]), bool(flags[1])),
        old=(False, False),
        shown=True,
    )

    #: How quickly the AI seat plays (``AI_PACES``): its worker's pace, or faster (the person
    #: asked for it). Its worker reads it in the view, like any field a person's page reads.
    ai_pace: str = stored("normal", old="normal", shown=True)
    #: The guided first hand (``server.tutorial``): its first deal is the fixed, public one.
    tutorial: bool = stored(False, into=bool, old=False, shown=True)

    # --- queries ------------------------------------------------------------------------------

    def seat_of(self, player_id: str) -> int | None:
        """The seat this player owns (a stand-in's worker owns none)."""
        for index, seat in enumerate(self.seats):
            if seat.player == player_id:
                return index
        return None

    def acting_seat(self, player_id: str) -> int | None:
        """The seat this player may act for now: its own unless an AI stands in for it, or
        the seat it stands in for."""
        for index, seat in enumerate(self.seats):
            if seat.agent == player_id:
                return index
            if seat.player == player_id and seat.stand_in is None:
                return index
        return None

    @property
    def winner(self) -> int | None:
        if self.forfeit is not None:
            return 1 - self.forfeit
        return self.game.winner if self.game is not None else None

    # --- plain data ---------------------------------------------------------------------------

    def to_dict(self, *, hand_log: bool = True, game: bool = True) -> dict[str, Any]:
        """Plain data. ``hand_log=False`` leaves the hand log out (format 2, the stored form:
        ``from_dict`` gives such a room an empty ``hand_log``); ``game=False`` leaves the game
        out (the stored blob encodes it apart, ``RoomBlobs.encode_room``)."""
        data = _write_room(self) if hand_log else _write_stored_room(self)
        if not game:
            del data["game"]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Room:
        """The inverse of ``to_dict``, of either format."""
        fmt = data.get("format")
        if fmt not in (ROOM_FORMAT, ROOM_BLOB_FORMAT) or isinstance(fmt, bool):
            raise ValueError(f"unsupported room format {fmt!r}")
        if (fmt == ROOM_FORMAT) != ("hand_log" in data):
            raise ValueError(f"a room of format {fmt} has a hand log only in format 1")
        if data.get("mode") not in ROOM_MODES:
            raise ValueError(f"unknown room mode {data.get('mode')!r}")
        if data.get("status") not in ("waiting", "playing", "finished"):
            raise ValueError(f"unknown room status {data.get('status')!r}")
        if not isinstance(data.get("seats"), list) or len(data["seats"]) != 2:
            raise ValueError("a room has exactly two seats")
        return read_plain(cls, data)


_write_room = plain_writer(Room, {"format": ROOM_FORMAT})
#: The fields of the stored form (format 2).
STORED_FIELDS = names(Room, without=("hand_log",))
_write_stored_room = plain_writer(Room, {"format": ROOM_BLOB_FORMAT}, only=STORED_FIELDS)


# --- operations ---------------------------------------------------------------------------------


def create_room(
    *,
    room_id: str,
    mode: str,
    creator: Seat,
    seed: bytes,
    now: float,
    rules: MatchRules | None = None,
    level: str | None = None,
    turn_seconds: int = 0,
    invite: str | None = None,
    opponent: Seat | None = None,
    stand_in_level: str | None = None,
    public: bool = False,
    watch_token: str | None = None,
    turn_bank: int = 0,
    rated: bool = False,
    creator_rating: dict[str, Any] | None = None,
    ai_pace: str = "normal",
    tutorial: bool = False,
) -> tuple[Room, list[Event]]:
    """A new room with the creator in seat 0 (a rated room: with their rating as they sat
    down). An AI room seats the AI in seat 1 and deals at once; a quick-match room is created
    with both players and deals at once. A quick-match room is always public; another is
    public only if asked (else watching it needs ``watch_token``)."""
    if mode not in ROOM_MODES:
        raise RoomError(f"room mode must be one of {', '.join(ROOM_MODES)}, got {mode!r}")
    if mode == "ai":
        if level not in AI_LEVELS:
            raise RoomError(f"AI level must be one of {', '.join(AI_LEVELS)}, got {level!r}")
        opponent = Seat(ai=level, name=f"AI ({level})")
    elif level is not None:
        raise RoomError("only an AI room has a level")
    if tutorial:
        # a known deal: against the easy AI only, never between people, never rated
        if mode != "ai" or level != TUTORIAL_LEVEL or rated:
            raise RoomError("the guided first hand is played against the easy AI only")
        seed = TUTORIAL_SEED
    if ai_pace not in AI_PACES or (ai_pace != "normal" and mode != "ai"):
        raise RoomError(f"an AI pace ({', '.join(AI_PACES)}) is for a room against the AI")
    room = Room(
        id=room_id,
        mode=mode,
        seats=(creator, opponent or Seat()),
        status="waiting",
        rules=rules or MatchRules(),
        turn_seconds=turn_seconds,
        seed=seed,
        created_at=now,
        invite=invite,
        stand_in_level=stand_in_level,
        public=public or mode == "quick",
        watch_token=watch_token,
        turn_bank=turn_bank,
        banks=(float(turn_bank), float(turn_bank)),
        rated=rated,
        ratings=(creator_rating, None) if rated else None,
        ai_pace=ai_pace,
        tutorial=tutorial,
    )
    if rated and mode == "ai":
        raise RoomError("a room against the AI is not rated")
    if stand_in_level is not None and stand_in_level not in AI_LEVELS:
        raise RoomError(f"stand-in level must be one of {', '.join(AI_LEVELS)}")
    events: list[Event] = [{"type": "room", "status": "waiting", "seats": public_seats(room)}]
    if not room.seats[1].open:
        room, started = _start(room, now)
        events.extend(started)
    return room, events


def join(
    room: Room, player: Seat, now: float, rating: dict[str, Any] | None = None
) -> tuple[Room, list[Event], int]:
    """Seat a player in the open seat (or return the seat they already hold); in a rated
    room, with their ``rating`` as they sit down (a player without one may not)."""
    if player.player is None:
        raise RoomError("a joining player needs an id")
    existing = room.seat_of(player.player)
    if existing is not None:
        return room, [], existing
    if room.status != "waiting" or not room.seats[1].open:
        raise RoomFull("the room has no open seat")
    if room.rated:
        if rating is None:
            raise AccountRequired("a rated room is for account holders")
        first = room.ratings[0] if room.ratings is not None else None
        room = replace(room, ratings=(first, rating))
    room = replace(room, seats=(room.seats[0], player))
    events: list[Event] = [{"type": "room", "status": "joined", "seats": public_seats(room)}]
    room, started = _start(room, now)
    return room, [*events, *started], 1


def bind_ai_seat(room: Room, seat: int, player_id: str) -> tuple[Room, list[Event]]:
    """Bind an AI seat to the worker that took its request (a later worker may take it over)."""
    if room.seats[seat].ai is None:
        raise NotAPlayer(f"seat {seat} of room {room.id} is not an AI seat")
    seats = list(room.seats)
    seats[seat] = replace(seats[seat], player=player_id)
    return replace(room, seats=(seats[0], seats[1])), []


def act(
    room: Room,
    seat: int,
    action: Action,
    now: float,
    seed: bytes | None = None,
    by: str | None = None,
) -> tuple[Room, list[Event]]:
    """Apply a game action; ``seed`` deals the next hand if the action deals one (fresh
    entropy the caller drew for it; not kept); ``by``: who made the move for the seat's
    player (``MOVE_BY``: the turn clock, an AI standing in), marked in the history entry and
    the events of the move. Raises the engine's ``IllegalAction`` (the room is unchanged)."""
    if room.status != "playing" or room.game is None:
        raise RoomClosed(f"room {room.id} is {room.status}: no game in play")
    game, events = apply(room.game, seat, action, seed)
    if by is not None:
        game, events = _made_by(game, events, seat, by)
    log = room.hand_log + tuple(events)
    results_open = room.results_open
    if action.kind == "next_hand":
        log = tuple(events)
    if game.phase is Phase.HAND_OVER and action.kind != "next_hand":
        results_open = (room.seats[0].ai is None, room.seats[1].ai is None)
    else:  # whoever deals or plays on has looked at the result (a clock's move: enough)
        results_open = _closed(results_open, seat)
    status: Literal["waiting", "playing", "finished"] = (
        "finished" if game.phase is Phase.MATCH_OVER else "playing"
    )
    banks = _banks_after(room, seat, now)
    deadline = _deadline_of(room.turn_seconds, banks, game, now, results_open)
    new = _after_move(
        room,
        status=status,
        game=game,
        turn_deadline=deadline,
        hand_log=log,
        banks=banks,
        results_open=results_open,
    )
    return new, events


def _closed(results_open: tuple[bool, bool], seat: int) -> tuple[bool, bool]:
    """``results_open`` with the result of ``seat`` closed (the same pair if it was)."""
    if not results_open[seat]:
        return results_open
    return (False, results_open[1]) if seat == 0 else (results_open[0], False)


def close_result(room: Room, seat: int, hand: int, now: float) -> tuple[Room, list[Event]]:
    """The person of ``seat`` closed the result of hand ``hand`` (the last one played): a turn
    of theirs that waited for them starts now, with its full time (never later than it would
    have). Closing a result that is not open, or an older hand's, changes nothing."""
    _check_seat(seat)
    game = room.game
    if room.status != "playing" or game is None:
        raise RoomClosed(f"room {room.id} is {room.status}: no game in play")
    last = game.hand_number if game.phase is Phase.HAND_OVER else game.hand_number - 1
    if hand != last or not room.results_open[seat]:
        return room, []
    deadline = room.turn_deadline
    if deadline is not None and game.turn == seat:
        deadline = min(deadline, _deadline_of(room.turn_seconds, room.banks, game, now) or deadline)
    room = replace(room, results_open=_closed(room.results_open, seat), turn_deadline=deadline)
    return room, [{"type": "result_closed", "seat": seat, "hand": hand}]


#: The events of a seat's move (what ``Move.by`` marks in them too).
_MOVE_EVENTS = frozenset({"pass", "take_upcard", "draw", "discard", "knock", "gin"})


def _made_by(
    game: GameState, events: list[Event], seat: int, by: str
) -> tuple[GameState, list[Event]]:
    """The move just made for ``seat`` marked as made ``by`` the clock or a stand-in: its
    history entry (the last) and its events."""
    if by not in MOVE_BY:
        raise ValueError(f"a move is made by one of {sorted(MOVE_BY)}, got {by!r}")
    history = game.history
    if history and history[-1].seat == seat:
        game = replace(game, history=(*history[:-1], replace(history[-1], by=by)))
    marked = [
        {**event, "by": by}
        if event.get("type") in _MOVE_EVENTS and event.get("seat") == seat
        else event
        for event in events
    ]
    return game, marked


#: ``replace(room, ...)`` of a move, generated from the fields (a third of ``replace``'s cost).
_after_move = replacer(Room, "status", "game", "turn_deadline", "hand_log", "banks", "results_open")


def hand_record(
    room: Room, number: int | None = None, hand_log: Sequence[Event] | None = None
) -> dict[str, Any] | None:
    """The replay record (all cards shown) of hand ``number`` (default: the current hand) from
    its log (default: ``room.hand_log``), with its result; None while that hand is not over."""
    game = room.game
    if game is None:
        return None
    if number is None:
        if game.phase not in (Phase.HAND_OVER, Phase.MATCH_OVER):
            return None
        number = game.hand_number
    if not 0 < number <= len(game.results):
        return None
    events = list(room.hand_log if hand_log is None else hand_log)
    last = events[-1] if events else {}
    if last.get("type") == "match_over" and len(events) > 1:
        last = events[-2]
    return {
        "id": hand_id(room.id, number),
        "room": room.id,
        "hand": number,
        "players": shown_names([seat.name for seat in room.seats]),
        "seats": seat_names(room),
        "dealer": events[0].get("dealer", game.dealer) if events else game.dealer,
        "events": events,
        "result": last if last.get("type") == "hand_over" else game.results[number - 1].to_dict(),
    }


def hand_log_complete(room: Room) -> bool:
    """True when ``room.hand_log`` holds its whole current hand. A room read back from its
    stored form has none (the change stream holds it, ``hand_log_from_changes``) and the
    operations then log only what follows; a log that begins with the current hand's deal is
    whole."""
    game = room.game
    if game is None or not room.hand_log:
        return False
    first = room.hand_log[0]
    return first.get("type") == "deal" and first.get("hand") == game.hand_number


def hand_log_from_changes(
    changes: Iterable[Iterable[Event]], hand_number: int
) -> tuple[Event, ...] | None:
    """The hand log of hand ``hand_number`` (what ``Room.hand_log`` held at its end): from the
    events of the room's changes, oldest first, the game events from that hand's deal up to the
    next deal. None when the deal is not among them."""
    log: list[Event] = []
    started = False
    for events in changes:
        for event in events:
            kind = event.get("type")
            if kind in ROOM_EVENT_TYPES:
                continue
            if kind == "deal":
                if started:
                    return tuple(log)
                started = event.get("hand") == hand_number
            if started:
                log.append(event)
    return tuple(log) if started else None


def hand_id(room_id: str, hand_number: int) -> str:
    return f"{room_id}-{hand_number}"


#: What a change that finishes the match owes: its statistics and the room's expiry.
MATCH_RECORDS = "match"


def owed_records(before: Room, after: Room) -> list[str]:
    """The records a change from ``before`` to ``after`` owes: the number of the hand it ended
    (its replay record and statistics), and ``MATCH_RECORDS`` when it finished the match."""
    owed: list[str] = []
    game, previous = after.game, before.game
    if (
        game is not None
        and game.phase in (Phase.HAND_OVER, Phase.MATCH_OVER)
        and (previous is None or previous.phase not in (Phase.HAND_OVER, Phase.MATCH_OVER))
    ):
        owed.append(str(game.hand_number))
    if after.status == "finished" and before.status != "finished":
        owed.append(MATCH_RECORDS)
    return owed


def records_due(room: Room, what: str) -> bool:
    """Whether the room, as stored, shows the change that owed ``what`` (a noted change
    that was never committed owes nothing)."""
    if what == MATCH_RECORDS:
        return room.status == "finished"
    game = room.game
    if game is None or not what.isdigit():
        return False
    number = int(what)
    ended = game.phase in (Phase.HAND_OVER, Phase.MATCH_OVER)
    return number < game.hand_number or (number == game.hand_number and ended)


def leave(room: Room, seat: int, now: float) -> tuple[Room, list[Event]]:
    """A player leaves: a waiting room closes; a match in play is forfeited to the opponent."""
    _check_seat(seat)
    if room.status == "finished":
        return room, []
    if room.status == "waiting":
        room = replace(room, status="finished", turn_deadline=None)
        return room, [{"type": "room", "status": "closed", "seats": public_seats(room)}]
    room = replace(room, status="finished", forfeit=seat, turn_deadline=None)
    return room, [{"type": "forfeit", "seat": seat, "winner": 1 - seat}]


def request_rematch(room: Room, seat: int, next_room: str) -> tuple[Room, list[Event]]:
    """Ask for a rematch after the match; when both players asked (an AI seat always agrees),
    ``next_room`` is the id the new match gets."""
    _check_seat(seat)
    if room.status != "finished":
        raise RoomClosed("a rematch is offered only when the match is over")
    wants = list(room.rematch)
    wants[seat] = True
    for index, other in enumerate(room.seats):
        if other.ai is not None:
            wants[index] = True
    room = replace(room, rematch=(wants[0], wants[1]))
    if not all(wants):
        return room, [{"type": "rematch", "seat": seat, "room": None}]
    room = replace(room, next_room=room.next_room or next_room)
    return room, [{"type": "rematch", "seat": seat, "room": room.next_room}]


def rematch_room(old: Room, room_id: str, seed: bytes, now: float) -> tuple[Room, list[Event]]:
    """The new room of a rematch: the same players and rules, seats kept."""
    room = Room(
        id=room_id,
        mode=old.mode,
        seats=old.seats,
        status="waiting",
        rules=old.rules,
        turn_seconds=old.turn_seconds,
        seed=seed,
        created_at=now,
        stand_in_level=old.stand_in_level,
        public=old.public,
        watch_token=old.watch_token,
        turn_bank=old.turn_bank,
        banks=(float(old.turn_bank), float(old.turn_bank)),
        ai_pace=old.ai_pace,
    )
    room, events = _start(room, now)
    return room, [{"type": "room", "status": "rematch", "seats": public_seats(room)}, *events]


def expire_turn(room: Room, now: float) -> tuple[Room, list[Event]] | None:
    """When the turn clock ran out, play the waiting seat's default move: pass an upcard
    offer, draw from the stock, or discard the card that leaves the least deadwood (no knock).
    None when no clock is due."""
    game = room.game
    if room.turn_deadline is None or now < room.turn_deadline or game is None:
        return None
    seat = game.turn
    if seat is None or _paused_for(room, seat):
        return None
    return act(room, seat, default_action(game, seat), now, by="clock")


def _paused_for(room: Room, seat: int) -> bool:
    """The room waits for the person of ``seat``: a room against the AI whose person is away
    plays no move for them (no clock, no stand-in) until they come back."""
    current = room.seats[seat]
    return _ai_room(room) and current.ai is None and current.away_since is not None


def _ai_room(room: Room) -> bool:
    return any(seat.ai is not None for seat in room.seats)


def default_action(game: GameState, seat: int) -> Action:
    choices = legal_actions(game, seat)
    kinds = {action.kind for action in choices}
    for kind in ("pass", "draw_stock"):
        if kind in kinds:
            return Action(kind)
    discards = [action for action in choices if action.kind == "discard"]
    if discards:
        hand = to_mask(game.hands[seat])
        return min(
            discards,
            key=lambda a: (
                min_deadwood_mask(hand & ~to_mask([a.card or ""])),
                card_index(a.card or ""),
            ),
        )
    return choices[0]


def mark_away(room: Room, seat: int, now: float) -> tuple[Room, list[Event]]:
    """The seat's player lost their connection (nothing changes if already away)."""
    _check_seat(seat)
    if room.seats[seat].away_since is not None or room.status != "playing":
        return room, []
    room = _with_seat(room, seat, replace(room.seats[seat], away_since=now))
    return room, [{"type": "presence", "seat": seat, "away": True}]


def mark_back(room: Room, seat: int, now: float) -> tuple[Room, list[Event]]:
    """The seat's player is back: any stand-in hands the seat back to them. In a room against
    the AI, which waited for them, a turn of theirs starts afresh (its clock stood still)."""
    _check_seat(seat)
    current = room.seats[seat]
    if current.away_since is None and current.stand_in is None:
        return room, []
    paused = _paused_for(room, seat)
    back = replace(current, away_since=None, stand_in=None, agent=None, away_choice=False)
    room = _with_seat(room, seat, back)
    if paused and room.game is not None and room.game.turn == seat:
        room = replace(room, turn_deadline=_deadline(room, now))
    return room, [{"type": "presence", "seat": seat, "away": False}]


def start_stand_in(room: Room, seat: int, now: float, grace: float) -> tuple[Room, list[Event]]:
    """An AI stands in for a person away longer than ``grace`` seconds, if the room allows,
    in a room between people while the other person is here: an AI never plays for nobody
    (a room against the AI waits for its person instead)."""
    _check_seat(seat)
    current = room.seats[seat]
    level = room.stand_in_level
    away = current.away_since
    if (
        level is None
        or room.status != "playing"
        or not _opponent_here(room, seat)
        or current.ai is not None
        or current.stand_in is not None
        or away is None
        or now < away + grace
    ):
        return room, []
    room = _with_seat(room, seat, replace(current, stand_in=level))
    return room, [{"type": "stand_in", "seat": seat, "level": level}]


def open_away_choice(room: Room, seat: int, now: float, grace: float) -> tuple[Room, list[Event]]:
    """The person of ``seat`` has been away longer than ``grace`` seconds in a room between
    people: the other person may now claim the win (``claim_win``) or let an AI stand in
    (``call_stand_in``). The seat says so (``away_choice``) and a ``presence`` event tells."""
    _check_seat(seat)
    current = room.seats[seat]
    if current.away_choice or not _people_room(room) or room.status != "playing":
        return room, []
    if current.away_since is None or now < current.away_since + grace:
        return room, []
    room = _with_seat(room, seat, replace(current, away_choice=True))
    return room, [{"type": "presence", "seat": seat, "away": True, "choice": True}]


def claim_win(room: Room, seat: int, now: float, grace: float) -> tuple[Room, list[Event]]:
    """The person of ``seat`` claims the match of an opponent away longer than ``grace``: the
    opponent forfeits, as if they had left."""
    return leave(room, _away_opponent(room, seat, now, grace), now)


def call_stand_in(
    room: Room, seat: int, level: str, now: float, grace: float
) -> tuple[Room, list[Event]]:
    """The person of ``seat`` lets an AI of ``level`` play for an opponent away longer than
    ``grace``, until that opponent comes back (``mark_back``)."""
    if level not in AI_LEVELS:
        raise RoomError(f"stand-in level must be one of {', '.join(AI_LEVELS)}")
    away = _away_opponent(room, seat, now, grace)
    current = room.seats[away]
    if current.stand_in is not None:
        raise RoomClosed(f"an AI plays seat {away} of room {room.id} already")
    room = _with_seat(room, away, replace(current, stand_in=level))
    return room, [{"type": "stand_in", "seat": away, "level": level}]


def _away_opponent(room: Room, seat: int, now: float, grace: float) -> int:
    """The opponent's seat, when the person of ``seat`` may decide for it: the match is on
    and the opponent, a person, has been away longer than ``grace``."""
    _check_seat(seat)
    if room.status != "playing":
        raise RoomClosed(f"room {room.id} is {room.status}: no match in play")
    opponent = 1 - seat
    away = room.seats[opponent].away_since
    if not _people_room(room) or away is None:
        raise OpponentPresent(f"the player of seat {opponent} is here")
    if now < away + grace:
        raise NotAwayLongEnough(
            f"the player of seat {opponent} has not been away for {grace:g} s yet"
        )
    return opponent


def ai_level_wanted(room: Room, seat: int) -> str | None:
    """The level of the AI that should play ``seat`` now: an AI seat's, or a stand-in's in a
    room between people. None for a stand-in in a room against the AI (one started before
    such rooms waited for their person: nobody takes it up again)."""
    current = room.seats[seat]
    if current.ai is not None:
        return current.ai
    return current.stand_in if _people_room(room) else None


def ai_seat_paused(room: Room, seat: int) -> bool:
    """An AI seat of a room against the AI whose person is away: the room waits for them, and
    its AI seat needs no worker meanwhile (it is asked for again when they come back)."""
    current, person = room.seats[seat], room.seats[1 - seat]
    return (
        current.ai is not None
        and person.ai is None
        and person.player is not None
        and person.away_since is not None
    )


def _opponent_here(room: Room, seat: int) -> bool:
    """The other seat of a room between people is played by its person, who is here."""
    other = room.seats[1 - seat]
    return _people_room(room) and other.away_since is None and other.stand_in is None


def _people_room(room: Room) -> bool:
    return all(seat.ai is None and seat.player is not None for seat in room.seats)


def bind_stand_in(room: Room, seat: int, player_id: str) -> tuple[Room, list[Event]]:
    """Bind a waiting stand-in to the worker that took its request."""
    _check_seat(seat)
    current = room.seats[seat]
    if ai_level_wanted(room, seat) is None or current.stand_in is None:
        raise NotAPlayer(f"nobody needs a stand-in in seat {seat} of room {room.id}")
    return _with_seat(room, seat, replace(current, agent=player_id)), []


def bind_offered_seat(room: Room, seat: int, player_id: str) -> tuple[Room, list[Event]]:
    """Bind the seat an ``ai_seat`` offer named to the worker that took it: an AI seat, or the
    seat of a person whose stand-in is wanted (``NotAPlayer`` when it needs no AI)."""
    _check_seat(seat)
    if room.seats[seat].ai is not None:
        return bind_ai_seat(room, seat, player_id)
    return bind_stand_in(room, seat, player_id)


def _with_seat(room: Room, index: int, seat: Seat) -> Room:
    seats = list(room.seats)
    seats[index] = seat
    return replace(room, seats=(seats[0], seats[1]))


def _check_seat(seat: int) -> None:
    if seat not in (0, 1):
        raise RoomError(f"a seat is 0 or 1, got {seat!r}")


def _start(room: Room, now: float) -> tuple[Room, list[Event]]:
    game = new_match(room.seed, room.rules)
    deal = deal_event(game)
    room = replace(room, status="playing", game=game, hand_log=(deal,))
    room = replace(room, turn_deadline=_deadline(room, now))
    return room, [{"type": "room", "status": "playing", "seats": public_seats(room)}, deal]


def _deadline(room: Room, now: float) -> float | None:
    return _deadline_of(room.turn_seconds, room.banks, room.game, now, room.results_open)


def _deadline_of(
    turn_seconds: int,
    banks: tuple[float, float],
    game: GameState | None,
    now: float,
    results_open: tuple[bool, bool] = (False, False),
) -> float | None:
    """When the turn that begins at ``now`` runs out: its seconds plus the seat's bank left,
    and ``RESULT_READING_SECONDS`` more while the seat's person still looks at the last
    hand's result."""
    if not turn_seconds or game is None or game.turn is None:
        return None
    reading = RESULT_READING_SECONDS if results_open[game.turn] else 0
    return now + reading + turn_seconds + banks[game.turn]


def _banks_after(room: Room, seat: int, now: float) -> tuple[float, float]:
    """The banks once ``seat`` has played at ``now``: the time its turn took past the turn's
    own seconds comes off its bank."""
    deadline, game = room.turn_deadline, room.game
    if deadline is None or game is None or game.turn != seat:
        return room.banks
    left = room.banks[seat]
    over = now - (deadline - left)
    if over <= 0:
        return room.banks
    banks = [room.banks[0], room.banks[1]]
    banks[seat] = max(0.0, left - over)
    return (banks[0], banks[1])


def public_seats(room: Room) -> list[dict[str, Any]]:
    """The seats as everybody sees them (views, room events)."""
    shown = shown_names([seat.name for seat in room.seats])
    return [
        {
            "name": shown[index],
            "name_id": _name_id(seat),
            "ai": seat.ai,
            "open": seat.open,
            "away": seat.away_since is not None,
            # since when (server time): the other player's countdown to the away choice
            "away_since": seat.away_since,
            "stand_in": seat.stand_in,
            "away_choice": seat.away_choice,
        }
        for index, seat in enumerate(room.seats)
    ]


def seat_names(room: Room) -> list[dict[str, Any]]:
    """What each seat's name is made of, for lists and records: the name as shown, the id of
    a default name (``name_id``) and the level of an AI seat (``ai``)."""
    shown = shown_names([seat.name for seat in room.seats])
    return [
        {"name": shown[index], "name_id": _name_id(seat), "ai": seat.ai}
        for index, seat in enumerate(room.seats)
    ]


def _name_id(seat: Seat) -> str | None:
    return None if seat.ai is not None else name_id(seat.name, seat.player)


#: The room view's entries after the recipient's ``seat`` and before ``watchers`` and the
#: ``game``: these first, in this order (the views' bytes as they were before the shape was
#: declared once: ``bench.engine_moves``'s digest), then every other field declared ``shown``.
_VIEW_ORDER = (
    "turn_seconds",
    "turn_deadline",
    "turn_bank",
    "banks",
    "forfeit",
    "winner",
    "rematch",
    "next_room",
    "stand_in_level",
)
VIEW_TAIL = (*_VIEW_ORDER, *(name for name in shown_fields(Room) if name not in _VIEW_ORDER))
if set(_VIEW_ORDER) - {"winner"} - set(shown_fields(Room)):
    raise AssertionError("every field of the view's order is declared shown")
_write_view_tail = plain_writer(Room, only=VIEW_TAIL)
#: What a view's tail is made of (``VIEW_TAIL``'s values), for the encoders' caches.
view_tail_sources = attrgetter(*VIEW_TAIL)


def view_head(room: Room) -> dict[str, Any]:
    """The room view's entries before the recipient's ``seat``."""
    return {"room": room.id, "mode": room.mode, "status": room.status, "seats": public_seats(room)}


def view_tail(room: Room, watchers: int, ai_queue: int | None = None) -> dict[str, Any]:
    """The room view's entries after the recipient's ``seat`` and before the ``game``."""
    tail = _write_view_tail(room)
    tail["watchers"] = watchers
    tail["ai_queue"] = ai_queue
    return tail


def room_view(
    room: Room,
    seat: int | None,
    connected: tuple[bool, bool] | None = None,
    watchers: int = 0,
    ai_queue: int | None = None,
) -> dict[str, Any]:
    """The room as one seat (or a spectator, ``None``) sees it, with that recipient's game view;
    ``watchers``: how many follow it as spectators, on every server process; ``ai_queue``:
    the place in the AI seat queue of the room's seat that waits for an AI player, if any.
    The frames (``server.frames``) are these views encoded, from the same parts."""
    view: dict[str, Any] = {
        **view_head(room),
        "seat": seat,
        **view_tail(room, watchers, ai_queue),
    }
    view["game"] = game_view(room.game, seat) if room.game is not None else None
    if connected is not None:
        view["connected"] = list(connected)
    if seat is not None and room.invite is not None:
        view["invite"] = room.invite
    if seat is not None and room.watch_token is not None:
        view["watch_token"] = room.watch_token
    return view


def may_watch(room: Room, player_id: str | None, token: str | None) -> bool:
    """Whether a requester may follow the room's public view: anyone if the room is public,
    its players, and whoever brings its watch token."""
    if room.public or (player_id is not None and room.seat_of(player_id) is not None):
        return True
    expected = room.watch_token
    return token is not None and expected is not None and hmac.compare_digest(token, expected)


def may_take_seat_by_id(room: Room, player_id: str) -> bool:
    """Whether ``join_room {room}`` (by room id, no invite) may seat this player: in a public
    room, or to take back their own seat. A private room's free seat needs its invite."""
    return room.public or room.seat_of(player_id) is not None
