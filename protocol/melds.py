"""Melds, the optimal arrangement of a hand, layoffs, and the knocker's tie-break.

The solver is exact. Runs live inside one suit, so for every 13-bit suit pattern the cheapest
split into runs and deadwood is precomputed once (8,192 entries). A hand's arrangement is then
the best choice of sets (ranks holding 3 or 4 cards: at most three such ranks in 11 cards)
followed by four table look-ups, one per suit, for the cards the sets leave.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import product

from protocol.cards import (
    DECK,
    INDEX_VALUES,
    RANK_VALUES,
    card_index,
    from_mask,
    iter_indices,
    mask_points,
    rank_of,
    sort_cards,
    suit_of,
    to_mask,
)

KNOCK_LIMIT = 10
HAND_SIZE = 10

_SUIT_BITS = 13
_SUIT_FIELD = (1 << _SUIT_BITS) - 1
_NO_HAND = 1 << 30  # larger than any deadwood total


def _build_run_tables() -> tuple[list[int], list[int], list[int]]:
    """For each 13-bit suit pattern: least deadwood using runs only, the run length chosen at
    its lowest card (0: that card is deadwood), and the least deadwood after removing one card.
    """
    size = 1 << _SUIT_BITS
    points = [0] * size
    choice = [0] * size
    for pattern in range(1, size):
        low = (pattern & -pattern).bit_length() - 1
        best = RANK_VALUES[low] + points[pattern & (pattern - 1)]
        best_length = 0
        length = 1
        run = 1 << low
        while low + length < _SUIT_BITS and pattern & (1 << (low + length)):
            run |= 1 << (low + length)
            length += 1
            if length >= 3 and points[pattern & ~run] <= best:
                best = points[pattern & ~run]
                best_length = length
        points[pattern] = best
        choice[pattern] = best_length
    after_discard = [_NO_HAND] * size
    for pattern in range(1, size):
        rest = pattern
        while rest:
            low = rest & -rest
            after_discard[pattern] = min(after_discard[pattern], points[pattern ^ low])
            rest ^= low
    return points, choice, after_discard


_RUN_POINTS, _RUN_CHOICE, _RUN_POINTS_AFTER_DISCARD = _build_run_tables()
#: Per suit pattern: how many points the best single discard saves (``_RUN_POINTS`` minus
#: ``_RUN_POINTS_AFTER_DISCARD``; may be negative); an empty suit offers no discard.
_RUN_DISCARD_GAIN: list[int] = [
    points - after for points, after in zip(_RUN_POINTS, _RUN_POINTS_AFTER_DISCARD, strict=True)
]
_RUN_DISCARD_GAIN[0] = -_NO_HAND
_RANK_MASKS: tuple[int, ...] = tuple(
    sum(1 << (suit * _SUIT_BITS + rank) for suit in range(4)) for rank in range(13)
)


def _set_options(mask: int) -> list[list[int]]:
    """For each rank with 3 or 4 cards in the hand, the ways to meld it as a set (0: no set)."""
    clubs = mask & _SUIT_FIELD
    diamonds = (mask >> 13) & _SUIT_FIELD
    hearts = (mask >> 26) & _SUIT_FIELD
    spades = mask >> 39
    three_or_more = (clubs & diamonds & (hearts | spades)) | (hearts & spades & (clubs | diamonds))
    options = []
    while three_or_more:
        low = three_or_more & -three_or_more
        three_or_more ^= low
        cards = mask & _RANK_MASKS[low.bit_length() - 1]
        choices = [0, cards]
        if cards.bit_count() == 4:
            choices.extend(cards ^ (1 << i) for i in iter_indices(cards))
        options.append(choices)
    return options


def _runs_points(rest: int) -> int:
    return (
        _RUN_POINTS[rest & _SUIT_FIELD]
        + _RUN_POINTS[(rest >> 13) & _SUIT_FIELD]
        + _RUN_POINTS[(rest >> 26) & _SUIT_FIELD]
        + _RUN_POINTS[rest >> 39]
    )


def min_deadwood_mask(mask: int) -> int:
    """Least deadwood points of a hand given as a card mask (any number of cards)."""
    options = _set_options(mask)
    if not options:
        return _runs_points(mask)
    if len(options) == 1:  # the common case: one rank that could be a set
        return min(_runs_points(mask & ~sets) for sets in options[0])
    return min(_runs_points(mask & ~sum(combo)) for combo in product(*options))


def _runs_points_after_discard(rest: int) -> int:
    """Least run-only deadwood of the cards after discarding one of them (``_NO_HAND``: none)."""
    clubs = rest & _SUIT_FIELD
    diamonds = (rest >> 13) & _SUIT_FIELD
    hearts = (rest >> 26) & _SUIT_FIELD
    spades = rest >> 39
    gain = _RUN_DISCARD_GAIN
    return (
        _RUN_POINTS[clubs]
        + _RUN_POINTS[diamonds]
        + _RUN_POINTS[hearts]
        + _RUN_POINTS[spades]
        - max(gain[clubs], gain[diamonds], gain[hearts], gain[spades])
    )


def min_deadwood_after_discard_mask(mask: int) -> int:
    """Least deadwood points of the hand left after the best single discard."""
    options = _set_options(mask)
    if not options:
        return _runs_points_after_discard(mask)
    if len(options) == 1:
        return min(_runs_points_after_discard(mask & ~sets) for sets in options[0])
    return min(_runs_points_after_discard(mask & ~sum(combo)) for combo in product(*options))


def min_deadwood(cards: Iterable[str]) -> int:
    """Least deadwood points: of the hand itself up to 10 cards; after the best discard for 11."""
    mask = to_mask(cards)
    if mask.bit_count() == HAND_SIZE + 1:
        return min_deadwood_after_discard_mask(mask)
    if mask.bit_count() > HAND_SIZE + 1:
        raise ValueError(f"a hand holds at most 11 cards, got {mask.bit_count()}")
    return min_deadwood_mask(mask)


@dataclass(frozen=True, slots=True)
class Arrangement:
    """A split of a hand into melds and deadwood."""

    melds: tuple[tuple[str, ...], ...]
    deadwood: tuple[str, ...]
    deadwood_points: int


def _suit_runs(pattern: int) -> tuple[tuple[int, ...], int]:
    """The precomputed best runs of one suit pattern (masks within the suit, lowest first) and
    the deadwood pattern left."""
    runs = []
    deadwood = 0
    while pattern:
        low = (pattern & -pattern).bit_length() - 1
        length = _RUN_CHOICE[pattern]
        if length:
            run = ((1 << length) - 1) << low
            runs.append(run)
            pattern &= ~run
        else:
            deadwood |= 1 << low
            pattern &= pattern - 1
    return tuple(runs), deadwood


#: ``_suit_runs`` of every suit pattern.
_SUIT_RUNS: tuple[tuple[tuple[int, ...], int], ...] = tuple(
    _suit_runs(pattern) for pattern in range(1 << _SUIT_BITS)
)


def _runs_of(rest: int) -> tuple[list[int], int]:
    """The precomputed best runs (as masks, lowest card first) of a set of cards, and the
    deadwood mask left."""
    runs: list[int] = []
    deadwood = 0
    for shift in (0, 13, 26, 39):
        pattern = (rest >> shift) & _SUIT_FIELD
        if pattern:
            suit_runs, suit_deadwood = _SUIT_RUNS[pattern]
            for run in suit_runs:
                runs.append(run << shift)
            deadwood |= suit_deadwood << shift
    return runs, deadwood


def _split_sets(sets: int) -> list[int]:
    return [sets & rank_mask for rank_mask in _RANK_MASKS if sets & rank_mask]


def _lowest_card(meld: int) -> int:
    return (meld & -meld).bit_length()


def _arrangement_from_masks(melds: Iterable[int], deadwood: int) -> Arrangement:
    ordered = sorted(melds, key=_lowest_card)
    return Arrangement(tuple(map(from_mask, ordered)), from_mask(deadwood), mask_points(deadwood))


def best_arrangement_mask(mask: int) -> Arrangement:
    """An optimal arrangement of a hand given as a mask."""
    options = _set_options(mask)
    if not options:  # runs only: ``_runs_of`` lists them in order
        runs, deadwood = _runs_of(mask)
        return Arrangement(tuple(map(from_mask, runs)), from_mask(deadwood), mask_points(deadwood))
    best_sets, best_points = 0, _NO_HAND
    for combo in product(*options):  # the first choice of sets with the fewest points
        sets = sum(combo)
        points = _runs_points(mask & ~sets)
        if points < best_points:
            best_sets, best_points = sets, points
    runs, deadwood = _runs_of(mask & ~best_sets)
    return _arrangement_from_masks([*_split_sets(best_sets), *runs], deadwood)


def best_arrangement(cards: Iterable[str]) -> Arrangement:
    """The arrangement with the fewest deadwood points (0 to 10 cards; exact)."""
    mask = to_mask(cards)
    if mask.bit_count() > HAND_SIZE:
        raise ValueError(f"an arrangement is of at most 10 cards, got {mask.bit_count()}")
    return best_arrangement_mask(mask)


@dataclass(frozen=True, slots=True)
class Discard:
    """One possible discard from an 11-card hand and the best arrangement of what it leaves."""

    card: str
    arrangement: Arrangement

    @property
    def deadwood_points(self) -> int:
        return self.arrangement.deadwood_points

    @property
    def can_knock(self) -> bool:
        return self.arrangement.deadwood_points <= KNOCK_LIMIT

    @property
    def is_gin(self) -> bool:
        return self.arrangement.deadwood_points == 0


def best_discards(cards: Iterable[str]) -> tuple[Discard, ...]:
    """Every discard of an 11-card hand, fewest deadwood left first (then card order)."""
    mask = to_mask(cards)
    if mask.bit_count() != HAND_SIZE + 1:
        raise ValueError(f"best_discards takes 11 cards, got {mask.bit_count()}")
    discards = [
        Discard(DECK[i], best_arrangement_mask(mask ^ (1 << i))) for i in iter_indices(mask)
    ]
    discards.sort(key=lambda d: (d.deadwood_points, card_index(d.card)))
    return tuple(discards)


# --- every optimal arrangement (for the knocker's tie-break) ---------------------------------


def _all_melds_within(mask: int) -> list[int]:
    """Every set and run whose cards are all in the hand."""
    melds = []
    for rank_mask in _RANK_MASKS:
        cards = mask & rank_mask
        if cards.bit_count() >= 3:
            melds.append(cards)
            if cards.bit_count() == 4:
                melds.extend(cards ^ (1 << i) for i in iter_indices(cards))
    for suit in range(4):
        for low in range(_SUIT_BITS - 2):
            for length in range(3, _SUIT_BITS - low + 1):
                run = (((1 << length) - 1) << low) << (suit * _SUIT_BITS)
                if mask & run != run:
                    break
                melds.append(run)
    return melds


def all_best_arrangements(cards: Iterable[str]) -> tuple[Arrangement, ...]:
    """Every split into melds with the least deadwood points (distinct meld partitions)."""
    mask = to_mask(cards)
    found: list[Arrangement] = []
    _partitions(mask, _all_melds_within(mask), min_deadwood_mask(mask), [], 0, 0, found)
    return tuple(found)


def _partitions(
    rest: int,
    melds: list[int],
    target: int,
    chosen: list[int],
    deadwood: int,
    points: int,
    found: list[Arrangement],
) -> None:
    # A module function, not a closure calling itself: such a closure is a reference cycle
    # that only the cycle collector frees, one per scored knock (docs/scaling.md).
    if points > target:
        return
    if not rest:
        if points == target:
            found.append(_arrangement_from_masks(chosen, deadwood))
        return
    low = rest & -rest
    value = INDEX_VALUES[low.bit_length() - 1]
    _partitions(rest ^ low, melds, target, chosen, deadwood | low, points + value, found)
    for meld in melds:
        if meld & low and meld & rest == meld:
            chosen.append(meld)
            _partitions(rest & ~meld, melds, target, chosen, deadwood, points, found)
            chosen.pop()


# --- layoffs ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Layoff:
    """A defender's card laid off onto one of the knocker's melds (its index in the melds)."""

    card: str
    meld: int


@dataclass(frozen=True, slots=True)
class DefenderResult:
    """The defender's best joint choice of layoffs and own melds against a knock."""

    layoffs: tuple[Layoff, ...]
    arrangement: Arrangement

    @property
    def deadwood_points(self) -> int:
        return self.arrangement.deadwood_points


