"""Starting a match and dealing a hand."""

from __future__ import annotations

from protocol.cards import DECK, sort_cards
from protocol.melds import HAND_SIZE
from protocol.scoring import MatchRules
from server.engine.rng import below, check_seed, shuffled
from server.engine.state import GameState, HandRecord, Phase

DEFAULT_RULES = MatchRules()


def new_match(seed: int, rules: MatchRules = DEFAULT_RULES) -> GameState:
    """A new match with its first hand dealt; the first dealer is drawn from the seed."""
    rng = check_seed(seed)
    dealer, rng = below(rng, 2)
    return deal(
        seed=seed, rng=rng, rules=rules, hand_number=1, dealer=dealer, scores=(0, 0), results=()
    )


def deal(
    *,
    seed: int,
    rng: int,
    rules: MatchRules,
    hand_number: int,
    dealer: int,
    scores: tuple[int, int],
    results: tuple[HandRecord, ...],
) -> GameState:
    """Shuffle and deal one hand: ten cards each, one at a time from the non-dealer, then the
    upcard; the 31 cards left are the stock (its last card is drawn first)."""
    deck, rng = shuffled(DECK, rng)
    dealt = 2 * HAND_SIZE
    hands = [sort_cards(deck[0:dealt:2]), sort_cards(deck[1:dealt:2])]
    if dealer == 0:
        hands.reverse()
    return GameState(
        seed=seed,
        rng=rng,
        rules=rules,
        hand_number=hand_number,
        dealer=dealer,
        phase=Phase.FIRST_OFFER,
        turn=1 - dealer,
        hands=(hands[0], hands[1]),
        stock=deck[dealt + 1 :],
        discard_pile=(deck[dealt],),
        taken_card=None,
        discard_draws=0,
        scores=scores,
        results=results,
        history=(),
    )
