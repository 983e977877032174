"""Property tests: the meld solver against the independent brute force of ``bruteforce.py``.

Hands come from several strategies: uniform over the deck, and meld-rich ones (one or two suits
over a narrow window of ranks, whole ranks of four cards next to each other, the ranks around
the ace where a wrap-around run would be tempting).

The number of examples comes from a Hypothesis profile registered here and applied to these
tests only (the rest of the suite keeps its own settings): ``meld-dev`` by default (300 examples
per property, a few seconds in all), ``meld-thorough`` (3,000) with
``MELD_HYPOTHESIS_PROFILE=meld-thorough``. There is no per-example deadline: the brute force is
slow by design.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.cards import to_mask
from protocol.melds import (
    Arrangement,
    all_best_arrangements,
    best_arrangement,
    best_discards,
    best_layoffs,
    is_meld,
    knocker_arrangement,
    min_deadwood,
    min_deadwood_after_discard_mask,
    min_deadwood_mask,
)
from protocol.scoring import score_hand
from tests.protocol import bruteforce as bf

settings.register_profile("meld-dev", max_examples=300, deadline=None)
settings.register_profile("meld-thorough", max_examples=3000, deadline=None)
PROFILE = settings.get_profile(os.environ.get("MELD_HYPOTHESIS_PROFILE", "meld-dev"))

RANKS = bf.RANK_ORDER
SUITS = bf.SUIT_ORDER
DECK = bf.ALL_CARDS


# --- strategies -----------------------------------------------------------------------------


def some(items: Sequence[str], count: int) -> st.SearchStrategy[list[str]]:
    """``count`` distinct items in random order (drawing only those, not a whole permutation)."""
    if count == 0:
        return st.just([])
    return st.lists(st.sampled_from(items), min_size=count, max_size=count, unique=True)


@st.composite
def card_pools(draw: st.DrawFn) -> list[str]:
    """A pool of cards to deal a hand from: the whole deck, or a meld-rich corner of it."""
    kind = draw(st.sampled_from(["uniform", "narrow", "ranks", "around-ace", "mixed"]))
    if kind == "uniform":
        return list(DECK)
    if kind == "narrow":  # one or two suits, a window of 4 to 8 adjacent ranks
        suits = draw(st.lists(st.sampled_from(SUITS), min_size=1, max_size=2, unique=True))
        width = draw(st.integers(4, 8))
        low = draw(st.integers(0, 13 - width))
        return [r + s for s in suits for r in RANKS[low : low + width]]
    if kind == "ranks":  # 2 to 4 adjacent ranks in every suit: sets, and runs across them
        width = draw(st.integers(2, 4))
        low = draw(st.integers(0, 13 - width))
        return [r + s for s in SUITS for r in RANKS[low : low + width]]
    if kind == "around-ace":  # J Q K A 2 3: QKA and KA2 are not runs
        suits = draw(st.lists(st.sampled_from(SUITS), min_size=1, max_size=3, unique=True))
        return [r + s for s in suits for r in "JQKA23"]
    width = draw(st.integers(3, 5))
    low = draw(st.integers(0, 13 - width))
    suit = draw(st.sampled_from(SUITS))
    window = [r + suit for r in RANKS[low : low + width]]
    rank = draw(st.sampled_from(RANKS[low : low + width]))
    return sorted(set(window) | {rank + s for s in SUITS})


@st.composite
def hands(draw: st.DrawFn, min_size: int = 0, max_size: int = 10) -> list[str]:
    size = draw(st.integers(min_size, max_size) | st.just(max_size))
    pool = draw(card_pools())
    cards = draw(some(pool, min(size, len(pool))))
    if len(cards) < size:
        rest = [card for card in DECK if card not in pool]
        cards += draw(some(rest, size - len(cards)))
    return cards


@st.composite
def melds(draw: st.DrawFn) -> list[str]:
    """One meld: a run of 3 to 6 cards or a set of 3 or 4."""
    if draw(st.booleans()):
        suit = draw(st.sampled_from(SUITS))
        length = draw(st.integers(3, 6))
        low = draw(st.integers(0, 13 - length))
        return [r + suit for r in RANKS[low : low + length]]
    rank = draw(st.sampled_from(RANKS))
    size = draw(st.integers(3, 4))
    return [rank + s for s in draw(st.permutations(SUITS))[:size]]


def _neighbours(cards: Sequence[str]) -> list[str]:
    """Cards that could interact with these: same rank, or same suit within two ranks."""
    near = set()
    for card in cards:
        rank = RANKS.index(card[0])
        near |= {card[0] + s for s in SUITS}
        near |= {RANKS[r] + card[1] for r in range(max(rank - 2, 0), min(rank + 3, 13))}
    return sorted(near - set(cards))


def _reaches(meld: Sequence[str]) -> list[str]:
    """Cards that lay off onto a meld directly or by a chain of two: the missing suits of a
    set, or the two cards past each end of a run."""
    ranks = sorted(RANKS.index(card[0]) for card in meld)
    if ranks[0] == ranks[-1]:
        return [meld[0][0] + s for s in SUITS if meld[0][0] + s not in meld]
    suit = meld[0][1]
    ends = [ranks[0] - 2, ranks[0] - 1, ranks[-1] + 1, ranks[-1] + 2]
    return [RANKS[r] + suit for r in ends if 0 <= r < 13]


@st.composite
def defender_cards(
    draw: st.DrawFn, knocker_melds: Sequence[Sequence[str]], taken: set[str], size: int
) -> list[str]:
    """``size`` cards not in ``taken``: some that reach the melds, some near them, the rest
    from the deck."""
    reach = sorted({c for meld in knocker_melds for c in _reaches(meld)} - taken)
    most = min(size, len(reach))
    cards = draw(some(reach, draw(st.integers(0, most) | st.just(most))))
    near = [c for c in _neighbours(sorted(taken)) if c not in cards and c not in taken]
    cards += draw(some(near, draw(st.integers(0, min(size - len(cards), len(near))))))
    rest = [c for c in DECK if c not in taken and c not in cards]
    return cards + draw(some(rest, size - len(cards)))


@st.composite
def knocker_melds_and_defender(
    draw: st.DrawFn, max_defender: int = 10
) -> tuple[list[list[str]], list[str]]:
    """1 to 3 disjoint knocker melds, and a defender hand drawn mostly from cards next to them."""
    chosen: list[list[str]] = []
    used: set[str] = set()
    for meld in draw(st.lists(melds(), min_size=1, max_size=3)):
        if not used & set(meld) and len(used) + len(meld) <= 10:
            chosen.append(meld)
            used |= set(meld)
    size = draw(st.integers(0, max_defender) | st.just(max_defender))
    return chosen, draw(defender_cards(chosen, used, size))


@st.composite
def tie_gadgets(draw: st.DrawFn) -> list[list[str]]:
    """A low run whose middle card also makes a set, e.g. 2H 3H 4H 3C 3D: melding the run
    leaves 3C 3D, melding the set leaves 2H 4H, the same points. The knocker then has two
    optimal arrangements with different layoff spots (returned as the run and the set)."""
    low = draw(st.integers(0, 3))
    suit = draw(st.sampled_from(SUITS))
    middle = RANKS[low + 1]
    others = [s for s in draw(st.permutations(SUITS)) if s != suit][:2]
    run = [RANKS[r] + suit for r in range(low, low + 3)]
    return [run, [middle + s for s in (suit, *others)]]


@st.composite
def knock_deals(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """A knocker's 10 cards built from melds plus low cards (mostly able to knock), sometimes
    with two equally good arrangements, and a defender's 10 cards drawn mostly from cards that
    lay off onto the knocker's possible melds."""
    knocker_melds, _ = draw(knocker_melds_and_defender(max_defender=0))
    if draw(st.booleans()):
        gadget = draw(tie_gadgets())
        cards = {c for meld in gadget for c in meld}
        knocker_melds = [m for m in knocker_melds if not cards & set(m)]
        knocker_melds = [*gadget, *knocker_melds][:3]
    knocker = sorted({card for meld in knocker_melds for card in meld})[:10]
    low_cards = [r + s for r in "A234" for s in SUITS if r + s not in knocker]
    knocker += draw(some(low_cards, 10 - len(knocker)))
    return knocker, draw(defender_cards(knocker_melds, set(knocker), 10))


