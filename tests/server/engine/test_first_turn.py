"""RULES.md, "The first turn"."""

import pytest

from server.engine import CannotDiscardTakenCard, Phase, WrongPhase, apply, legal_actions, new_match
from server.engine.actions import Action
from tests.server.engine.helpers import act, cards_of, kinds
from tests.support.seeds import seed_of

SEED = 31


def test_the_non_dealer_is_offered_the_upcard_first() -> None:
    state = new_match(seed_of(SEED))
    assert legal_actions(state, state.non_dealer) == [Action("take_upcard"), Action("pass")]
    assert legal_actions(state, state.dealer) == []


def test_the_dealer_is_offered_the_upcard_after_the_non_dealer_passed() -> None:
    state = act(new_match(seed_of(SEED)), new_match(seed_of(SEED)).non_dealer, "pass")
    assert state.phase is Phase.SECOND_OFFER
    assert state.turn == state.dealer
    assert legal_actions(state, state.dealer) == [Action("take_upcard"), Action("pass")]
    assert legal_actions(state, state.non_dealer) == []


def test_pass_pass_then_the_non_dealer_must_draw_from_the_stock() -> None:
    start = new_match(seed_of(SEED))
    state = act(start, start.non_dealer, "pass")
    state = act(state, start.dealer, "pass")
    assert state.phase is Phase.FIRST_DRAW
    assert state.turn == start.non_dealer
    assert legal_actions(state, start.non_dealer) == [Action("draw_stock")]
    assert legal_actions(state, start.dealer) == []
    with pytest.raises(WrongPhase, match="draw_discard"):
        apply(state, start.non_dealer, Action("draw_discard"))
    top = state.stock[-1]
    state = act(state, start.non_dealer, "draw_stock")
    assert top in state.hands[start.non_dealer]
    assert state.phase is Phase.DISCARD
    assert state.discard_pile == start.discard_pile  # the upcard stays on the pile


def test_after_pass_pass_the_non_dealer_may_discard_the_upcard_rank_freely() -> None:
    start = new_match(seed_of(SEED))
    state = act(start, start.non_dealer, "pass")
    state = act(state, start.dealer, "pass")
    state = act(state, start.non_dealer, "draw_stock")
    assert state.taken_card is None
    assert sorted(cards_of(legal_actions(state, start.non_dealer), "discard")) == sorted(
        state.hands[start.non_dealer]
    )
    state = act(state, start.non_dealer, "discard", state.hands[start.non_dealer][0])
    assert state.phase is Phase.DRAW
    assert state.turn == start.dealer


def test_non_dealer_takes_the_upcard_then_cannot_discard_it() -> None:
    start = new_match(seed_of(SEED))
    upcard = start.discard_pile[-1]
    state = act(start, start.non_dealer, "take_upcard")
    assert upcard in state.hands[start.non_dealer]
    assert state.discard_pile == ()
    assert state.phase is Phase.DISCARD
    assert state.turn == start.non_dealer
    assert state.taken_card == upcard
    actions = legal_actions(state, start.non_dealer)
    assert upcard not in cards_of(actions, "discard") + cards_of(actions, "knock")
    assert len(cards_of(actions, "discard")) == 10
    for kind in ("discard", "knock", "gin"):
        with pytest.raises(CannotDiscardTakenCard, match="taken from the discard pile"):
            apply(state, start.non_dealer, Action(kind, upcard))


def test_after_taking_the_upcard_and_discarding_play_goes_to_the_other_players_normal_turn() -> (
    None
):
    start = new_match(seed_of(SEED))
    state = act(start, start.non_dealer, "take_upcard")
    discard = cards_of(legal_actions(state, start.non_dealer), "discard")[0]
    state = act(state, start.non_dealer, "discard", discard)
    assert state.phase is Phase.DRAW
    assert state.turn == start.dealer
    assert state.discard_pile == (discard,)
    assert legal_actions(state, start.dealer) == [Action("draw_stock"), Action("draw_discard")]


def test_dealer_takes_the_upcard_after_the_non_dealer_passed() -> None:
    start = new_match(seed_of(SEED))
    upcard = start.discard_pile[-1]
    state = act(start, start.non_dealer, "pass")
    state = act(state, start.dealer, "take_upcard")
    assert upcard in state.hands[start.dealer]
    assert state.taken_card == upcard
    with pytest.raises(CannotDiscardTakenCard):
        apply(state, start.dealer, Action("discard", upcard))
    discard = cards_of(legal_actions(state, start.dealer), "discard")[0]
    state = act(state, start.dealer, "discard", discard)
    assert state.phase is Phase.DRAW
    assert state.turn == start.non_dealer


def test_taking_the_upcard_counts_as_a_draw_from_the_discard_pile() -> None:
    start = new_match(seed_of(SEED))
    assert act(start, start.non_dealer, "take_upcard").discard_draws == 1
    passed = act(start, start.non_dealer, "pass")
    assert act(passed, start.dealer, "take_upcard").discard_draws == 1


def test_the_first_turn_is_in_the_public_history() -> None:
    start = new_match(seed_of(SEED))
    upcard = start.discard_pile[-1]
    state = act(start, start.non_dealer, "pass")
    state = act(state, start.dealer, "take_upcard")
    discard = cards_of(legal_actions(state, start.dealer), "discard")[0]
    state = act(state, start.dealer, "discard", discard)
    assert [(m.seat, m.kind, m.card) for m in state.history] == [
        (start.non_dealer, "pass", None),
        (start.dealer, "take_upcard", upcard),
        (start.dealer, "discard", discard),
    ]
    assert kinds(legal_actions(state, start.non_dealer)) == ["draw_stock", "draw_discard"]
