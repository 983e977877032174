"""RULES.md, "A normal turn": drawing and discarding."""

import pytest

from server.engine import CannotDiscardTakenCard, Phase, apply, legal_actions
from server.engine.actions import Action
from tests.server.engine.helpers import act, act_with_events, cards_of, kinds, position

HAND = "AH 2S 3H 4S 4D 5D 6D 7H 7S KD"
OTHER = "8H 9S TD JC QH KS 2D 5C 6S 9C"


def test_a_normal_turn_starts_with_a_draw_from_the_stock_or_the_discard_pile() -> None:
    state = position(HAND, OTHER, pile="KH", turn=0)
    assert legal_actions(state, 0) == [Action("draw_stock"), Action("draw_discard")]
    assert legal_actions(state, 1) == []


def test_draw_from_the_stock_takes_its_top_card() -> None:
    state = position(HAND, OTHER, pile="KH", stock="QC AC", turn=0)
    state, events = act_with_events(state, 0, "draw_stock")
    assert "QC" in state.hands[0]
    assert state.stock[-1] == "AC"
    assert state.taken_card is None
    assert state.discard_draws == 0
    assert state.phase is Phase.DISCARD
    assert events == [{"type": "draw", "seat": 0, "source": "stock", "card": "QC"}]
    assert (state.history[-1].kind, state.history[-1].card) == ("draw_stock", None)


def test_draw_from_the_discard_pile_takes_its_top_card() -> None:
    state = position(HAND, OTHER, pile="2C KH", turn=0, discard_draws=3)
    state, events = act_with_events(state, 0, "draw_discard")
    assert "KH" in state.hands[0]
    assert state.discard_pile[-1] == "2C"
    assert state.taken_card == "KH"
    assert state.discard_draws == 4
    assert events == [{"type": "draw", "seat": 0, "source": "discard", "card": "KH"}]
    assert (state.history[-1].kind, state.history[-1].card) == ("draw_discard", "KH")


def test_the_card_taken_from_the_discard_pile_cannot_be_discarded_in_the_same_turn() -> None:
    state = act(position(HAND, OTHER, pile="KH", turn=0), 0, "draw_discard")
    actions = legal_actions(state, 0)
    assert "KH" not in cards_of(actions, "discard")
    with pytest.raises(CannotDiscardTakenCard, match="KH"):
        apply(state, 0, Action("discard", "KH"))
    with pytest.raises(CannotDiscardTakenCard):
        apply(state, 0, Action("knock", "KH"))


def test_another_card_of_the_taken_cards_rank_may_be_discarded() -> None:
    state = act(position(HAND, OTHER, pile="KH", turn=0), 0, "draw_discard")
    assert "KD" in cards_of(legal_actions(state, 0), "discard")
    state = act(state, 0, "discard", "KD")
    assert state.discard_pile[-1] == "KD"
    assert "KH" in state.hands[0]


def test_a_card_drawn_from_the_stock_may_be_discarded_at_once() -> None:
    state = act(position(HAND, OTHER, pile="KH", stock="QC", turn=0), 0, "draw_stock")
    state = act(state, 0, "discard", "QC")
    assert state.discard_pile[-1] == "QC"


def test_after_a_discard_the_other_player_draws() -> None:
    state = act(position(HAND, OTHER, pile="KH", turn=0), 0, "draw_stock")
    state, events = act_with_events(state, 0, "discard", "KD")
    assert state.phase is Phase.DRAW
    assert state.turn == 1
    assert state.taken_card is None
    assert events == [{"type": "discard", "seat": 0, "card": "KD"}]
    assert kinds(legal_actions(state, 1)) == ["draw_stock", "draw_discard"]


def test_every_card_of_the_hand_but_the_taken_one_is_a_legal_discard() -> None:
    state = act(position(HAND, OTHER, pile="KH", turn=0), 0, "draw_discard")
    discards = cards_of(legal_actions(state, 0), "discard")
    assert discards == [card for card in state.hands[0] if card != "KH"]


def test_the_public_history_hides_the_card_drawn_from_the_stock() -> None:
    state = position(HAND, OTHER, pile="KH", stock="QC", turn=0)
    state = act(act(state, 0, "draw_stock"), 0, "discard", "QC")
    state = act(act(state, 1, "draw_discard"), 1, "discard", "2D")
    assert [(m.seat, m.kind, m.card) for m in state.history] == [
        (0, "draw_stock", None),
        (0, "discard", "QC"),
        (1, "draw_discard", "QC"),
        (1, "discard", "2D"),
    ]
