import pytest

from protocol.cards import DECK
from protocol.scoring import MatchRules
from server.engine import GameState, Phase, apply, deal_event, legal_actions, new_match, to_text
from server.engine.actions import Action
from tests.server.engine.helpers import act, position
from tests.support.seeds import seed_of


def test_deal_gives_ten_cards_each_an_upcard_and_a_31_card_stock() -> None:
    state = new_match(seed_of(5))
    assert [len(hand) for hand in state.hands] == [10, 10]
    assert len(state.discard_pile) == 1
    assert len(state.stock) == 31
    assert sorted([*state.hands[0], *state.hands[1], *state.discard_pile, *state.stock]) == sorted(
        DECK
    )


def test_a_new_match_starts_with_the_non_dealers_upcard_offer() -> None:
    state = new_match(seed_of(5))
    assert state.phase is Phase.FIRST_OFFER
    assert state.turn == state.non_dealer == 1 - state.dealer
    assert state.hand_number == 1
    assert state.scores == (0, 0)
    assert state.results == ()
    assert state.history == ()
    assert state.taken_card is None
    assert state.discard_draws == 0


def test_same_seed_same_deal() -> None:
    assert new_match(seed_of(2024)) == new_match(seed_of(2024))
    assert to_text(new_match(seed_of(2024))) == to_text(new_match(seed_of(2024)))


def test_different_seeds_give_different_deals() -> None:
    deals = {new_match(seed_of(seed)).hands for seed in range(50)}
    assert len(deals) == 50


def test_first_dealer_is_random_from_the_seed() -> None:
    dealers = [new_match(seed_of(seed)).dealer for seed in range(100)]
    assert 20 < sum(dealers) < 80


def test_seed_7_deals_this_position() -> None:
    # Pins the generator, the shuffle and the dealing order: a change here changes every game.
    assert to_text(new_match(bytes(range(32)))) == (
        "GR2 rules=100 hand=1 dealer=0 phase=first_offer turn=1 "
        "scores=0,0 results=- hands=AC,QC,4D,5D,7D,AH,6H,8H,2S,7S|5C,7C,2D,3D,TD,JD,3H,9H,TS,QS "
        "stock=4S,TC,AS,2C,4C,QD,8D,KC,5H,9C,4H,QH,3S,6C,7H,9S,8C,KD,JS,6D,9D,5S,TH,KH,6S,JH,3C,"
        "JC,KS,8S,AD pile=2H taken=- draws=0 history=-"
    )


def test_new_match_keeps_the_rules() -> None:
    rules = MatchRules(target=150, game_bonus=True)
    assert new_match(seed_of(1), rules).rules == rules


def test_deal_event_shows_the_whole_deal() -> None:
    state = new_match(seed_of(9))
    event = deal_event(state)
    assert event == {
        "type": "deal",
        "hand": 1,
        "dealer": state.dealer,
        "hands": [list(state.hands[0]), list(state.hands[1])],
        "upcard": state.discard_pile[0],
        "stock": list(state.stock),
        "scores": [0, 0],
    }


def _dead_hand_over(dealer: int) -> GameState:
    # Seat `turn` draws the third-to-last card and discards: a dead hand.
    state = position(
        "AH 3S 5H 7S 9H JC KD 2C 4D 6C",
        "AD 3C 5D 7C 9D JH KH 2H 4S 6S",
        pile="QC",
        stock_size=3,
        dealer=dealer,
        turn=1 - dealer,
    )
    state = act(state, 1 - dealer, "draw_stock")
    state = act(state, 1 - dealer, "discard", state.hands[1 - dealer][0])
    assert state.phase is Phase.HAND_OVER
    return state


def test_deal_passes_to_the_other_player_after_a_dead_hand() -> None:
    for dealer in (0, 1):
        over = _dead_hand_over(dealer)
        assert over.results[-1].kind == "dead"
        for seat in (0, 1):
            following = act(over, seat, "next_hand")
            assert following.dealer == 1 - dealer
            assert following.turn == dealer  # the new non-dealer is offered the upcard
            assert following.phase is Phase.FIRST_OFFER
            assert following.hand_number == over.hand_number + 1


def test_deal_passes_to_the_other_player_after_a_scored_hand() -> None:
    state = position(
        "AH 2S 3H 4S 4D 5D 6D 7H 7S 7C KD",
        "8H 9S TD JC QH KS 2D 5C 6S 9C",
        phase=Phase.DISCARD,
        turn=0,
        dealer=0,
    )
    over = act(state, 0, "knock", "KD")
    assert over.results[-1].kind == "knock"
    following = act(over, 1, "next_hand")
    assert following.dealer == 1
    assert following.turn == 0


def test_dealers_alternate_over_many_hands() -> None:
    state = new_match(seed_of(11))
    dealers = [state.dealer]
    while len(dealers) < 6:
        seat = state.turn if state.turn is not None else 0
        actions = legal_actions(state, seat)
        action = actions[0]
        if state.phase is Phase.DRAW:
            action = Action("draw_stock")  # keeps the stock running down to a dead hand
        state, _ = apply(state, seat, action, seed_of(len(dealers)))
        if state.phase is Phase.FIRST_OFFER and not state.history:
            dealers.append(state.dealer)
    assert dealers == [dealers[0], 1 - dealers[0]] * 3


def test_each_hand_is_dealt_from_the_seed_passed_with_next_hand() -> None:
    over = _dead_hand_over(0)
    same = [apply(over, seat, Action("next_hand"), seed_of(1))[0] for seat in (0, 1)]
    assert same[0] == same[1]
    other = apply(over, 0, Action("next_hand"), seed_of(2))[0]
    assert other.hands != same[0].hands
    assert other.dealer == same[0].dealer  # the deal passes whatever the seed


def test_next_hand_without_a_seed_is_refused() -> None:
    over = _dead_hand_over(0)
    with pytest.raises(ValueError, match="pass its seed"):
        apply(over, 0, Action("next_hand"))


def test_the_same_moves_deal_another_second_hand_unless_given_the_same_seed() -> None:
    """A replayed match: the same first-hand seed and the same moves give the same hand 1;
    hand 2 is a function of the seed injected with ``next_hand`` and nothing else."""

    def second_hand(hand_2_seed: bytes) -> GameState:
        state = new_match(seed_of(11))
        while state.phase is not Phase.HAND_OVER:
            seat = state.turn if state.turn is not None else 0
            actions = legal_actions(state, seat)
            action = Action("draw_stock") if state.phase is Phase.DRAW else actions[0]
            state, _ = apply(state, seat, action)
        return apply(state, 0, Action("next_hand"), hand_2_seed)[0]

    assert second_hand(seed_of(100)) == second_hand(seed_of(100))
    seconds = {second_hand(seed_of(n)).hands for n in range(100, 120)}
    assert len(seconds) == 20
