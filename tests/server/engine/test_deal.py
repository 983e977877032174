from protocol.cards import DECK
from protocol.scoring import MatchRules
from server.engine import GameState, Phase, apply, deal_event, legal_actions, new_match, to_text
from server.engine.actions import Action
from tests.server.engine.helpers import act, position


def test_deal_gives_ten_cards_each_an_upcard_and_a_31_card_stock() -> None:
    state = new_match(5)
    assert [len(hand) for hand in state.hands] == [10, 10]
    assert len(state.discard_pile) == 1
    assert len(state.stock) == 31
    assert sorted([*state.hands[0], *state.hands[1], *state.discard_pile, *state.stock]) == sorted(
        DECK
    )


def test_a_new_match_starts_with_the_non_dealers_upcard_offer() -> None:
    state = new_match(5)
    assert state.phase is Phase.FIRST_OFFER
    assert state.turn == state.non_dealer == 1 - state.dealer
    assert state.hand_number == 1
    assert state.scores == (0, 0)
    assert state.results == ()
    assert state.history == ()
    assert state.taken_card is None
    assert state.discard_draws == 0


def test_same_seed_same_deal() -> None:
    assert new_match(2024) == new_match(2024)
    assert to_text(new_match(2024)) == to_text(new_match(2024))


def test_different_seeds_give_different_deals() -> None:
    deals = {new_match(seed).hands for seed in range(50)}
    assert len(deals) == 50


def test_first_dealer_is_random_from_the_seed() -> None:
    dealers = [new_match(seed).dealer for seed in range(100)]
    assert 20 < sum(dealers) < 80


def test_seed_7_deals_this_position() -> None:
    # Pins the generator, the shuffle and the dealing order: a change here changes every game.
    assert to_text(new_match(7)) == (
        "GR1 seed=7 rng=2344b9addb21344b rules=100 hand=1 dealer=1 phase=first_offer turn=0 "
        "scores=0,0 results=- hands=8C,9C,2D,5D,8D,6H,QH,4S,8S,KS|AC,2C,3C,TC,6D,7D,JD,4H,5S,JS "
        "stock=4D,QS,6C,JC,9H,3D,9D,QC,5H,7H,AD,KD,JH,2H,6S,5C,AS,9S,QD,KH,7S,AH,3S,TH,TD,3H,8H,"
        "2S,4C,KC,TS pile=7C taken=- draws=0 history=-"
    )


def test_new_match_keeps_the_rules() -> None:
    rules = MatchRules(target=150, game_bonus=True)
    assert new_match(1, rules).rules == rules


def test_deal_event_shows_the_whole_deal() -> None:
    state = new_match(9)
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
    state = new_match(11)
    dealers = [state.dealer]
    while len(dealers) < 6:
        seat = state.turn if state.turn is not None else 0
        actions = legal_actions(state, seat)
        action = actions[0]
        if state.phase is Phase.DRAW:
            action = Action("draw_stock")  # keeps the stock running down to a dead hand
        state, _ = apply(state, seat, action)
        if state.phase is Phase.FIRST_OFFER and not state.history:
            dealers.append(state.dealer)
    assert dealers == [dealers[0], 1 - dealers[0]] * 3


def test_each_hand_is_shuffled_from_the_stored_generator_state() -> None:
    over = _dead_hand_over(0)
    assert act(over, 0, "next_hand") == act(over, 1, "next_hand")
    assert act(over, 0, "next_hand").rng != over.rng
