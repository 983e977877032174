"""The room model (server/room.py): seats, the match it plays, its log, clock, rematch and views.

Hand-over and match-over states are reached by real play: seeded random legal actions.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from protocol import codec
from protocol.cards import DECK, RANKS, SUITS, parse_cards
from protocol.melds import min_deadwood
from protocol.scoring import MatchRules
from server.blobs import RoomBlobs, decode_room
from server.engine import (
    Action,
    CannotDiscardTakenCard,
    GameState,
    IllegalAction,
    KnockTooHigh,
    MalformedAction,
    MatchOver,
    Move,
    NotYourTurn,
    Phase,
    WrongPhase,
    apply,
    deal_event,
    legal_actions,
    new_match,
)
from server.engine.events import Event
from server.room import (
    AI_LEVELS,
    MATCH_RECORDS,
    RESULT_READING_SECONDS,
    NotAPlayer,
    NotAwayLongEnough,
    OpponentPresent,
    Room,
    RoomClosed,
    RoomError,
    RoomFull,
    Seat,
    act,
    ai_level_wanted,
    ai_seat_paused,
    bind_ai_seat,
    bind_offered_seat,
    call_stand_in,
    claim_win,
    create_room,
    default_action,
    expire_turn,
    hand_log_complete,
    hand_log_from_changes,
    hand_record,
    join,
    leave,
    mark_away,
    mark_back,
    open_away_choice,
    owed_records,
    records_due,
    rematch_room,
    request_rematch,
    room_view,
    start_stand_in,
)
from tests.server.engine.helpers import position
from tests.server.engine.playing import acting_seat, choose
from tests.support.seeds import next_hand_seed, seed_of

T0 = 1_700_000_000.0
ALICE = Seat(player="p-alice", name="Alice")
BOB = Seat(player="p-bob", name="Bob")
CAROL = Seat(player="p-carol", name="Carol")
INVITE = "inv-7Qx2"
MAX_STEPS = 400  # far above the longest possible hand


# --- building rooms ------------------------------------------------------------------------------


def ai_room(seed: int = 7, level: str = "normal", turn_seconds: int = 0, **kw: Any) -> Room:
    room, _ = create_room(
        room_id="RA",
        mode="ai",
        creator=ALICE,
        seed=seed_of(seed),
        now=T0,
        level=level,
        turn_seconds=turn_seconds,
        **kw,
    )
    return room


def private_room(seed: int = 11, turn_seconds: int = 0, **kw: Any) -> Room:
    room, _ = create_room(
        room_id="RP",
        mode="private",
        creator=ALICE,
        seed=seed_of(seed),
        now=T0,
        invite=INVITE,
        turn_seconds=turn_seconds,
        **kw,
    )
    return room


def quick_room(seed: int = 13, turn_seconds: int = 0, rules: MatchRules | None = None) -> Room:
    room, _ = create_room(
        room_id="RQ",
        mode="quick",
        creator=ALICE,
        opponent=BOB,
        seed=seed_of(seed),
        now=T0,
        turn_seconds=turn_seconds,
        rules=rules,
    )
    return room


def banked_room(seed: int = 50, turn_seconds: int = 30, bank: int = 120) -> Room:
    room, _ = create_room(
        room_id="RB",
        mode="quick",
        creator=ALICE,
        opponent=BOB,
        seed=seed_of(seed),
        now=T0,
        turn_seconds=turn_seconds,
        turn_bank=bank,
    )
    return room


def game_of(room: Room) -> GameState:
    assert room.game is not None
    return room.game


# --- real play -----------------------------------------------------------------------------------


def step(room: Room, rnd: random.Random, now: float = T0) -> tuple[Room, list[Event]]:
    """One random legal action (biased to end hands) by whoever may act."""
    game = game_of(room)
    seat = acting_seat(game, rnd)
    action = choose(game, legal_actions(game, seat), rnd)
    return act(room, seat, action, now)


def play_hand(room: Room, rnd: random.Random) -> tuple[Room, list[Event]]:
    """Play until the current hand is over; returns the room and every event on the way."""
    events: list[Event] = []
    for _ in range(MAX_STEPS):
        if game_of(room).phase in (Phase.HAND_OVER, Phase.MATCH_OVER):
            return room, events
        room, new = step(room, rnd)
        events.extend(new)
    raise AssertionError("the hand did not end")


def play_match(room: Room, rnd: random.Random) -> Room:
    for _ in range(200):
        room, _ = play_hand(room, rnd)
        if room.status == "finished":
            return room
        room, _ = act(
            room, rnd.randrange(2), Action("next_hand"), T0, next_hand_seed(game_of(room))
        )
    raise AssertionError("the match did not end")


def mid_hand(room: Room, rnd: random.Random, steps: int) -> Room:
    """Up to ``steps`` random actions, stopping before the hand ends."""
    for _ in range(steps):
        game = game_of(room)
        seat = acting_seat(game, rnd)
        choices = [a for a in legal_actions(game, seat) if a.kind not in ("knock", "gin")]
        candidate, _ = act(room, seat, choose(game, choices, rnd), T0)
        if game_of(candidate).phase not in (Phase.HAND_OVER, Phase.MATCH_OVER):
            room = candidate
    return room


def states_of_play(seed: int, hands: int = 3) -> Iterator[Room]:
    """Every room state of a few hands of real play, the hand-over states included."""
    rnd = random.Random(seed)
    room = quick_room(seed=seed)
    yield room
    for _ in range(hands):
        for _ in range(MAX_STEPS):
            if game_of(room).phase in (Phase.HAND_OVER, Phase.MATCH_OVER):
                break
            room, _ = step(room, rnd)
            yield room
        if room.status == "finished":
            return
        room, _ = act(room, 0, Action("next_hand"), T0, next_hand_seed(game_of(room)))
        yield room


def replay(events: list[Event]) -> tuple[list[str], list[str]]:
    """Replay a hand from its deal event and moves; returns both hands at its end."""
    deal = events[0]
    assert deal["type"] == "deal"
    hands = [set(deal["hands"][0]), set(deal["hands"][1])]
    stock = list(deal["stock"])
    pile = [deal["upcard"]]
    assert sorted([*hands[0], *hands[1], *stock, *pile]) == sorted(DECK)
    for event in events[1:]:
        kind = event["type"]
        if kind == "pass":
            continue
        if kind == "take_upcard":
            assert pile.pop() == event["card"]
            hands[event["seat"]].add(event["card"])
        elif kind == "draw":
            source = stock if event["source"] == "stock" else pile
            assert source.pop() == event["card"]
            hands[event["seat"]].add(event["card"])
        elif kind in ("discard", "knock", "gin"):
            hands[event["seat"]].remove(event["card"])
            pile.append(event["card"])
        elif kind == "hand_over":
            final = (sorted(hands[0]), sorted(hands[1]))
            assert final == (sorted(event["hands"][0]), sorted(event["hands"][1]))
            return final
        else:
            raise AssertionError(f"unexpected event in a hand: {event}")
    raise AssertionError("no hand_over event")


def is_card(value: object) -> bool:
    return isinstance(value, str) and len(value) == 2 and value[0] in RANKS and value[1] in SUITS


def cards_in(value: object) -> set[str]:
    """Every card string anywhere in a nested structure (keys included)."""
    found: set[str] = set()
    if is_card(value):
        assert isinstance(value, str)
        found.add(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            found |= cards_in(key) | cards_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            found |= cards_in(item)
    return found


def assert_plain(value: object) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            assert isinstance(key, str)
            assert_plain(item)
    elif isinstance(value, list):
        for item in value:
            assert_plain(item)
    else:
        assert value is None or isinstance(value, str | int | float | bool), type(value)


# --- creating rooms ------------------------------------------------------------------------------


@pytest.mark.parametrize("level", AI_LEVELS)
def test_ai_room_seats_the_ai_in_seat_1_and_deals_at_once(level: str) -> None:
    rules = MatchRules(target=50, box_bonus=True)
    room, events = create_room(
        room_id="R1", mode="ai", creator=ALICE, seed=seed_of(99), now=T0, level=level, rules=rules
    )
    assert room.status == "playing"
    assert room.mode == "ai"
    assert room.seats[0] == ALICE
    assert room.seats[1].ai == level
    assert room.seats[1].player is None
    assert not room.seats[1].open
    assert room.game == new_match(seed_of(99), rules)
    assert room.hand_log == (deal_event(room.game),)
    assert [(e["type"], e.get("status")) for e in events] == [
        ("room", "waiting"),
        ("room", "playing"),
        ("deal", None),
    ]
    assert events[-1] == room.hand_log[0]
    assert events[1]["seats"][1]["ai"] == level
    assert room.winner is None and room.forfeit is None


@pytest.mark.parametrize("level", [None, "", "expert", "EASY"])
def test_ai_room_refuses_a_bad_level(level: str | None) -> None:
    with pytest.raises(RoomError):
        create_room(room_id="R", mode="ai", creator=ALICE, seed=seed_of(1), now=T0, level=level)


@pytest.mark.parametrize("mode", ["private", "quick"])
def test_a_level_outside_an_ai_room_is_refused(mode: str) -> None:
    with pytest.raises(RoomError):
        create_room(
            room_id="R",
            mode=mode,
            creator=ALICE,
            opponent=BOB,
            seed=seed_of(1),
            now=T0,
            level="easy",
        )


@pytest.mark.parametrize("mode", ["", "public", "AI", "solo"])
def test_an_unknown_mode_is_refused(mode: str) -> None:
    with pytest.raises(RoomError) as error:
        create_room(room_id="R", mode=mode, creator=ALICE, seed=seed_of(1), now=T0)
    assert error.value.code == "invalid_argument"


def test_private_room_waits_for_a_second_player() -> None:
    room, events = create_room(
        room_id="RP",
        mode="private",
        creator=ALICE,
        seed=seed_of(5),
        now=T0,
        invite=INVITE,
        turn_seconds=30,
    )
    assert room.status == "waiting"
    assert room.seats == (ALICE, Seat())
    assert room.seats[1].open
    assert room.game is None
    assert room.hand_log == ()
    assert room.turn_deadline is None
    assert room.invite == INVITE
    assert [(e["type"], e["status"]) for e in events] == [("room", "waiting")]
    assert [s["open"] for s in events[0]["seats"]] == [False, True]
    assert hand_record(room) is None


def test_join_seats_the_player_in_seat_1_and_deals() -> None:
    room = private_room(seed=5)
    joined, events, seat = join(room, BOB, T0 + 10)
    assert seat == 1
    assert joined.seats == (ALICE, BOB)
    assert joined.status == "playing"
    assert joined.game == new_match(seed_of(5), MatchRules())
    assert joined.hand_log == (deal_event(joined.game),)
    assert [(e["type"], e.get("status")) for e in events] == [
        ("room", "joined"),
        ("room", "playing"),
        ("deal", None),
    ]
    assert events[-1] == joined.hand_log[0]
    assert room.status == "waiting" and room.game is None  # the old value is untouched


def test_joining_again_returns_the_same_seat_and_changes_nothing() -> None:
    room, _, _ = join(private_room(), BOB, T0)
    again, events, seat = join(room, Seat(player=BOB.player, name="Bob again"), T0 + 5)
    assert (again, events, seat) == (room, [], 1)
    creator, events, seat = join(room, ALICE, T0 + 5)
    assert (creator, events, seat) == (room, [], 0)
    # the creator "joining" their own waiting room keeps seat 0 and does not start the game
    waiting = private_room()
    assert join(waiting, ALICE, T0) == (waiting, [], 0)


def test_a_third_player_gets_room_full() -> None:
    room, _, _ = join(private_room(), BOB, T0)
    with pytest.raises(RoomFull) as error:
        join(room, CAROL, T0)
    assert error.value.code == "room_full"
    assert isinstance(error.value, RoomError)


@pytest.mark.parametrize("make", [ai_room, quick_room])
def test_no_one_joins_a_room_created_full(make: Any) -> None:
    with pytest.raises(RoomFull):
        join(make(), CAROL, T0)


def test_join_needs_a_player_id() -> None:
    with pytest.raises(RoomError):
        join(private_room(), Seat(name="anonymous"), T0)


def test_a_closed_waiting_room_cannot_be_joined() -> None:
    closed, _ = leave(private_room(), 0, T0)
    with pytest.raises(RoomError):
        join(closed, BOB, T0)


def test_quick_room_is_created_with_both_seats_and_deals() -> None:
    rules = MatchRules(target=150, game_bonus=True)
    room, events = create_room(
        room_id="RQ",
        mode="quick",
        creator=ALICE,
        opponent=BOB,
        seed=seed_of(21),
        now=T0,
        rules=rules,
        turn_seconds=20,
    )
    assert room.status == "playing"
    assert room.seats == (ALICE, BOB)
    assert room.game == new_match(seed_of(21), rules)
    assert room.rules == rules and room.turn_seconds == 20
    assert room.seat_of("p-alice") == 0 and room.seat_of("p-bob") == 1
    assert room.seat_of("p-carol") is None
    assert [e["type"] for e in events] == ["room", "room", "deal"]


def test_bind_offered_seat_binds_exactly_the_seat_the_offer_named() -> None:
    """An AI room whose person is away: seat 1, the AI seat, is bound; seat 0 wants no AI (the
    room waits for its person). A room between people: the away seat's stand-in is bound."""
    room = ai_room(level="easy", stand_in_level="normal")
    room, _ = mark_away(room, 0, T0)
    room, _ = start_stand_in(room, 0, T0 + 10, grace=5)
    ai_bound, events = bind_offered_seat(room, 1, "worker-1")
    assert events == []
    assert ai_bound.seats[1].player == "worker-1" and ai_bound.seats[0] == room.seats[0]
    with pytest.raises(NotAPlayer):
        bind_offered_seat(ai_bound, 0, "worker-2")
    people = replace(quick_room(seed=52), stand_in_level="normal")
    people, _ = mark_away(people, 0, T0)
    people, _ = start_stand_in(people, 0, T0 + 10, grace=5)
    stand_in_bound, _ = bind_offered_seat(people, 0, "worker-2")
    assert stand_in_bound.seats[0].agent == "worker-2"
    assert stand_in_bound.seats[0].player == ALICE.player  # still the person's seat
    assert stand_in_bound.seats[1] == people.seats[1]
    with pytest.raises(NotAPlayer):  # the person is back: no AI wanted there any more
        bind_offered_seat(mark_back(stand_in_bound, 0, T0 + 20)[0], 0, "worker-3")