def _meld_mask(meld: Sequence[str]) -> int:
    mask = to_mask(meld)
    if not is_meld(mask):
        raise ValueError(f"not a meld: {' '.join(meld)}")
    return mask


def is_meld(mask: int) -> bool:
    """A set of 3 or 4 cards of one rank, or a run of 3 or more consecutive cards of one suit."""
    count = mask.bit_count()
    if count < 3:
        return False
    if any(mask & ~rank_mask == 0 for rank_mask in _RANK_MASKS):
        return True
    low = (mask & -mask).bit_length() - 1
    run = ((1 << count) - 1) << low
    return mask == run and suit_of(low) == suit_of(low + count - 1)


def _attachments(meld: int) -> int:
    """The cards that can be laid off onto a meld as it stands."""
    low = (meld & -meld).bit_length() - 1
    rank_mask = _RANK_MASKS[rank_of(low)]
    if meld & ~rank_mask == 0:
        return rank_mask & ~meld
    high = meld.bit_length() - 1
    fits = 0
    if rank_of(low) > 0:
        fits |= 1 << (low - 1)
    if rank_of(high) < 12:
        fits |= 1 << (high + 1)
    return fits


class _LayoffSearch:
    """The search behind ``best_layoffs``: an object rather than a closure calling itself,
    which would be a reference cycle left to the cycle collector on every scored knock."""

    __slots__ = ("best", "seen")

    def __init__(self, points: int) -> None:
        self.best: tuple[int, int, tuple[Layoff, ...]] = (points, 0, ())
        self.seen: set[tuple[int, ...]] = set()

    def run(self, rest: int, current: list[int], laid: tuple[Layoff, ...]) -> None:
        key = (rest, *current)
        if key in self.seen:
            return
        self.seen.add(key)
        points = min_deadwood_mask(rest)
        if (points, len(laid)) < self.best[:2]:
            self.best = (points, len(laid), laid)
        for position, meld in enumerate(current):
            for index in iter_indices(_attachments(meld) & rest):
                current[position] = meld | (1 << index)
                self.run(rest ^ (1 << index), current, (*laid, Layoff(DECK[index], position)))
                current[position] = meld


