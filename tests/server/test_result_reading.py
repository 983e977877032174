"""Issue 24, defect 7: either player may deal the next hand, and the other player's turn clock
does not run while their result of the last hand is still open. A turn of a person who neither
dealt nor closed the result (``close_result``) gets ``RESULT_READING_SECONDS`` more; closing it
starts the turn afresh, with its full time."""

from __future__ import annotations

import random

import pytest

from server.engine import Action, Phase
from server.room import (
    RESULT_READING_SECONDS,
    Room,
    RoomClosed,
    act,
    close_result,
    expire_turn,
)
from tests.server.test_room import T0, ai_room, banked_room, game_of, play_hand, quick_room
from tests.support.seeds import next_hand_seed

TURN = 30


def hand_over(room: Room, seed: int = 25) -> Room:
    room, _ = play_hand(room, random.Random(seed))
    assert game_of(room).phase is Phase.HAND_OVER
    return room


def dealt_by_the_other(room: Room, now: float) -> tuple[Room, int]:
    """The next hand dealt by the player who does not play first in it; that player's seat."""
    first = game_of(room).dealer  # the dealer of the hand over plays first in the next
    room, _ = act(room, 1 - first, Action("next_hand"), now, next_hand_seed(game_of(room)))
    assert game_of(room).turn == first
    return room, first


def test_both_results_open_when_a_hand_of_people_ends() -> None:
    room = quick_room(seed=25, turn_seconds=TURN)
    assert room.results_open == (False, False)
    assert hand_over(room).results_open == (True, True)


def test_the_dealer_s_own_result_closes_and_the_other_s_turn_waits_for_theirs() -> None:
    room = hand_over(quick_room(seed=25, turn_seconds=TURN))
    room, first = dealt_by_the_other(room, T0 + 60)
    assert room.results_open[1 - first] is False
    assert room.results_open[first] is True
    assert room.turn_deadline == T0 + 60 + RESULT_READING_SECONDS + TURN
    # the turn's own clock would have run out: nothing is played for them yet
    assert expire_turn(room, T0 + 60 + TURN + 1) is None


def test_closing_the_result_starts_the_turn_with_its_full_time() -> None:
    room = hand_over(quick_room(seed=25, turn_seconds=TURN))
    room, first = dealt_by_the_other(room, T0 + 60)
    hand = game_of(room).hand_number - 1
    closed, events = close_result(room, first, hand, T0 + 75)
    assert events == [{"type": "result_closed", "seat": first, "hand": hand}]
    assert closed.results_open[first] is False
    assert closed.turn_deadline == T0 + 75 + TURN
    # closing it again, or an older hand's, changes nothing
    assert close_result(closed, first, hand, T0 + 80) == (closed, [])
    assert close_result(room, first, hand - 1, T0 + 80) == (room, [])


def test_a_result_closed_late_never_gives_more_than_the_wait() -> None:
    room = hand_over(quick_room(seed=25, turn_seconds=TURN))
    room, first = dealt_by_the_other(room, T0 + 60)
    late = T0 + 60 + RESULT_READING_SECONDS + 20
    closed, _ = close_result(room, first, game_of(room).hand_number - 1, late)
    assert closed.turn_deadline == T0 + 60 + RESULT_READING_SECONDS + TURN


def test_the_wait_comes_off_no_bank_and_the_bank_still_follows() -> None:
    room = hand_over(banked_room(seed=25, turn_seconds=TURN, bank=120))
    room, first = dealt_by_the_other(room, T0 + 60)
    bank = room.banks[first]
    assert room.turn_deadline == T0 + 60 + RESULT_READING_SECONDS + TURN + bank
    # a move within the wait and the turn's seconds takes nothing off the bank
    kind = "pass" if game_of(room).phase is Phase.FIRST_OFFER else "draw_stock"
    moved, _ = act(room, first, Action(kind), T0 + 60 + RESULT_READING_SECONDS + TURN - 1)
    assert moved.banks[first] == bank


def test_the_next_turn_of_a_person_still_reading_waits_too() -> None:
    room = hand_over(quick_room(seed=25, turn_seconds=TURN))
    room, first = dealt_by_the_other(room, T0 + 60)
    hand = game_of(room).hand_number - 1
    room, _ = close_result(room, first, hand, T0 + 61)
    # the first player passes: the other's turn (who dealt: their result is closed) runs
    assert game_of(room).phase is Phase.FIRST_OFFER
    room, _ = act(room, first, Action("pass"), T0 + 62)
    assert room.turn_deadline == T0 + 62 + TURN


def test_the_second_offer_waits_for_a_player_still_reading() -> None:
    room = hand_over(quick_room(seed=25, turn_seconds=TURN))
    first = game_of(room).dealer
    # the player who plays first deals, and passes the upcard at once
    room, _ = act(room, first, Action("next_hand"), T0 + 60, next_hand_seed(game_of(room)))
    assert room.turn_deadline == T0 + 60 + TURN
    room, _ = act(room, first, Action("pass"), T0 + 61)
    assert game_of(room).turn == 1 - first and room.results_open[1 - first]
    assert room.turn_deadline == T0 + 61 + RESULT_READING_SECONDS + TURN


def test_a_result_is_closed_only_in_a_match_in_play() -> None:
    rnd = random.Random(3)
    room = quick_room(seed=30, turn_seconds=TURN)
    for _ in range(200):
        room, _ = play_hand(room, rnd)
        if room.status == "finished":
            break
        room, _ = act(room, 0, Action("next_hand"), T0, next_hand_seed(game_of(room)))
    assert room.status == "finished"
    with pytest.raises(RoomClosed):
        close_result(room, 0, game_of(room).hand_number, T0)


def test_the_ai_seat_has_no_result_to_read() -> None:
    room = hand_over(ai_room(seed=25, turn_seconds=TURN))
    assert room.results_open == (True, False)