def test_no_ai_stands_in_for_the_person_of_a_room_against_the_ai() -> None:
    """Even a room that asked for a stand-in (as rooms against the AI did by default) waits
    for its person: no AI plays for nobody."""
    room, _ = mark_away(ai_room(stand_in_level="normal"), 0, T0)
    assert start_stand_in(room, 0, T0 + 1000, grace=5) == (room, [])


def test_a_stand_in_of_a_room_against_the_ai_from_before_is_not_taken_up_again() -> None:
    """A room against the AI stored with a stand-in (started before such rooms waited): no AI
    is wanted for the person's seat, so no worker binds it or is asked for it again."""
    room, _ = mark_away(ai_room(level="easy", stand_in_level="normal"), 0, T0)
    room = replace(room, seats=(replace(room.seats[0], stand_in="normal"), room.seats[1]))
    assert ai_level_wanted(room, 0) is None and ai_level_wanted(room, 1) == "easy"
    with pytest.raises(NotAPlayer):
        bind_offered_seat(room, 0, "worker-1")
    people = replace(quick_room(seed=52), stand_in_level="normal")
    stood, _ = start_stand_in(mark_away(people, 0, T0)[0], 0, T0 + 10, grace=5)
    assert ai_level_wanted(stood, 0) == "normal" and ai_level_wanted(stood, 1) is None


