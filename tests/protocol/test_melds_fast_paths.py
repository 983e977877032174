"""The table-driven fast paths of ``protocol.cards`` and ``protocol.melds`` against the
straightforward code they replaced (kept here as the reference): identical results, tie-breaks
included, on hypothesis hands (meld-rich ones too) and on seeded random masks."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import melds, scoring
from protocol.cards import (
    DECK,
    FULL_DECK_MASK,
    INDEX_VALUES,
    card_index,
    from_mask,
    iter_indices,
    mask_points,
    sort_cards,
    to_mask,
)
from protocol.melds import (
    Arrangement,
    best_arrangement_mask,
    min_deadwood_after_discard_mask,
    min_deadwood_mask,
)
from protocol.scoring import score_hand
from tests.protocol.test_melds_bruteforce import hands

# --- the reference: the code before the tables ----------------------------------------------


def ref_from_mask(mask: int) -> tuple[str, ...]:
    return tuple(DECK[i] for i in iter_indices(mask))


def ref_mask_points(mask: int) -> int:
    return sum(INDEX_VALUES[i] for i in iter_indices(mask))


def ref_sort_cards(cards: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(cards, key=card_index))


def ref_set_combinations(mask: int) -> Iterator[int]:
    options = melds._set_options(mask)
    if not options:
        yield 0
        return
    for combo in product(*options):
        yield sum(combo)


def ref_min_deadwood_after_discard(mask: int) -> int:
    best = melds._NO_HAND
    for sets in ref_set_combinations(mask):
        rest = mask & ~sets
        suits = (rest & 0x1FFF, (rest >> 13) & 0x1FFF, (rest >> 26) & 0x1FFF, rest >> 39)
        kept = [melds._RUN_POINTS[s] for s in suits]
        total = sum(kept)
        for suit_pattern, suit_points in zip(suits, kept, strict=True):
            if suit_pattern:
                after = melds._RUN_POINTS_AFTER_DISCARD[suit_pattern]
                best = min(best, total - suit_points + after)
    return best


def ref_runs_of(rest: int) -> tuple[list[int], int]:
    runs = []
    deadwood = 0
    for suit in range(4):
        pattern = (rest >> (suit * 13)) & 0x1FFF
        while pattern:
            low = (pattern & -pattern).bit_length() - 1
            length = melds._RUN_CHOICE[pattern]
            if length:
                run = ((1 << length) - 1) << low
                runs.append(run << (suit * 13))
                pattern &= ~run
            else:
                deadwood |= 1 << (suit * 13 + low)
                pattern &= pattern - 1
    return runs, deadwood


def ref_best_arrangement(mask: int) -> Arrangement:
    best_sets, best_points = 0, melds._NO_HAND
    for sets in ref_set_combinations(mask):
        points = melds._runs_points(mask & ~sets)
        if points < best_points:
            best_sets, best_points = sets, points
    runs, deadwood = ref_runs_of(mask & ~best_sets)
    split = [best_sets & rank_mask for rank_mask in melds._RANK_MASKS if best_sets & rank_mask]
    ordered = sorted([*split, *runs], key=lambda meld: (meld & -meld).bit_length())
    return Arrangement(
        melds=tuple(ref_from_mask(meld) for meld in ordered),
        deadwood=ref_from_mask(deadwood),
        deadwood_points=ref_mask_points(deadwood),
    )


# --- the checks -------------------------------------------------------------------------------


def check_mask(mask: int) -> None:
    assert from_mask(mask) == ref_from_mask(mask)
    assert mask_points(mask) == ref_mask_points(mask)
    assert best_arrangement_mask(mask) == ref_best_arrangement(mask)
    assert min_deadwood_after_discard_mask(mask) == ref_min_deadwood_after_discard(mask)
    cards = list(from_mask(mask))
    random.Random(mask).shuffle(cards)
    assert sort_cards(cards) == ref_sort_cards(cards)
    assert sort_cards(iter(cards)) == ref_sort_cards(cards)


@settings(max_examples=800, deadline=None)
@given(hands(max_size=11))
def test_hands_match_the_reference(cards: list[str]) -> None:
    check_mask(to_mask(cards))


def _meld_rich_mask(rnd: random.Random) -> int:
    """Cards from a few adjacent ranks of a few suits: many sets and runs that overlap."""
    width = rnd.randint(3, 7)
    low = rnd.randint(0, 13 - width)
    suits = rnd.sample(range(4), rnd.randint(2, 4))
    pool = [suit * 13 + rank for suit in suits for rank in range(low, low + width)]
    chosen = rnd.sample(pool, min(len(pool), rnd.randint(3, 11)))
    return sum(1 << index for index in chosen)


def test_seeded_masks_match_the_reference() -> None:
    rnd = random.Random(20240611)
    for _ in range(4000):
        check_mask(sum(1 << index for index in rnd.sample(range(52), rnd.randint(0, 12))))
        check_mask(_meld_rich_mask(rnd))


@pytest.mark.parametrize(
    "mask", [0, 1, 1 << 51, 0x1FFF, 0x1FFF << 39, to_mask("AC AD AH AS KC KD KH KS")]
)
def test_edge_masks_match_the_reference(mask: int) -> None:
    check_mask(mask)


def test_whole_deck_cards_and_points() -> None:
    assert from_mask(FULL_DECK_MASK) == DECK
    assert mask_points(FULL_DECK_MASK) == ref_mask_points(FULL_DECK_MASK)


def test_eleven_cards_after_discard_is_the_least_over_every_discard() -> None:
    rnd = random.Random(7)
    for _ in range(500):
        mask = _meld_rich_mask(rnd) | sum(1 << i for i in rnd.sample(range(52), 11))
        while mask.bit_count() > 11:
            mask &= mask - 1
        least = min(min_deadwood_mask(mask ^ (1 << i)) for i in iter_indices(mask))
        assert min_deadwood_after_discard_mask(mask) == least


def test_from_mask_refuses_what_is_not_a_mask() -> None:
    for bad in (-1, FULL_DECK_MASK + 1):
        with pytest.raises(ValueError, match="not a 52-card mask"):
            from_mask(bad)


@given(st.lists(st.sampled_from([*DECK, "1X", "", "ASX"]), max_size=6) | st.just([["AS"]]))
def test_sort_cards_raises_as_the_reference(cards: list[str]) -> None:
    try:
        expected: tuple[str, ...] | str = ref_sort_cards(cards)
    except ValueError as error:
        expected = str(error)
    try:
        got: tuple[str, ...] | str = sort_cards(iter(cards))
    except ValueError as error:
        got = str(error)
    assert got == expected


def test_score_hand_remembers_its_results_and_still_refuses() -> None:
    knocker = ["AC", "2C", "3C", "4D", "5D", "6D", "7H", "8H", "9H", "KS"]
    defender = ["AD", "2D", "3D", "4C", "5C", "6C", "7S", "8S", "9S", "QS"]
    scoring._SCORED.clear()
    first = score_hand(knocker, defender)
    assert scoring._score_hand(tuple(knocker), tuple(defender)) == first
    assert score_hand(iter(knocker), tuple(defender)) is first
    with pytest.raises(ValueError, match="overlap"):
        score_hand(knocker, knocker)
    with pytest.raises(ValueError, match="a card must be"):
        score_hand([*knocker[:9], ["KS"]], defender)  # type: ignore[list-item]
