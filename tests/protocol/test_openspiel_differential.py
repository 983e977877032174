"""Differential test: our ``min_deadwood`` against OpenSpiel's C++ ``GinRummyUtils::MinDeadwood``.

OpenSpiel numbers cards suit-major with the suits in the order s c d h (``0`` is ``As``, ``13``
is ``Ac``), ours are suit-major in the order C D H S: the mapping goes through the card strings
and is tested on the whole deck. ``pyspiel`` is a declared dev dependency (the ``reference``
extra): if it cannot be imported this module fails at collection, it is never skipped.

For 10 cards both are exact and must agree. For 11 cards OpenSpiel takes one least-deadwood
arrangement of all 11 cards and drops its highest-ranked deadwood card, which is an upper bound
of the true minimum over the 11 discards but not always equal to it; wherever the two disagree,
ours must be the smaller and must equal the brute force over all discards.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pyspiel

from protocol.cards import DECK, card_value
from protocol.melds import min_deadwood
from tests.protocol import bruteforce as bf

UTILS = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)  # ranks, suits, hand size
SEED = 20_240_601
HANDS_PER_KIND = 10_000  # per hand kind below: 4 kinds, so 40,000 hands of each size


def to_openspiel(card: str) -> int:
    """Our ``"TD"`` is OpenSpiel's ``"Td"``: same rank letters, lower-case suit letter."""
    return int(UTILS.card_int(card[0] + card[1].lower()))


OPENSPIEL_INDEX: dict[str, int] = {card: to_openspiel(card) for card in DECK}


def openspiel_min_deadwood(cards: list[str]) -> int:
    return int(UTILS.min_deadwood([OPENSPIEL_INDEX[card] for card in cards]))


def test_card_mapping_is_a_bijection_that_keeps_rank_suit_and_value() -> None:
    assert sorted(OPENSPIEL_INDEX.values()) == list(range(52))
    suit_names = {"C": "c", "D": "d", "H": "h", "S": "s"}
    for card, index in OPENSPIEL_INDEX.items():
        assert UTILS.card_string(index) == card[0] + suit_names[card[1]]
        assert UTILS.card_rank(index) == "A23456789TJQK".index(card[0])
        assert UTILS.card_value(index) == card_value(card)
    # The suit order differs: OpenSpiel's 0 is the ace of spades, ours (DECK[0]) of clubs.
    assert UTILS.card_string(0) == "As" and DECK[0] == "AC"
    assert OPENSPIEL_INDEX["AS"] == 0 and OPENSPIEL_INDEX["AC"] == 13
    # Same suit-major layout: a run is consecutive indices on both sides.
    assert [OPENSPIEL_INDEX[c] for c in ("5H", "6H", "7H")] == [43, 44, 45]


def _uniform(rng: random.Random, size: int) -> list[str]:
    return rng.sample(DECK, size)


def _few_suits(rng: random.Random, size: int) -> list[str]:
    suits = rng.sample("CDHS", rng.choice((1, 2, 2)))
    width = min(13, max(-(-size // len(suits)) + rng.randint(0, 3), 4))
    low = rng.randint(0, 13 - width)
    pool = [r + s for s in suits for r in "A23456789TJQK"[low : low + width]]
    return _fill(rng, rng.sample(pool, min(size, len(pool))), size)


def _adjacent_ranks(rng: random.Random, size: int) -> list[str]:
    width = rng.randint(3, 5)
    low = rng.randint(0, 13 - width)
    pool = [r + s for s in "CDHS" for r in "A23456789TJQK"[low : low + width]]
    return _fill(rng, rng.sample(pool, min(size, len(pool))), size)


def _structured(rng: random.Random, size: int) -> list[str]:
    """Whole melds (runs of 3-6, sets of 3-4) dealt until the hand is full."""
    cards: list[str] = []
    while len(cards) < size:
        if rng.random() < 0.5:
            length = rng.randint(3, 6)
            low = rng.randint(0, 13 - length)
            suit = rng.choice("CDHS")
            meld = [r + suit for r in "A23456789TJQK"[low : low + length]]
        else:
            rank = rng.choice("A23456789TJQK")
            meld = [rank + s for s in rng.sample("CDHS", rng.randint(3, 4))]
        cards += [card for card in meld if card not in cards][: size - len(cards)]
    return cards


def _fill(rng: random.Random, cards: list[str], size: int) -> list[str]:
    rest = [card for card in DECK if card not in cards]
    return cards + rng.sample(rest, size - len(cards))


HAND_KINDS: dict[str, Callable[[random.Random, int], list[str]]] = {
    "uniform": _uniform,
    "few-suits": _few_suits,
    "adjacent-ranks": _adjacent_ranks,
    "structured": _structured,
}


def _hands(size: int) -> list[list[str]]:
    rng = random.Random(SEED + size)
    hands = []
    for make in HAND_KINDS.values():
        for _ in range(HANDS_PER_KIND):
            hand = make(rng, size)
            assert len(hand) == size == len(set(hand))
            hands.append(hand)
    return hands


def test_ten_card_hands_agree_with_openspiel() -> None:
    hands = _hands(10)
    mismatches = [
        (hand, ours, theirs)
        for hand in hands
        if (ours := min_deadwood(hand)) != (theirs := openspiel_min_deadwood(hand))
    ]
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:3]}"
    # The sample is meaningful: gin, knockable and high hands, and every value is a real minimum.
    values = [min_deadwood(hand) for hand in hands]
    assert values.count(0) > 100
    assert sum(1 for v in values if 0 < v <= 10) > 1000
    assert max(values) > 60


def test_eleven_card_hands_where_openspiel_differs_ours_is_the_true_minimum() -> None:
    hands = _hands(11)
    disagreements = []
    for hand in hands:
        ours, theirs = min_deadwood(hand), openspiel_min_deadwood(hand)
        if ours != theirs:
            disagreements.append((hand, ours, theirs))
    for hand, ours, theirs in disagreements:
        # OpenSpiel's value is the deadwood of some 10 cards, so never below the true minimum.
        assert ours < theirs, (hand, ours, theirs)
        assert ours == bf.min_after_discard(hand), (hand, ours, theirs)
    print(f"\nOpenSpiel 11-card disagreements: {len(disagreements)} of {len(hands)} hands")
    for hand, ours, theirs in disagreements[:3]:
        print(f"  {' '.join(sorted(hand, key=DECK.index))}: ours {ours}, OpenSpiel {theirs}")


def test_known_eleven_card_hand_where_dropping_the_top_deadwood_card_is_not_best() -> None:
    # The least-deadwood arrangement of all 11 cards is AS 2S 3S, 2C 2D 2H, 4C 4D 4S with AC AD
    # left (2): dropping an ace leaves 1, which is what OpenSpiel answers. Discarding the melded
    # 3S instead leaves aces, four 2s and three 4s: gin.
    hand = ["AC", "2C", "4C", "AD", "2D", "4D", "2H", "AS", "2S", "3S", "4S"]
    assert openspiel_min_deadwood(hand) == 1
    assert min_deadwood(hand) == 0 == bf.min_after_discard(hand)