def test_a_stand_in_starts_only_while_the_other_person_is_here() -> None:
    room = replace(quick_room(seed=52), stand_in_level="normal")
    both_away, _ = mark_away(mark_away(room, 0, T0)[0], 1, T0)
    assert start_stand_in(both_away, 0, T0 + 10, grace=5) == (both_away, [])
    one_away, _ = mark_away(room, 0, T0)
    stood, events = start_stand_in(one_away, 0, T0 + 10, grace=5)
    assert events == [{"type": "stand_in", "seat": 0, "level": "normal"}]
    assert start_stand_in(mark_away(stood, 1, T0 + 11)[0], 1, T0 + 20, grace=5)[1] == []


def test_the_clock_of_an_away_person_against_the_ai_stands_still_until_they_are_back() -> None:
    room = ai_room(turn_seconds=30)
    assert room.game is not None and room.turn_deadline is not None
    room = replace(room, game=replace(room.game, turn=0))
    away, _ = mark_away(room, 0, T0 + 1)
    assert expire_turn(away, T0 + 10_000) is None, "the room plays for nobody"
    back, _ = mark_back(away, 0, T0 + 10_000)
    assert back.turn_deadline == T0 + 10_000 + 30 + back.banks[0]
    assert expire_turn(back, T0 + 10_001) is None
    assert expire_turn(back, back.turn_deadline) is not None


def test_bind_ai_seat() -> None:
    room = ai_room(level="hard")
    bound, events = bind_ai_seat(room, 1, "worker-1")
    assert events == []
    assert bound.seats[1] == Seat(player="worker-1", name=room.seats[1].name, ai="hard")
    assert bound.seat_of("worker-1") == 1
    assert bound.game == room.game and bound.hand_log == room.hand_log
    rebound, _ = bind_ai_seat(bound, 1, "worker-2")
    assert rebound.seats[1].player == "worker-2" and rebound.seat_of("worker-1") is None
    with pytest.raises(NotAPlayer) as error:
        bind_ai_seat(room, 0, "worker-1")
    assert error.value.code == "not_a_player"


# --- acting --------------------------------------------------------------------------------------


def test_act_applies_the_engine_action() -> None:
    room = quick_room(seed=3)
    game = game_of(room)
    seat = game.turn
    assert seat is not None
    expected_game, expected_events = apply(game, seat, Action("pass"))
    after, events = act(room, seat, Action("pass"), T0 + 1)
    assert after.game == expected_game
    assert events == expected_events
    assert after.hand_log == (*room.hand_log, *events)
    assert after.status == "playing"
    assert room.game == game  # the old room is untouched


def test_hand_log_holds_every_event_of_the_hand() -> None:
    rnd = random.Random(1)
    room = quick_room(seed=1)
    deal = room.hand_log[0]
    seen: list[Event] = [deal]
    while game_of(room).phase not in (Phase.HAND_OVER, Phase.MATCH_OVER):
        room, events = step(room, rnd)
        seen.extend(events)
        assert list(room.hand_log) == seen
    assert room.hand_log[0] == deal
    assert room.hand_log[-1]["type"] in ("hand_over", "match_over")


@pytest.mark.parametrize("seed", [2, 3, 4])
def test_next_hand_resets_the_log_to_the_new_deal(seed: int) -> None:
    rnd = random.Random(seed)
    room = quick_room(seed=seed)
    room, _ = play_hand(room, rnd)
    assert room.status == "playing"
    old_log = room.hand_log
    room, events = act(room, 1, Action("next_hand"), T0, next_hand_seed(game_of(room)))
    game = game_of(room)
    assert game.hand_number == 2
    assert len(room.hand_log) == 1
    first = room.hand_log[0]
    assert first["type"] == "deal"
    assert first == deal_event(game)
    assert first["hand"] == 2
    assert first["hands"] == [list(game.hands[0]), list(game.hands[1])]
    assert first != old_log[0]
    assert events == [first]
    # the new hand's log then grows from that deal
    room, more = step(room, rnd)
    assert list(room.hand_log) == [first, *more]


def test_the_match_ends_and_the_room_finishes() -> None:
    rnd = random.Random(8)
    room = play_match(quick_room(seed=8, turn_seconds=30), rnd)
    game = game_of(room)
    assert game.phase is Phase.MATCH_OVER
    assert room.status == "finished"
    assert room.winner == game.winner is not None
    assert room.forfeit is None
    assert room.turn_deadline is None
    assert [e["type"] for e in room.hand_log[-2:]] == ["hand_over", "match_over"]
    assert room.hand_log[0]["type"] == "deal"
    assert room.hand_log[0]["hand"] == game.hand_number
    with pytest.raises(RoomClosed):
        act(room, 0, Action("next_hand"), T0, next_hand_seed(game_of(room)))
    assert expire_turn(room, T0 + 10_000) is None


def test_a_short_match_ends_on_its_target() -> None:
    rnd = random.Random(4)
    room = play_match(quick_room(seed=4, rules=MatchRules(target=10)), rnd)
    assert room.status == "finished"
    assert max(game_of(room).scores) >= 10


def test_act_on_a_waiting_room_is_refused() -> None:
    with pytest.raises(RoomClosed) as error:
        act(private_room(), 0, Action("pass"), T0)
    assert error.value.code == "illegal_action"


def test_act_on_a_finished_room_is_refused() -> None:
    room = quick_room()
    game = game_of(room)
    assert game.turn is not None
    left, _ = leave(room, 1, T0)
    with pytest.raises(RoomClosed):
        act(left, game.turn, Action("pass"), T0)
    closed, _ = leave(private_room(), 0, T0)
    with pytest.raises(RoomClosed):
        act(closed, 0, Action("pass"), T0)


def illegal_cases() -> list[tuple[str, Room, int, Action, type[IllegalAction]]]:
    room = quick_room(seed=17)
    game = game_of(room)
    assert game.turn is not None
    turn = game.turn
    taken, _ = act(room, turn, Action("take_upcard"), T0)
    upcard = game.discard_pile[-1]
    high = quick_room(seed=17)
    high = replace(
        high,
        game=position(
            "AC 2C 3C KD QD JH 9S 8H 7D 5S 4H",
            "2D 3D 4D 5D 6D 7H 8S 9D TD JD",
            phase=Phase.DISCARD,
            turn=0,
        ),
    )
    return [
        ("not your turn", room, 1 - turn, Action("pass"), NotYourTurn),
        ("wrong phase", room, turn, Action("draw_discard"), WrongPhase),
        ("malformed", room, turn, Action("discard", "XX"), MalformedAction),
        ("taken card", taken, turn, Action("discard", upcard), CannotDiscardTakenCard),
        ("knock too high", high, 0, Action("knock", "4H"), KnockTooHigh),
    ]