# --- helpers --------------------------------------------------------------------------------


def family(arrangement: Arrangement) -> frozenset[frozenset[str]]:
    return frozenset(frozenset(meld) for meld in arrangement.melds)


def assert_valid_arrangement(arrangement: Arrangement, cards: Sequence[str]) -> None:
    """Melds are melds, pairwise disjoint, and with the deadwood they are exactly the cards."""
    melded: list[str] = [card for meld in arrangement.melds for card in meld]
    for meld in arrangement.melds:
        assert bf.is_meld(meld), f"not a meld: {meld}"
    assert len(melded) == len(set(melded)), f"melds overlap: {arrangement.melds}"
    assert not set(melded) & set(arrangement.deadwood)
    assert len(melded) + len(arrangement.deadwood) == len(cards)
    assert set(melded) | set(arrangement.deadwood) == set(cards)
    assert arrangement.deadwood_points == bf.points(arrangement.deadwood)


# --- arrangements ---------------------------------------------------------------------------


@PROFILE
@given(hands(max_size=10))
def test_best_arrangement_is_exact_and_valid(cards: list[str]) -> None:
    expected = bf.min_deadwood(cards)
    arrangement = best_arrangement(cards)
    assert arrangement.deadwood_points == expected
    assert_valid_arrangement(arrangement, cards)
    assert min_deadwood(cards) == expected
    assert min_deadwood_mask(to_mask(cards)) == expected


