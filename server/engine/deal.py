"""Starting a match and dealing a hand, each from the seed its caller drew for that deal."""

from __future__ import annotations

from protocol.cards import DECK, sort_cards
from protocol.melds import HAND_SIZE
from protocol.scoring import MatchRules
from server.engine.shuffle import check_seed, coin, shuffled
from server.engine.state import GameState, HandRecord, Phase

DEFAULT_RULES = MatchRules()


def new_match(seed: bytes, rules: MatchRules = DEFAULT_RULES) -> GameState:
    """A new match with its first hand dealt from ``seed``; the first dealer is drawn from it."""
    return deal(
        seed=seed,
        rules=rules,
        hand_number=1,
        dealer=coin(check_seed(seed)),
        scores=(0, 0),
        results=(),
    )


def deal(
    *,
    seed: bytes,
    rules: MatchRules,
    hand_number: int,
    dealer: int,
    scores: tuple[int, int],
    results: tuple[HandRecord, ...],
) -> GameState:
    """Shuffle and deal one hand: ten cards each, one at a time from the non-dealer, then the
    upcard; the 31 cards left are the stock (its last card is drawn first)."""
    deck = shuffled(DECK, seed)
    dealt = 2 * HAND_SIZE
    hands = [sort_cards(deck[0:dealt:2]), sort_cards(deck[1:dealt:2])]
    if dealer == 0:
        hands.reverse()
    return GameState(
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