@pytest.mark.parametrize("case", illegal_cases(), ids=lambda case: case[0])
def test_an_illegal_action_propagates_and_the_room_is_unchanged(
    case: tuple[str, Room, int, Action, type[IllegalAction]],
) -> None:
    _, room, seat, action, error = case
    before = copy.deepcopy(room.to_dict())
    with pytest.raises(error):
        act(room, seat, action, T0 + 1)
    assert room.to_dict() == before
    assert Room.from_dict(before) == room


def test_match_over_in_the_engine_is_reported_by_the_room_as_closed() -> None:
    # the room refuses before the engine's MatchOver could be raised
    room = play_match(quick_room(seed=6), random.Random(6))
    with pytest.raises(RoomClosed):
        act(room, 0, Action("next_hand"), T0, next_hand_seed(game_of(room)))
    with pytest.raises(MatchOver):
        apply(game_of(room), 0, Action("next_hand"))


# --- hand records --------------------------------------------------------------------------------


def test_no_hand_record_mid_hand() -> None:
    room = quick_room(seed=9)
    assert hand_record(room) is None
    room = mid_hand(room, random.Random(9), 12)
    assert game_of(room).phase not in (Phase.HAND_OVER, Phase.MATCH_OVER)
    assert hand_record(room) is None


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_hand_record_replays_each_hand(seed: int) -> None:
    rnd = random.Random(seed)
    room = quick_room(seed=seed)
    for hand in (1, 2, 3):
        room, _ = play_hand(room, rnd)
        game = game_of(room)
        record = hand_record(room)
        assert record is not None
        assert record["id"] == f"RQ-{hand}"
        assert record["room"] == "RQ"
        assert record["hand"] == hand == game.hand_number
        assert record["players"] == ["Alice", "Bob"]
        assert record["dealer"] == game.dealer
        events = record["events"]
        assert events == list(room.hand_log)
        assert events[0]["type"] == "deal" and events[0]["hand"] == hand
        final = replay(events)
        assert final == (sorted(game.hands[0]), sorted(game.hands[1]))
        if room.status == "finished":
            assert events[-1]["type"] == "match_over"
            return
        room, _ = act(room, 0, Action("next_hand"), T0, next_hand_seed(game_of(room)))
        assert hand_record(room) is None


def test_hand_record_of_the_last_hand_of_a_match() -> None:
    room = play_match(ai_room(seed=12), random.Random(12))
    record = hand_record(room)
    assert record is not None
    game = game_of(room)
    assert record["id"] == f"RA-{game.hand_number}"
    assert record["players"] == ["Alice", "AI (normal)"]
    assert replay(record["events"]) == (sorted(game.hands[0]), sorted(game.hands[1]))
    assert record["events"][-1]["type"] == "match_over"


# --- leaving -------------------------------------------------------------------------------------


def test_leaving_a_waiting_room_closes_it() -> None:
    room = private_room(turn_seconds=30)
    closed, events = leave(room, 0, T0 + 3)
    assert closed.status == "finished"
    assert closed.forfeit is None
    assert closed.winner is None
    assert closed.turn_deadline is None
    assert [(e["type"], e["status"]) for e in events] == [("room", "closed")]


@pytest.mark.parametrize("seat", [0, 1])
def test_leaving_a_match_in_play_is_a_forfeit(seat: int) -> None:
    room = mid_hand(quick_room(seed=14, turn_seconds=30), random.Random(14), 9)
    assert room.turn_deadline is not None
    left, events = leave(room, seat, T0 + 3)
    assert left.status == "finished"
    assert left.forfeit == seat
    assert left.winner == 1 - seat
    assert left.turn_deadline is None
    assert events == [{"type": "forfeit", "seat": seat, "winner": 1 - seat}]
    assert left.game == room.game
    assert expire_turn(left, T0 + 10_000) is None
    assert room_view(left, None)["winner"] == 1 - seat


def test_leaving_between_hands_is_a_forfeit() -> None:
    room, _ = play_hand(ai_room(seed=15), random.Random(15))
    assert room.status == "playing"
    left, _ = leave(room, 0, T0)
    assert (left.status, left.forfeit, left.winner) == ("finished", 0, 1)


def test_leaving_a_finished_room_changes_nothing() -> None:
    over = play_match(quick_room(seed=16), random.Random(16))
    winner = over.winner
    assert winner is not None
    loser = 1 - winner
    assert leave(over, loser, T0) == (over, [])
    assert over.winner == winner
    forfeited, _ = leave(quick_room(), 0, T0)
    assert leave(forfeited, 1, T0) == (forfeited, [])
    assert forfeited.winner == 1
    closed, _ = leave(private_room(), 0, T0)
    assert leave(closed, 0, T0) == (closed, [])


# --- rematch -------------------------------------------------------------------------------------


def test_a_rematch_needs_a_finished_match() -> None:
    with pytest.raises(RoomClosed):
        request_rematch(quick_room(), 0, "R2")
    with pytest.raises(RoomClosed):
        request_rematch(private_room(), 0, "R2")


def test_both_players_must_ask_for_a_rematch() -> None:
    over = play_match(quick_room(seed=18), random.Random(18))
    asked, events = request_rematch(over, 1, "R2")
    assert asked.rematch == (False, True)
    assert asked.next_room is None
    assert events == [{"type": "rematch", "seat": 1, "room": None}]
    again, _ = request_rematch(asked, 1, "R3")
    assert again.rematch == (False, True) and again.next_room is None
    both, events = request_rematch(again, 0, "R4")
    assert both.rematch == (True, True)
    assert both.next_room == "R4"
    assert events == [{"type": "rematch", "seat": 0, "room": "R4"}]


def test_the_next_room_is_set_once() -> None:
    over, _ = leave(quick_room(), 0, T0)
    room, _ = request_rematch(over, 0, "R2")
    room, _ = request_rematch(room, 1, "R3")
    assert room.next_room == "R3"
    later, events = request_rematch(room, 0, "R9")
    assert later.next_room == "R3"
    assert events == [{"type": "rematch", "seat": 0, "room": "R3"}]


def test_an_ai_seat_always_agrees_to_a_rematch() -> None:
    over = play_match(ai_room(seed=19), random.Random(19))
    room, events = request_rematch(over, 0, "R2")
    assert room.rematch == (True, True)
    assert room.next_room == "R2"
    assert events == [{"type": "rematch", "seat": 0, "room": "R2"}]


def test_rematch_room_keeps_seats_and_rules_and_deals() -> None:
    rules = MatchRules(target=10, shutout_bonus=True)
    old, _ = create_room(
        room_id="R1",
        mode="private",
        creator=ALICE,
        seed=seed_of(20),
        now=T0,
        rules=rules,
        turn_seconds=45,
        invite=INVITE,
    )
    old, _, _ = join(old, BOB, T0)
    old = play_match(old, random.Random(20))
    old, _ = request_rematch(old, 0, "R2")
    old, _ = request_rematch(old, 1, "R2")
    assert old.next_room == "R2"
    new, events = rematch_room(old, "R2", seed_of(777), T0 + 100)
    assert new.id == "R2"
    assert new.mode == "private"
    assert new.seats == (ALICE, BOB)
    assert new.rules == rules
    assert new.turn_seconds == 45
    assert new.seed == seed_of(777)
    assert new.status == "playing"
    assert new.game == new_match(seed_of(777), rules)
    assert new.hand_log == (deal_event(new.game),)
    assert new.turn_deadline == T0 + 100 + 45
    assert new.created_at == T0 + 100
    assert (new.forfeit, new.rematch, new.next_room) == (None, (False, False), None)
    assert [(e["type"], e.get("status")) for e in events] == [
        ("room", "rematch"),
        ("room", "playing"),
        ("deal", None),
    ]
    assert events[-1] == new.hand_log[0]