@PROFILE
@given(hands(min_size=11, max_size=11))
def test_eleven_cards_minimum_over_all_discards(cards: list[str]) -> None:
    by_discard = bf.deadwood_after_each_discard(cards)
    expected = min(by_discard.values())
    assert min_deadwood(cards) == expected
    assert min_deadwood_after_discard_mask(to_mask(cards)) == expected

    discards = best_discards(cards)
    assert sorted(d.card for d in discards) == sorted(cards)
    for discard in discards:
        assert discard.deadwood_points == by_discard[discard.card], discard.card
        assert_valid_arrangement(discard.arrangement, [c for c in cards if c != discard.card])
        assert discard.can_knock == (by_discard[discard.card] <= 10)
        assert discard.is_gin == (by_discard[discard.card] == 0)
    keys = [(d.deadwood_points, DECK.index(d.card)) for d in discards]
    assert keys == sorted(keys)
    assert discards[0].deadwood_points == expected


@PROFILE
@given(hands(max_size=10))
def test_all_best_arrangements_are_exactly_the_optimal_partitions(cards: list[str]) -> None:
    found = all_best_arrangements(cards)
    target = bf.min_deadwood(cards)
    for arrangement in found:
        assert arrangement.deadwood_points == target
        assert_valid_arrangement(arrangement, cards)
    families = [family(a) for a in found]
    assert len(families) == len(set(families)), "an arrangement is listed twice"
    expected = bf.best_families(cards)
    assert set(families) == expected
    assert family(best_arrangement(cards)) in expected


@PROFILE
@given(hands(max_size=6))
def test_is_meld_matches_the_rules(cards: list[str]) -> None:
    assert is_meld(to_mask(cards)) == bf.is_meld(cards)


def test_every_meld_of_the_deck_is_recognised() -> None:
    # Exhaustive over the deck: 13 * 5 sets and sum over suits of the runs of each length.
    expected = bf.melds_in(DECK)
    assert len(expected) == 13 * 5 + 4 * sum(13 - length + 1 for length in range(3, 14))
    assert all(is_meld(to_mask(meld)) for meld in expected)
    for suit in SUITS:
        assert not is_meld(to_mask(["Q" + suit, "K" + suit, "A" + suit]))
        assert not is_meld(to_mask(["K" + suit, "A" + suit, "2" + suit]))


# --- layoffs and the knock ------------------------------------------------------------------


def replay_layoffs(
    knocker_melds: Sequence[Sequence[str]],
    defender: Sequence[str],
    layoffs: Sequence[tuple[str, int]],
) -> set[str]:
    """Lay the cards off one by one, each onto its meld as extended so far; the laid cards."""
    grown = [set(meld) for meld in knocker_melds]
    laid: set[str] = set()
    for card, index in layoffs:
        assert card in defender and card not in laid, card
        assert 0 <= index < len(grown)
        assert bf.is_meld(grown[index] | {card}), f"{card} does not fit {sorted(grown[index])}"
        grown[index].add(card)
        laid.add(card)
    return laid


@PROFILE
@given(knocker_melds_and_defender())
def test_best_layoffs_is_optimal_and_legal(deal: tuple[list[list[str]], list[str]]) -> None:
    knocker_melds, defender = deal
    expected = bf.defend(knocker_melds, defender)
    result = best_layoffs(knocker_melds, defender)
    assert result.deadwood_points == expected.deadwood
    laid = replay_layoffs(knocker_melds, defender, [(x.card, x.meld) for x in result.layoffs])
    assert frozenset(laid) in expected.optimal_layoff_sets
    # Documented tie-break of best_layoffs: on equal points, the fewest layoffs.
    assert len(laid) == expected.fewest_layoffs
    rest = [card for card in defender if card not in laid]
    assert_valid_arrangement(result.arrangement, rest)
    assert result.arrangement.deadwood_points == bf.min_deadwood(rest)


@PROFILE
@given(knock_deals())
def test_score_hand_matches_the_rules(deal: tuple[list[str], list[str]]) -> None:
    knocker, defender = deal
    expected = bf.score(knocker, defender)
    if expected is None:
        with pytest.raises(ValueError, match="cannot knock"):
            score_hand(knocker, defender)
        return
    result = score_hand(knocker, defender)
    assert (result.kind, result.points) == (expected.kind, expected.points)
    assert result.knocker_deadwood == expected.knocker_deadwood
    assert result.defender_deadwood == expected.defender_deadwood
    assert result.winner == ("defender" if expected.kind == "undercut" else "knocker")
    if expected.kind == "gin":
        assert result.layoffs == ()
        return
    arrangement = knocker_arrangement(knocker, defender)
    assert family(arrangement) in bf.best_families(knocker)
    assert bf.defend(arrangement.melds, defender).deadwood == expected.defender_deadwood
    laid = replay_layoffs(arrangement.melds, defender, [(x.card, x.meld) for x in result.layoffs])
    rest = [card for card in defender if card not in laid]
    assert set(result.defender_deadwood_cards) | {
        card for meld in result.defender_melds for card in meld
    } == set(rest)
