"""An independent, deliberately naive reference for the meld rules, written from RULES.md.

Nothing here imports the solver (``protocol.melds``) or its bit tricks: cards are plain strings,
a meld is checked card by card, and every question is answered by exhaustive search.

- ``melds_in``: every subset of the cards that is a meld (sets of 3 or 4 of a rank; runs of 3 or
  more consecutive ranks of one suit, ace low only).
- ``meld_families``: every family of pairwise disjoint melds (an arrangement is such a family;
  the deadwood is whatever it leaves out).
- ``min_deadwood``: the least deadwood points over all families.
- ``best_families``: every family that reaches it.
- ``min_after_discard``: for 11 cards, the least over the 11 discards.
- ``defend``: the defender's least deadwood against a knock, over every subset of cards laid off
  (a subset is playable when the cards can be shared out among the knocker's melds so that each
  meld plus its cards is still a meld) combined with the best arrangement of the rest.
- ``score``: the whole knock scoring of RULES.md on top of those.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

RANK_ORDER = "A23456789TJQK"
SUIT_ORDER = "CDHS"
ALL_CARDS: tuple[str, ...] = tuple(r + s for s in SUIT_ORDER for r in RANK_ORDER)

Meld = frozenset[str]
Family = frozenset[Meld]


def rank_number(card: str) -> int:
    """Ace 1, two 2, ..., king 13 (the ace is low only)."""
    return RANK_ORDER.index(card[0]) + 1


def value(card: str) -> int:
    """Deadwood value: ace 1, 2-10 their number, J Q K 10."""
    return min(rank_number(card), 10)


def points(cards: Iterable[str]) -> int:
    return sum(value(card) for card in cards)


def is_meld(cards: Iterable[str]) -> bool:
    group = list(cards)
    if len(group) < 3 or len(set(group)) != len(group):
        return False
    ranks = sorted(rank_number(card) for card in group)
    suits = {card[1] for card in group}
    if len(set(ranks)) == 1:
        return len(group) <= 4
    if len(suits) == 1:
        return ranks == list(range(ranks[0], ranks[0] + len(ranks)))
    return False


def melds_in(cards: Iterable[str]) -> list[Meld]:
    """Every subset of the cards that is a meld (a set uses one rank, a run one suit)."""
    hand = sorted(set(cards))
    found: list[Meld] = []
    for position in (0, 1):  # group by rank (sets), then by suit (runs)
        groups: dict[str, list[str]] = {}
        for card in hand:
            groups.setdefault(card[position], []).append(card)
        for group in groups.values():
            for size in range(3, len(group) + 1):
                found.extend(frozenset(c) for c in combinations(group, size) if is_meld(c))
    return sorted(set(found), key=sorted)


def meld_families(melds: Sequence[Meld]) -> Iterator[tuple[Meld, ...]]:
    """Every family of pairwise disjoint melds, the empty family included."""

    def extend(
        start: int, used: frozenset[str], chosen: tuple[Meld, ...]
    ) -> Iterator[tuple[Meld, ...]]:
        yield chosen
        for i in range(start, len(melds)):
            if not melds[i] & used:
                yield from extend(i + 1, used | melds[i], (*chosen, melds[i]))

    return extend(0, frozenset(), ())


@lru_cache(maxsize=200_000)
def _min_deadwood(hand: frozenset[str]) -> int:
    total = points(hand)
    return min(
        total - sum(points(meld) for meld in family) for family in meld_families(melds_in(hand))
    )


def min_deadwood(cards: Iterable[str]) -> int:
    """Least deadwood points of the cards, whatever their number."""
    return _min_deadwood(frozenset(cards))


def best_families(cards: Iterable[str]) -> set[Family]:
    """Every family of disjoint melds that leaves the least deadwood points."""
    hand = frozenset(cards)
    target = min_deadwood(hand)
    total = points(hand)
    return {
        frozenset(family)
        for family in meld_families(melds_in(hand))
        if total - sum(points(meld) for meld in family) == target
    }


def min_after_discard(cards: Iterable[str]) -> int:
    hand = frozenset(cards)
    return min(min_deadwood(hand - {card}) for card in hand)


def deadwood_after_each_discard(cards: Iterable[str]) -> dict[str, int]:
    hand = frozenset(cards)
    return {card: min_deadwood(hand - {card}) for card in hand}


# --- layoffs --------------------------------------------------------------------------------


def _can_share_out(cards: Sequence[str], melds: Sequence[Meld]) -> bool:
    """Whether the cards can be given to the melds so that each meld plus its cards is a meld.

    Adding cards one at a time is then always possible too: a set of 3 takes its fourth card, and
    a run's extra cards can be added outward from the run, so the chain is legal in that order.
    """
    grown = [set(meld) for meld in melds]

    def place(i: int) -> bool:
        if i == len(cards):
            return all(is_meld(group) for group in grown)
        for group in grown:
            group.add(cards[i])
            if _could_still_be_meld(group) and place(i + 1):
                return True
            group.remove(cards[i])
        return False

    return place(0)


def _could_still_be_meld(group: set[str]) -> bool:
    """Pruning only: a group of one rank has at most 4 cards; otherwise it must be one suit."""
    if len({c[0] for c in group}) == 1:
        return True
    return len({c[1] for c in group}) == 1


def _may_attach(card: str, melds: Sequence[Meld]) -> bool:
    """Pruning only: a laid-off card joins a meld, so it shares the rank of a set or the suit of
    a run (and is not already in it)."""
    for meld in melds:
        if len({c[0] for c in meld}) == 1:
            if card[0] == next(iter(meld))[0]:
                return True
        elif card[1] == next(iter(meld))[1]:
            return True
    return False


@dataclass(frozen=True)
class Defence:
    deadwood: int
    fewest_layoffs: int  # the fewest cards laid off among the choices reaching ``deadwood``
    optimal_layoff_sets: frozenset[frozenset[str]]


def defend(knocker_melds: Sequence[Iterable[str]], defender: Iterable[str]) -> Defence:
    """The defender's least deadwood over every playable subset of layoffs."""
    melds = [frozenset(meld) for meld in knocker_melds]
    hand = frozenset(defender)
    candidates = sorted(card for card in hand if _may_attach(card, melds))
    results: list[tuple[int, frozenset[str]]] = []
    for size in range(len(candidates) + 1):
        for laid in combinations(candidates, size):
            if _can_share_out(laid, melds):
                results.append((min_deadwood(hand - set(laid)), frozenset(laid)))
    best = min(result[0] for result in results)
    optimal = frozenset(laid for dw, laid in results if dw == best)
    return Defence(best, min(len(laid) for laid in optimal), optimal)


@dataclass(frozen=True)
class Score:
    kind: str  # "gin", "knock", "undercut"
    points: int
    knocker_deadwood: int
    defender_deadwood: int


def score(knocker: Iterable[str], defender: Iterable[str]) -> Score | None:
    """Scoring of RULES.md; None when the knocker's 10 cards cannot knock."""
    knocker_hand = frozenset(knocker)
    defender_hand = frozenset(defender)
    knocker_deadwood = min_deadwood(knocker_hand)
    if knocker_deadwood > 10:
        return None
    if knocker_deadwood == 0:
        own = min_deadwood(defender_hand)
        return Score("gin", 25 + own, 0, own)
    defender_deadwood = max(
        defend(list(family), defender_hand).deadwood for family in best_families(knocker_hand)
    )
    difference = defender_deadwood - knocker_deadwood
    if difference > 0:
        return Score("knock", difference, knocker_deadwood, defender_deadwood)
    return Score("undercut", 25 - difference, knocker_deadwood, defender_deadwood)