def test_rematch_room_of_an_ai_room_keeps_the_ai() -> None:
    old = play_match(ai_room(seed=22, level="easy"), random.Random(22))
    new, _ = rematch_room(old, "R2", seed_of(5), T0)
    assert new.seats == old.seats
    assert new.seats[1].ai == "easy"
    assert new.mode == "ai"


# --- the turn clock ------------------------------------------------------------------------------


def test_no_deadline_without_a_turn_clock() -> None:
    room = quick_room(turn_seconds=0)
    assert room.turn_deadline is None
    room = mid_hand(room, random.Random(23), 6)
    assert room.turn_deadline is None
    assert expire_turn(room, T0 + 1e9) is None
    joined, _, _ = join(private_room(turn_seconds=0), BOB, T0)
    assert joined.turn_deadline is None


def test_the_deadline_follows_each_action() -> None:
    room = quick_room(seed=24, turn_seconds=30)
    assert room.turn_deadline == T0 + 30
    rnd = random.Random(24)
    now = T0
    for _ in range(8):
        now += 7
        room, _ = step(room, rnd, now)
        if game_of(room).turn is None:
            assert room.turn_deadline is None
            break
        assert room.turn_deadline == now + 30


def test_a_private_room_starts_its_clock_when_joined() -> None:
    room = private_room(turn_seconds=25)
    assert room.turn_deadline is None
    joined, _, _ = join(room, BOB, T0 + 500)
    assert joined.turn_deadline == T0 + 500 + 25


def test_no_deadline_between_hands_and_a_new_one_on_the_next_deal() -> None:
    room, _ = play_hand(quick_room(seed=25, turn_seconds=30), random.Random(25))
    assert room.status == "playing"
    assert room.turn_deadline is None
    assert expire_turn(room, T0 + 1e9) is None
    # dealt by the player who plays first (the other's turn waits for their result: below)
    first = game_of(room).dealer  # the dealer of the hand over plays first in the next
    room, _ = act(room, first, Action("next_hand"), T0 + 60, next_hand_seed(game_of(room)))
    assert game_of(room).turn == first
    assert room.turn_deadline == T0 + 90


def test_expire_turn_before_the_deadline_does_nothing() -> None:
    room = quick_room(turn_seconds=30)
    assert expire_turn(room, T0) is None
    assert expire_turn(room, T0 + 29.999) is None


def test_expire_turn_passes_an_upcard_offer() -> None:
    room = quick_room(seed=26, turn_seconds=30)
    game = game_of(room)
    assert game.phase is Phase.FIRST_OFFER
    result = expire_turn(room, T0 + 31)
    assert result is not None
    room, events = result
    assert events == [{"type": "pass", "seat": game.non_dealer, "by": "clock"}]
    assert game_of(room).phase is Phase.SECOND_OFFER
    assert room.turn_deadline == T0 + 31 + 30
    assert room.hand_log[-1] == events[0]
    result = expire_turn(room, T0 + 61)
    assert result is not None
    room, events = result
    assert events == [{"type": "pass", "seat": game.dealer, "by": "clock"}]
    assert game_of(room).phase is Phase.FIRST_DRAW
    result = expire_turn(room, T0 + 200)
    assert result is not None
    room, events = result
    assert [(e["type"], e["seat"], e["source"]) for e in events] == [
        ("draw", game.non_dealer, "stock")
    ]
    assert events[0]["card"] == game.stock[-1]


def test_expire_turn_draws_from_the_stock_in_a_normal_turn() -> None:
    state = position(
        "AC 2C 3C 4D 5D 6D 7H 8H 9H KS",
        "2D 3D AD 8S 9S TS JS QS KC QC",
        pile="KH",
        phase=Phase.DRAW,
        turn=0,
    )
    room = replace(quick_room(turn_seconds=10), game=state, turn_deadline=T0)
    assert Action("draw_discard") in legal_actions(state, 0)
    result = expire_turn(room, T0)
    assert result is not None
    after, events = result
    assert events == [
        {"type": "draw", "seat": 0, "source": "stock", "card": state.stock[-1], "by": "clock"}
    ]
    assert game_of(after).phase is Phase.DISCARD


def expire_discard(state: GameState) -> Action:
    seat = state.turn
    assert seat is not None
    room = replace(quick_room(turn_seconds=10), game=state, turn_deadline=T0)
    result = expire_turn(room, T0 + 1)
    assert result is not None
    after, events = result
    move = events[0]
    assert move["seat"] == seat
    assert game_of(after).history[-1] == Move(seat, move["type"], move["card"], by="clock")
    return Action(move["type"], move["card"])


def test_expired_discard_never_knocks() -> None:
    # discarding KS leaves 2 points of deadwood: a knock (and the default) would be KS
    state = position(
        "AC 2C 3C 4D 5D 6D 7H 8H 9H KS 2S",
        "AD 2D 3D 8S 9S TS JS QS KC QC",
        phase=Phase.DISCARD,
        turn=0,
    )
    assert Action("knock", "KS") in legal_actions(state, 0)
    assert expire_discard(state) == Action("discard", "KS")


def test_expired_discard_never_knocks_even_for_gin() -> None:
    state = position(
        "AC 2C 3C 4D 5D 6D 7H 8H 9H TH KS",
        "AD 2D 3D 8S 9S TS JS QS KC QC",
        phase=Phase.DISCARD,
        turn=0,
    )
    assert Action("gin", "KS") in legal_actions(state, 0)
    assert expire_discard(state) == Action("discard", "KS")


def test_expired_discard_is_never_the_card_taken_from_the_pile() -> None:
    # KS was just taken from the discard pile; it is the worst card but may not go back
    state = position(
        "AC 2C 3C 4D 5D 6D 7H 8H 9H KS 2S",
        "AD 2D 3D 8S 9S TS JS QS KC QC",
        phase=Phase.DISCARD,
        turn=0,
        taken="KS",
        discard_draws=1,
        history=(Move(1, "discard", "KS"), Move(0, "draw_discard", "KS")),
    )
    assert expire_discard(state) == Action("discard", "2S")


def test_expired_discard_after_taking_the_upcard() -> None:
    state = position(
        "AC 2C 3C 4D 5D 6D 7H 8H 9H QS KS",
        "AD 2D 3D 8S 9S TS JS JC KC QC",
        stock_size=31,
        phase=Phase.DISCARD,
        turn=0,
        taken="KS",
        discard_draws=1,
        history=(Move(0, "take_upcard", "KS"),),
    )
    assert expire_discard(state) == Action("discard", "QS")


def least_deadwood_after(hand: tuple[str, ...], card: str) -> int:
    return min_deadwood([c for c in hand if c != card])


@pytest.mark.parametrize("seed", [30, 31, 32, 33])
def test_default_discard_leaves_the_least_deadwood_in_real_play(seed: int) -> None:
    checked = 0
    for room in states_of_play(seed):
        game = game_of(room)
        if game.phase is not Phase.DISCARD:
            continue
        seat = game.turn
        assert seat is not None
        action = default_action(game, seat)
        assert action.kind == "discard"
        assert action in legal_actions(game, seat)
        assert action.card is not None and action.card != game.taken_card
        hand = game.hands[seat]
        allowed = [c for c in hand if c != game.taken_card]
        best = min(least_deadwood_after(hand, c) for c in allowed)
        assert least_deadwood_after(hand, action.card) == best
        checked += 1
    assert checked >= 10