def best_layoffs(
    knocker_melds: Sequence[Sequence[str]], defender_cards: Iterable[str]
) -> DefenderResult:
    """The defender's layoffs and own melds, chosen together for the fewest deadwood points.

    Laid-off cards may chain (``9S`` then ``TS`` onto ``6S 7S 8S``); the defender may break a
    would-be meld of their own when laying its cards off leaves fewer points. On equal points the
    choice with fewer layoffs is taken.
    """
    melds = [_meld_mask(meld) for meld in knocker_melds]
    hand = to_mask(defender_cards)
    if any(hand & meld for meld in melds):
        raise ValueError("the defender's cards overlap the knocker's melds")
    search = _LayoffSearch(min_deadwood_mask(hand))
    search.run(hand, melds, ())
    laid = search.best[2]
    rest = hand & ~to_mask(layoff.card for layoff in laid)
    return DefenderResult(layoffs=laid, arrangement=best_arrangement_mask(rest))


def knocker_arrangement(knocker_cards: Iterable[str], defender_cards: Iterable[str]) -> Arrangement:
    """The knocker's arrangement: among those with the least deadwood, the one that leaves the
    defender the most deadwood after their best layoffs (the best one for the knocker)."""
    candidates = all_best_arrangements(knocker_cards)
    if candidates[0].deadwood_points == 0:
        return candidates[0]
    defender = tuple(defender_cards)
    return max(
        candidates,
        key=lambda arrangement: best_layoffs(arrangement.melds, defender).deadwood_points,
    )


def sort_hand(cards: Iterable[str]) -> tuple[str, ...]:
    """Cards in the canonical order used for display: by suit, then rank."""
    return sort_cards(cards)
