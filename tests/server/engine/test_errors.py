"""Refused actions raise the specific error and leave the state as it was."""

import pytest

from server.engine import (
    CannotDiscardTakenCard,
    CardNotInHand,
    GameState,
    IllegalAction,
    KnockTooHigh,
    MalformedAction,
    MatchOver,
    NoSuchSeat,
    NotGin,
    NotYourTurn,
    Phase,
    UnknownAction,
    WrongPhase,
    apply,
    legal_actions,
    new_match,
)
from server.engine.actions import Action
from tests.server.engine.hands import DEFENDER_79, KNOCK_AT_10, KNOCK_AT_11
from tests.server.engine.helpers import act, position
from tests.support.seeds import seed_of

START = new_match(seed_of(77))
DISCARDING = position(KNOCK_AT_10, DEFENDER_79, pile="QS", phase=Phase.DISCARD, turn=0)
TAKEN = act(
    position(KNOCK_AT_10.replace(" KD", ""), DEFENDER_79, pile="KH", turn=0), 0, "draw_discard"
)
DRAWING = position(KNOCK_AT_10.replace(" KD", ""), DEFENDER_79, pile="QS", turn=0)
OVER = act(DISCARDING, 0, "knock", "KD")


CASES = [
    (START, START.dealer, Action("take_upcard"), NotYourTurn, "it is seat"),
    (DISCARDING, 1, Action("discard", "8H"), NotYourTurn, "seat 1 cannot discard"),
    (START, START.non_dealer, Action("draw_stock"), WrongPhase, "phase first_offer"),
    (DRAWING, 0, Action("discard", "AH"), WrongPhase, "cannot discard in phase draw"),
    (DISCARDING, 0, Action("draw_stock"), WrongPhase, "phase discard"),
    (DISCARDING, 0, Action("next_hand"), WrongPhase, "next_hand"),
    (OVER, 0, Action("discard", "AH"), WrongPhase, "phase hand_over"),
    (DISCARDING, 0, Action("discard", "8H"), CardNotInHand, "8H: it is not in seat 0's hand"),
    (DISCARDING, 0, Action("knock", "AS"), CardNotInHand, "AS"),
    (DISCARDING, 0, Action("discard", "ZZ"), MalformedAction, "bad rank"),
    (DISCARDING, 0, Action("discard"), MalformedAction, "needs a card"),
    (DRAWING, 0, Action("draw_stock", "QS"), MalformedAction, "takes no card"),
    (DISCARDING, 0, Action("big_gin"), UnknownAction, "unknown action"),
    (DISCARDING, 2, Action("discard", "KD"), NoSuchSeat, "seats are 0 and 1"),
    (TAKEN, 0, Action("discard", "KH"), CannotDiscardTakenCard, "may not be discarded"),
    (DISCARDING, 0, Action("knock", "AH"), KnockTooHigh, "19 deadwood points"),
    (DISCARDING, 0, Action("gin", "KD"), NotGin, "10 deadwood points"),
]


@pytest.mark.parametrize(
    ("state", "seat", "action", "error", "message"),
    CASES,
    ids=[f"{case[3].__name__}-{case[2]}" for case in CASES],
)
def test_refused_action_raises_the_specific_error_and_changes_nothing(
    state: GameState, seat: int, action: Action, error: type[IllegalAction], message: str
) -> None:
    before = state.to_dict()
    with pytest.raises(error, match=message):
        apply(state, seat, action)
    assert state.to_dict() == before
    assert action not in (legal_actions(state, seat) if seat in (0, 1) else [])


def test_knock_too_high_names_the_deadwood() -> None:
    state = position(KNOCK_AT_11, DEFENDER_79, phase=Phase.DISCARD, turn=0)
    with pytest.raises(KnockTooHigh) as raised:
        apply(state, 0, Action("knock", "KD"))
    assert str(raised.value) == (
        "cannot knock discarding KD: 11 deadwood points would be left and the knock limit is 10"
    )


def test_no_actions_are_listed_for_the_seat_without_the_turn() -> None:
    assert legal_actions(START, START.dealer) == []
    assert legal_actions(DISCARDING, 1) == []
    assert legal_actions(DRAWING, 1) == []


def test_legal_actions_refuses_a_seat_that_does_not_exist() -> None:
    with pytest.raises(NoSuchSeat):
        legal_actions(START, 2)


def test_every_refusal_is_a_value_error_with_its_own_code() -> None:
    classes: list[type[IllegalAction]] = [IllegalAction, *IllegalAction.__subclasses__()]
    assert all(issubclass(cls, ValueError) for cls in classes)
    assert len({cls.code for cls in classes}) == len(classes)
    assert {MatchOver, NotGin, KnockTooHigh} <= set(classes)