def test_default_action_in_each_phase_of_real_play() -> None:
    expected = {
        Phase.FIRST_OFFER: "pass",
        Phase.SECOND_OFFER: "pass",
        Phase.FIRST_DRAW: "draw_stock",
        Phase.DRAW: "draw_stock",
        Phase.DISCARD: "discard",
    }
    seen = set()
    for room in states_of_play(34, hands=12):
        game = game_of(room)
        if game.turn is None:
            continue
        action = default_action(game, game.turn)
        assert action.kind == expected[game.phase]
        assert action in legal_actions(game, game.turn)
        seen.add(game.phase)
    assert seen == set(expected)


# --- plain data ----------------------------------------------------------------------------------


def rooms_of_every_status() -> list[tuple[str, Room]]:
    playing = mid_hand(quick_room(seed=40, turn_seconds=30), random.Random(40), 7)
    hand_over, _ = play_hand(ai_room(seed=41, turn_seconds=15), random.Random(41))
    over = play_match(quick_room(seed=42), random.Random(42))
    asked, _ = request_rematch(over, 0, "R2")
    agreed, _ = request_rematch(asked, 1, "R2")
    bound, _ = bind_ai_seat(ai_room(seed=43), 1, "worker-9")
    forfeited, _ = leave(playing, 1, T0 + 1)
    closed, _ = leave(private_room(), 0, T0)
    return [
        ("waiting", private_room(turn_seconds=20)),
        ("playing", playing),
        ("hand over", hand_over),
        ("match over", over),
        ("rematch asked", asked),
        ("rematch agreed", agreed),
        ("ai bound", bound),
        ("forfeited", forfeited),
        ("closed", closed),
        ("banked", banked_room()),
        ("away choice", open_away_choice(mark_away(quick_room(), 1, T0)[0], 1, T0 + 60, 60)[0]),
    ]


@pytest.mark.parametrize("case", rooms_of_every_status(), ids=lambda case: case[0])
def test_plain_data_round_trip(case: tuple[str, Room]) -> None:
    _, room = case
    data = room.to_dict()
    assert_plain(data)
    again = Room.from_dict(json.loads(json.dumps(data)))
    assert again == room
    assert again.to_dict() == data


def test_round_trip_covers_every_status() -> None:
    statuses = {room.status for _, room in rooms_of_every_status()}
    assert statuses == {"waiting", "playing", "finished"}


def test_a_restored_room_plays_on() -> None:
    rnd = random.Random(44)
    room = mid_hand(quick_room(seed=44), rnd, 5)
    restored = Room.from_dict(json.loads(json.dumps(room.to_dict())))
    game = game_of(room)
    seat = acting_seat(game, rnd)
    action = legal_actions(game, seat)[0]
    seed = next_hand_seed(game_of(room))
    assert act(restored, seat, action, T0, seed) == act(room, seat, action, T0, seed)


@pytest.mark.parametrize("fmt", [None, 0, 2, "1"])
def test_from_dict_refuses_another_format(fmt: object) -> None:
    data = quick_room().to_dict()
    data["format"] = fmt
    with pytest.raises(ValueError):
        Room.from_dict(data)


def test_the_stored_form_leaves_the_hand_log_out() -> None:
    rnd = random.Random(21)
    room = mid_hand(quick_room(seed=21), rnd, 9)
    assert room.hand_log
    stored = room.to_dict(hand_log=False)
    assert stored["format"] == 2 and "hand_log" not in stored
    assert {**stored, "format": 1, "hand_log": list(room.hand_log)} == room.to_dict()
    restored = Room.from_dict(json.loads(json.dumps(stored)))
    assert restored == replace(room, hand_log=())
    assert not hand_log_complete(restored)
    # it plays on: the operations log what follows
    game = game_of(restored)
    seat = acting_seat(game, rnd)
    action = legal_actions(game, seat)[0]
    after, events = act(restored, seat, action, T0)
    assert after.hand_log == tuple(events)
    assert after == replace(act(room, seat, action, T0)[0], hand_log=tuple(events))


def test_both_formats_are_read() -> None:
    room = mid_hand(quick_room(seed=22), random.Random(22), 5)
    assert Room.from_dict(room.to_dict()) == room  # format 1, written before format 2
    assert Room.from_dict(room.to_dict(hand_log=False)).hand_log == ()
    with pytest.raises(ValueError):
        Room.from_dict({**room.to_dict(hand_log=False), "format": 1})  # format 1 has a log


@pytest.mark.parametrize("seed", range(4))
def test_the_game_map_is_the_engines(seed: int) -> None:
    for room in states_of_play(seed):
        data = room.to_dict()["game"]
        expected = game_of(room).to_dict()
        assert data == expected and list(data) == list(expected)


def test_hand_log_complete() -> None:
    room = quick_room(seed=23)
    assert hand_log_complete(room)  # the deal
    room = mid_hand(room, random.Random(23), 6)
    assert hand_log_complete(room)
    assert not hand_log_complete(replace(room, hand_log=room.hand_log[1:]))
    assert not hand_log_complete(replace(room, hand_log=()))
    assert not hand_log_complete(private_room())  # no game yet


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_hand_log_from_the_changes_is_the_rooms(seed: int) -> None:
    """The changes as the change stream holds them (room events among the game's, the next
    hand's deal after the hand's end) give back each hand's log."""
    rnd = random.Random(seed)
    room, first = create_room(
        room_id="RS", mode="private", creator=ALICE, seed=seed_of(seed), now=T0, invite=INVITE
    )
    changes: list[list[Event]] = [first]
    room, events, _ = join(room, BOB, T0)
    changes.append(events)
    logs: dict[int, tuple[Event, ...]] = {}
    for _ in range(3):
        while game_of(room).phase not in (Phase.HAND_OVER, Phase.MATCH_OVER):
            room, events = step(room, rnd)
            changes.append(events)
            if rnd.random() < 0.1:
                room, events = mark_away(room, 0, T0)
                changes.append(events)
        logs[game_of(room).hand_number] = room.hand_log
        if room.status == "finished":
            break
        room, events = act(room, 1, Action("next_hand"), T0, next_hand_seed(game_of(room)))
        changes.append(events)
    changes.append([{"type": "rematch", "seat": 0, "room": None}])
    for hand, log in logs.items():
        assert hand_log_from_changes(changes, hand) == log
        tail = [c for c in changes if any(e.get("hand") == hand for e in c)]
        assert hand_log_from_changes(changes[changes.index(tail[0]) :], hand) == log
    assert hand_log_from_changes(changes[3:], 1) is None  # the deal is gone


# --- views ---------------------------------------------------------------------------------------


def test_a_seat_sees_its_cards_and_the_invite() -> None:
    room, _, _ = join(private_room(seed=50), BOB, T0)
    game = game_of(room)
    for seat in (0, 1):
        view = room_view(room, seat)
        assert view["seat"] == seat
        assert view["invite"] == INVITE
        assert view["game"]["cards"] == list(game.hands[seat])
        assert view["status"] == "playing"
        assert view["room"] == "RP"
        other = set(game.hands[1 - seat])
        assert not other & cards_in(view)


def test_a_spectator_sees_neither_hand_nor_invite() -> None:
    room, _, _ = join(private_room(seed=51), BOB, T0)
    view = room_view(room, None)
    assert view["seat"] is None
    assert "invite" not in view
    assert INVITE not in json.dumps(view)
    assert "cards" not in view["game"]
    assert view["game"]["legal_actions"] == []
    game = game_of(room)
    assert not cards_in(view) & {*game.hands[0], *game.hands[1], *game.stock}
    assert cards_in(view) == {game.discard_pile[-1]}


def test_a_waiting_room_view() -> None:
    room = private_room()
    view = room_view(room, 0, connected=(True, False))
    assert view["game"] is None
    assert view["status"] == "waiting"
    assert view["invite"] == INVITE
    assert view["connected"] == [True, False]
    assert [s["open"] for s in view["seats"]] == [False, True]
    assert "connected" not in room_view(room, 0)
    assert "invite" not in room_view(room, None)


def test_the_player_ids_are_not_in_views_or_room_events() -> None:
    room, events = create_room(
        room_id="R", mode="quick", creator=ALICE, opponent=BOB, seed=seed_of(1), now=T0
    )
    text = json.dumps([room_view(room, 0), room_view(room, 1), room_view(room, None), events])
    assert "p-alice" not in text and "p-bob" not in text
    assert "Alice" in text and "Bob" in text


@pytest.mark.parametrize("seed", [60, 61, 62])
def test_no_view_exposes_the_stock_or_the_opponents_hand_mid_hand(seed: int) -> None:
    checked = 0
    for room in states_of_play(seed):
        game = game_of(room)
        if game.phase in (Phase.HAND_OVER, Phase.MATCH_OVER):
            continue
        # cards taken from the discard pile are known to both players
        public = {*game.discard_pile} | {m.card for m in game.history if m.card is not None}
        for seat in (0, 1, None):
            seen = cards_in(room_view(room, seat, connected=(True, True)))
            own = set(game.hands[seat]) if seat is not None else set()
            assert not seen & set(game.stock), (seat, seen & set(game.stock))
            assert seen <= own | public, (seat, seen - own - public)
            if seat is not None:
                assert own <= seen
        checked += 1
    assert checked >= 20


def test_the_finished_hand_is_public_in_every_view() -> None:
    room, _ = play_hand(quick_room(seed=63), random.Random(63))
    game = game_of(room)
    for seat in (0, 1, None):
        view = room_view(room, seat)
        last = view["game"]["last_hand"]
        assert last["hands"] == [list(game.hands[0]), list(game.hands[1])]
        assert not cards_in(view) & set(game.stock)


def test_the_view_reports_a_forfeit_and_the_rematch() -> None:
    room, _ = leave(ai_room(), 0, T0)
    room, _ = request_rematch(room, 0, "R2")
    view = room_view(room, 0)
    assert (view["status"], view["forfeit"], view["winner"]) == ("finished", 0, 1)
    assert view["rematch"] == [True, True]
    assert view["next_room"] == "R2"


def test_cards_in_finds_cards_and_only_cards() -> None:
    # the leak check above is only as good as this helper
    assert cards_in({"a": ["AS", {"TD": "x"}], "b": ("7H", "draw", "KS2", 5)}) == {
        "AS",
        "TD",
        "7H",
    }
    assert set(parse_cards("AS 2S")) == cards_in(["AS", "2S"])


# --- records owed by a change --------------------------------------------------------------------


def test_each_change_owes_the_records_of_what_it_finished() -> None:
    """Walking a whole match: exactly the change that ends hand N owes "N", exactly the one
    that ends the match also owes "match", and the stored room shows each as due."""
    rnd = random.Random(5)
    room = quick_room(rules=MatchRules(target=50))
    owed: list[str] = []
    for _ in range(10_000):
        if room.status == "finished":
            break
        game = game_of(room)
        if game.phase is Phase.HAND_OVER:
            after, _ = act(room, 0, Action("next_hand"), T0, next_hand_seed(game_of(room)))
        else:
            after, _ = step(room, rnd)
        for what in owed_records(room, after):
            assert records_due(after, what)
            assert not records_due(room, what), "due before the change that owes it"
            owed.append(what)
        room = after
    hands = len(game_of(room).results)
    assert owed == [*map(str, range(1, hands + 1)), MATCH_RECORDS]
    assert all(records_due(room, what) for what in owed)


def test_a_forfeit_owes_the_match_only() -> None:
    room = mid_hand(quick_room(), random.Random(2), 5)
    after, _ = leave(room, 1, T0)
    assert after.status == "finished"
    assert owed_records(room, after) == [MATCH_RECORDS]
    assert not records_due(room, "1") and not records_due(room, "x")


def test_the_record_of_an_earlier_hand_from_its_log_is_the_one_made_at_its_end() -> None:
    rnd = random.Random(21)
    room, _ = play_hand(quick_room(seed=21), rnd)
    at_the_end = hand_record(room)
    assert at_the_end is not None and "result" in at_the_end
    log = list(room.hand_log)
    room, _ = act(room, 0, Action("next_hand"), T0, next_hand_seed(game_of(room)))
    assert hand_record(room) is None  # the current hand is not over
    assert hand_record(room, 1, log) == at_the_end
    assert hand_record(room, 2, log) is None  # not over yet


# --- the fast paths of a move: act and the stored form ----------------------------------------


@pytest.mark.parametrize("seed", [3, 4])
def test_act_builds_the_room_that_replace_would(seed: int) -> None:
    rnd = random.Random(seed)
    room = quick_room(seed=seed, turn_seconds=30, rules=MatchRules(target=60))
    room = replace(room, invite=INVITE, hand_ids=("h-1",), stand_in_level="easy")
    now = T0
    while room.status == "playing":
        game = game_of(room)
        seat = acting_seat(game, rnd)
        action = choose(game, legal_actions(game, seat), rnd)
        now += 1.5
        deal_seed = next_hand_seed(game)
        after, events = act(room, seat, action, now, deal_seed)
        new_game, new_events = apply(game, seat, action, deal_seed)
        assert events == new_events
        log = new_events if action.kind == "next_hand" else [*room.hand_log, *new_events]
        opened = list(room.results_open)
        if new_game.phase is Phase.HAND_OVER and action.kind != "next_hand":
            opened = [True, True]
        else:
            opened[seat] = False
        turn = new_game.turn
        reading = RESULT_READING_SECONDS if turn is not None and opened[turn] else 0
        expected = replace(
            room,
            game=new_game,
            hand_log=tuple(log),
            status="finished" if new_game.phase is Phase.MATCH_OVER else "playing",
            turn_deadline=now + reading + 30 if turn is not None else None,
            results_open=(opened[0], opened[1]),
        )
        assert after == expected
        assert after.seats is room.seats and after.rules is room.rules
        room = after


def test_the_stored_blob_is_the_stored_form_move_after_move() -> None:
    """``encode_room`` reuses the parts of a room's last blob made of the same objects: the
    blob of each state of play (in order, as a server meets them) is still exactly it."""
    rooms = [private_room(), *states_of_play(31, hands=4)]
    last = rooms[-1]
    rooms += [
        replace(last, status="finished", forfeit=1, rematch=(True, False)),
        replace(last, seats=(last.seats[0], replace(last.seats[1], away_since=5.0))),
        replace(last, turn_seconds=30, turn_deadline=1030.5),
        replace(last, turn_seconds=30, turn_deadline=1031.5),
        replace(last, turn_seconds=30, turn_bank=120, banks=(120.0, 33.25)),
        replace(last, turn_seconds=30, turn_bank=120, banks=(101.5, 33.25)),
        replace(last, seats=(last.seats[0], replace(last.seats[1], away_choice=True))),
        last,
    ]
    blobs = RoomBlobs()
    for room in rooms:
        blob = blobs.encode_room(room)
        assert codec.unpack(blob) == room.to_dict(hand_log=False)
        assert decode_room(blob) == replace(room, hand_log=())
        assert blobs.encode_room(room) == blob


# --- the time bank -------------------------------------------------------------------------------


def test_each_seat_starts_with_the_bank_and_the_deadline_includes_it() -> None:
    room = banked_room()
    assert room.banks == (120.0, 120.0)
    assert room.turn_deadline == T0 + 30 + 120
    view = room_view(room, 0)
    assert view["turn_bank"] == 120 and view["banks"] == [120.0, 120.0]
    assert view["turn_deadline"] == T0 + 150


def test_a_turn_within_its_seconds_keeps_the_bank() -> None:
    room = banked_room()
    seat = game_of(room).turn
    assert seat is not None
    after, _ = act(room, seat, default_action(game_of(room), seat), T0 + 29)
    assert after.banks == (120.0, 120.0)


def test_the_time_past_a_turns_seconds_comes_off_the_seats_bank() -> None:
    room = banked_room()
    seat = game_of(room).turn
    assert seat is not None
    after, _ = act(room, seat, default_action(game_of(room), seat), T0 + 30 + 45)
    banks = [120.0, 120.0]
    banks[seat] = 75.0
    assert after.banks == tuple(banks)
    following = game_of(after).turn
    assert following is not None
    assert after.turn_deadline == T0 + 75 + 30 + after.banks[following]


def test_the_clock_plays_for_the_seat_only_when_the_bank_is_spent_too() -> None:
    room = banked_room()
    seat = game_of(room).turn
    assert seat is not None
    assert expire_turn(room, T0 + 31) is None  # the bank runs
    assert expire_turn(room, T0 + 149.5) is None
    expired = expire_turn(room, T0 + 150)
    assert expired is not None
    after, _ = expired
    assert after.banks[seat] == 0.0 and after.banks[1 - seat] == 120.0


def test_a_rematch_gives_both_seats_a_full_bank_again() -> None:
    room = banked_room()
    seat = game_of(room).turn
    assert seat is not None
    spent, _ = act(room, seat, default_action(game_of(room), seat), T0 + 100)
    new, _ = rematch_room(leave(spent, 0, T0 + 101)[0], "RB2", seed_of(9), T0 + 200)
    assert new.turn_bank == 120 and new.banks == (120.0, 120.0)


def test_a_room_stored_before_the_bank_and_the_away_choice_reads_as_without_them() -> None:
    room = mid_hand(quick_room(seed=51, turn_seconds=30), random.Random(51), 5)
    data = room.to_dict(hand_log=False)
    del data["turn_bank"], data["banks"]
    for seat in data["seats"]:
        del seat["away_choice"]
    old = Room.from_dict(data)
    assert old == replace(room, hand_log=())
    assert old.turn_bank == 0 and old.banks == (0.0, 0.0)
    assert not any(seat.away_choice for seat in old.seats)


# --- the away choice -----------------------------------------------------------------------------

GRACE = 60.0


def away_room(seat: int = 1, since: float = T0) -> Room:
    room, _ = mark_away(quick_room(seed=52), seat, since)
    return room


def test_the_choice_opens_only_once_the_grace_has_passed() -> None:
    room = away_room()
    assert open_away_choice(room, 1, T0 + GRACE - 0.5, GRACE) == (room, [])
    opened, events = open_away_choice(room, 1, T0 + GRACE, GRACE)
    assert opened.seats[1].away_choice
    assert events == [{"type": "presence", "seat": 1, "away": True, "choice": True}]
    assert room_view(opened, 0)["seats"][1]["away_choice"] is True
    assert open_away_choice(opened, 1, T0 + GRACE + 5, GRACE) == (opened, [])  # once


def test_no_choice_for_a_present_seat_or_in_an_ai_room() -> None:
    present = quick_room(seed=52)
    assert open_away_choice(present, 1, T0 + 1000, GRACE) == (present, [])
    ai, _ = mark_away(ai_room(), 0, T0)
    assert open_away_choice(ai, 0, T0 + 1000, GRACE) == (ai, [])


def test_claim_win_before_the_grace_is_refused() -> None:
    with pytest.raises(NotAwayLongEnough) as refusal:
        claim_win(away_room(), 0, T0 + GRACE - 1, GRACE)
    assert refusal.value.code == "not_away_long_enough"


def test_claim_win_against_a_present_opponent_is_refused() -> None:
    for room in (quick_room(seed=52), away_room(seat=0)):  # nobody away; the claimer is away
        with pytest.raises(OpponentPresent) as refusal:
            claim_win(room, 0, T0 + 1000, GRACE)
        assert refusal.value.code == "opponent_present"


def test_claim_win_in_an_ai_room_is_refused() -> None:
    with pytest.raises(OpponentPresent):
        claim_win(ai_room(), 0, T0 + 1000, GRACE)


def test_claim_win_after_the_grace_is_the_away_seats_forfeit() -> None:
    room = away_room()
    claimed, events = claim_win(room, 0, T0 + GRACE, GRACE)
    assert (claimed, events) == leave(room, 1, T0 + GRACE)
    assert claimed.status == "finished" and claimed.forfeit == 1 and claimed.winner == 0
    assert owed_records(room, claimed) == [MATCH_RECORDS]
    with pytest.raises(RoomClosed):
        claim_win(claimed, 0, T0 + GRACE + 1, GRACE)


def test_call_stand_in_lets_an_ai_play_the_away_seat_until_its_person_is_back() -> None:
    room = open_away_choice(away_room(), 1, T0 + GRACE, GRACE)[0]
    with pytest.raises(NotAwayLongEnough):
        call_stand_in(away_room(), 0, "normal", T0 + 1, GRACE)
    stood, events = call_stand_in(room, 0, "normal", T0 + GRACE, GRACE)
    assert events == [{"type": "stand_in", "seat": 1, "level": "normal"}]
    assert stood.seats[1].stand_in == "normal" and stood.seats[1].player == BOB.player
    with pytest.raises(RoomClosed):  # an AI plays it already
        call_stand_in(stood, 0, "normal", T0 + GRACE, GRACE)
    bound, _ = bind_offered_seat(stood, 1, "worker-1")
    assert bound.acting_seat("worker-1") == 1 and bound.acting_seat(BOB.player or "") is None
    back, _ = mark_back(bound, 1, T0 + GRACE + 1)
    assert back.seats[1] == BOB
    assert back.acting_seat(BOB.player or "") == 1


def test_call_stand_in_needs_a_level() -> None:
    with pytest.raises(RoomError):
        call_stand_in(away_room(), 0, "grandmaster", T0 + GRACE, GRACE)


def test_an_ai_seat_is_paused_while_the_person_of_its_room_is_away() -> None:
    """A room against the AI whose person is away needs no worker meanwhile (issue 27): its
    seat is given up and asked for again when they are back. A stand-in's seat in a room
    between people is never paused so."""
    room = ai_room(level="easy")
    assert not ai_seat_paused(room, 1)
    away, _ = mark_away(room, 0, T0)
    assert ai_seat_paused(away, 1) and not ai_seat_paused(away, 0)
    assert not ai_seat_paused(mark_back(away, 0, T0 + 5)[0], 1)
    people = replace(quick_room(seed=52), stand_in_level="normal")
    people, _ = mark_away(people, 0, T0)
    people, _ = start_stand_in(people, 0, T0 + 10, grace=5)
    assert not ai_seat_paused(people, 0) and not ai_seat_paused(people, 1)
