"""Benchmark of the meld solver's deadwood computation against OpenSpiel and RLCard.

Run: ``PYTHONPATH=. .venv/bin/python -m bench.melds [--hands N] [--seed S]``

What it measures: the wall time of ONE call that answers "least deadwood points of this hand"
(for 11 cards: after the best discard), per hand, with ``time.perf_counter_ns`` around each call,
after a warm-up pass and with the garbage collector disabled while timing. It prints the median
and the 99th percentile in microseconds, for 10- and 11-card hands, on three hand sets:

- ``uniform``: cards drawn uniformly from the deck;
- ``meld-rich``: cards from one or two suits over a few adjacent ranks, whole ranks next to each
  other, or whole melds dealt until the hand is full (many overlapping melds: the hard case);
- ``play-outs``: the hands seen in simulated games (seeded): deal 10 cards each, every turn draw
  from the stock (11 cards, recorded) and discard the card that leaves the least deadwood
  (10 cards, recorded), until a player can knock or the stock runs down to 2 cards.

The implementations, each given its input prepared beforehand (the conversion is not timed):

- ``ours min_deadwood(cards)``: the public string API of ``protocol.melds`` (parses and
  validates the card strings on every call);
- ``ours *_mask(mask)``: ``min_deadwood_mask`` (10 cards) and ``min_deadwood_after_discard_mask``
  (11 cards) on precomputed 52-bit masks;
- ``OpenSpiel MinDeadwood (C++)``: ``pyspiel.gin_rummy.GinRummyUtils.min_deadwood`` on a list of
  OpenSpiel card ints, called from Python: the pybind11 call and the list conversion are part of
  the time. Two reference rows show that floor: ``card_value(int)`` (a call doing no work) and
  ``total_card_value(list)`` (the same list conversion plus a trivial sum). For 11 cards
  OpenSpiel drops the top deadwood card of one optimal 11-card arrangement, which is not always
  the true minimum: those hands are counted as disagreements, not as errors;
- ``RLCard``: for 10 cards ``melding.get_best_meld_clusters`` (which returns every optimal meld
  cluster; the deadwood of the first one, or of the whole hand when there is none, is computed
  in the timed call); for 11 cards (``get_best_meld_clusters`` accepts only 10)
  ``melding.get_meld_clusters`` on the 11 cards and the least "cluster deadwood minus its top
  card", which is how RLCard's own ``thinker.get_going_out_cards`` handles a drawn hand.

Every implementation's answers are checked against ours on every hand; the mismatch counts are
printed under the table. The ratio column is median(ours) / median(OpenSpiel): below 1 is faster.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pyspiel
from rlcard.games.base import Card
from rlcard.games.gin_rummy.utils import melding
from rlcard.games.gin_rummy.utils import utils as rl_utils

from protocol.cards import DECK, INDEX_VALUES, RANKS, SUITS, to_mask
from protocol.melds import (
    min_deadwood,
    min_deadwood_after_discard_mask,
    min_deadwood_mask,
)

DEFAULT_HANDS = 40_000
WARMUP = 200
OPENSPIEL = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)  # ranks, suits, hand size


# --- hand sets ----------------------------------------------------------------------------------


def uniform_hand(rng: random.Random, size: int) -> list[str]:
    return rng.sample(DECK, size)


def meld_rich_hand(rng: random.Random, size: int) -> list[str]:
    kind = rng.randrange(3)
    if kind == 0:  # one or two suits, a narrow window of ranks
        suits = rng.sample(SUITS, rng.choice((1, 2)))
        width = min(13, max(-(-size // len(suits)) + rng.randint(0, 2), 4))
        low = rng.randint(0, 13 - width)
        pool = [r + s for s in suits for r in RANKS[low : low + width]]
        cards = rng.sample(pool, min(size, len(pool)))
    elif kind == 1:  # whole ranks next to each other
        low = rng.randint(0, 9)
        pool = [r + s for s in SUITS for r in RANKS[low : low + 4]]
        cards = rng.sample(pool, size)
    else:  # whole melds until the hand is full
        cards = []
        while len(cards) < size:
            if rng.random() < 0.5:
                length = rng.randint(3, 6)
                low = rng.randint(0, 13 - length)
                suit = rng.choice(SUITS)
                meld = [r + suit for r in RANKS[low : low + length]]
            else:
                rank = rng.choice(RANKS)
                meld = [rank + s for s in rng.sample(SUITS, rng.randint(3, 4))]
            cards += [c for c in meld if c not in cards][: size - len(cards)]
    rest = [card for card in DECK if card not in cards]
    return cards + rng.sample(rest, size - len(cards))


def play_out_hands(rng: random.Random, count: int) -> tuple[list[list[str]], list[list[str]]]:
    """10- and 11-card hands seen in simple seeded games (see the module docstring)."""
    tens: list[list[str]] = []
    elevens: list[list[str]] = []
    while len(tens) < count or len(elevens) < count:
        deck = list(range(52))
        rng.shuffle(deck)
        hands = [to_bits(deck[0:10]), to_bits(deck[10:20])]
        stock = deck[20:]
        player = 0
        while len(stock) > 2:
            mask = hands[player] | (1 << stock.pop())
            elevens.append(cards_of(mask))
            hands[player] = best_discard(mask)
            tens.append(cards_of(hands[player]))
            if min_deadwood_mask(hands[player]) <= 10:
                break
            player = 1 - player
    return tens[:count], elevens[:count]


def to_bits(indices: Sequence[int]) -> int:
    return sum(1 << i for i in indices)


def cards_of(mask: int) -> list[str]:
    return [DECK[i] for i in range(52) if mask >> i & 1]


def best_discard(mask: int) -> int:
    """The 10 cards left by the discard with the least deadwood (ties: the higher card goes)."""
    options = []
    for i in range(52):
        if mask >> i & 1:
            rest = mask ^ (1 << i)
            options.append((min_deadwood_mask(rest), -INDEX_VALUES[i], rest))
    return min(options)[2]


# --- the implementations ------------------------------------------------------------------------


def openspiel_ints(cards: Sequence[str]) -> list[int]:
    return [int(OPENSPIEL.card_int(card[0] + card[1].lower())) for card in cards]


def rlcard_hand(cards: Sequence[str]) -> list[Any]:
    return [Card(suit=card[1], rank=card[0]) for card in cards]


def rlcard_deadwood_10(hand: list[Any]) -> int:
    clusters = melding.get_best_meld_clusters(hand=hand)
    if not clusters:
        return sum(int(rl_utils.get_deadwood_value(card)) for card in hand)
    return int(rl_utils.get_deadwood_count(hand=hand, meld_cluster=clusters[0]))


def rlcard_deadwood_11(hand: list[Any]) -> int:
    values = [int(rl_utils.get_deadwood_value(card)) for card in hand]
    best = sum(values) - max(values)
    for cluster in melding.get_meld_clusters(hand=hand):
        melded = {card for meld in cluster for card in meld}
        dead = [value for card, value in zip(hand, values, strict=True) if card not in melded]
        best = min(best, sum(dead) - max(dead, default=0))
    return best


@dataclass(frozen=True)
class Contender:
    name: str
    call: Callable[[Any], Any]
    prepare: Callable[[list[str]], Any]


def contenders(size: int) -> list[Contender]:
    ours_mask = min_deadwood_mask if size == 10 else min_deadwood_after_discard_mask
    mask_name = "min_deadwood_mask" if size == 10 else "min_deadwood_after_discard_mask"
    return [
        Contender("ours min_deadwood(cards)", min_deadwood, list),
        Contender(f"ours {mask_name}(mask)", ours_mask, to_mask),
        Contender("OpenSpiel MinDeadwood (C++)", OPENSPIEL.min_deadwood, openspiel_ints),
        Contender(
            "RLCard get_best_meld_clusters" if size == 10 else "RLCard get_meld_clusters (11)",
            rlcard_deadwood_10 if size == 10 else rlcard_deadwood_11,
            rlcard_hand,
        ),
        Contender(
            "  floor: pybind card_value(int)",
            lambda _: OPENSPIEL.card_value(0),
            lambda cards: None,
        ),
        Contender(
            "  floor: pybind total_card_value(list)",
            OPENSPIEL.total_card_value,
            openspiel_ints,
        ),
    ]


# --- timing -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Timing:
    median_us: float
    p99_us: float
    answers: list[Any]


def time_calls(call: Callable[[Any], Any], inputs: Sequence[Any]) -> Timing:
    for item in inputs[:WARMUP]:
        call(item)
    samples: list[int] = []
    answers: list[Any] = []
    clock = time.perf_counter_ns
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for item in inputs:
            start = clock()
            answer = call(item)
            samples.append(clock() - start)
            answers.append(answer)
    finally:
        if gc_was_enabled:
            gc.enable()
    samples.sort()
    p99 = samples[min(len(samples) - 1, round(0.99 * (len(samples) - 1)))]
    return Timing(statistics.median(samples) / 1000, p99 / 1000, answers)


def timer_floor(count: int) -> float:
    """Median ns of timing a call to a Python function that does nothing."""

    def nothing(_: object) -> None:
        return None

    return time_calls(nothing, [None] * count).median_us * 1000


# --- report -------------------------------------------------------------------------------------


@dataclass
class Row:
    hand_set: str
    size: int
    name: str
    timing: Timing
    ratio: float | None


def run(hands_per_set: int, seed: int) -> tuple[list[Row], list[str]]:
    rng = random.Random(seed)
    plays_10, plays_11 = play_out_hands(rng, hands_per_set)
    hand_sets: dict[tuple[str, int], list[list[str]]] = {
        ("uniform", 10): [uniform_hand(rng, 10) for _ in range(hands_per_set)],
        ("uniform", 11): [uniform_hand(rng, 11) for _ in range(hands_per_set)],
        ("meld-rich", 10): [meld_rich_hand(rng, 10) for _ in range(hands_per_set)],
        ("meld-rich", 11): [meld_rich_hand(rng, 11) for _ in range(hands_per_set)],
        ("play-outs", 10): plays_10,
        ("play-outs", 11): plays_11,
    }
    rows: list[Row] = []
    notes: list[str] = []
    for (hand_set, size), hands in hand_sets.items():
        timings: dict[str, Timing] = {}
        for contender in contenders(size):
            inputs = [contender.prepare(hand) for hand in hands]
            timings[contender.name] = time_calls(contender.call, inputs)
        names = [c.name for c in contenders(size)]
        ours, mask, openspiel, rlcard = (timings[name] for name in names[:4])
        for name in names:
            timing = timings[name]
            ratio = None
            if name.startswith("ours"):
                ratio = timing.median_us / openspiel.median_us
            rows.append(Row(hand_set, size, name, timing, ratio))
        truth = ours.answers
        mask_off = sum(a != b for a, b in zip(truth, mask.answers, strict=True))
        os_off = [
            (h, a, b) for h, a, b in zip(hands, truth, openspiel.answers, strict=True) if a != b
        ]
        rl_off = [(h, a, b) for h, a, b in zip(hands, truth, rlcard.answers, strict=True) if a != b]
        line = (
            f"{hand_set:<10} {size} cards: {len(hands)} hands; mismatches with ours: "
            f"mask API {mask_off}, OpenSpiel {len(os_off)}, RLCard {len(rl_off)}"
        )
        if os_off:
            higher = sum(b > a for _, a, b in os_off)
            hand, a, b = os_off[0]
            line += (
                f"\n{'':<19}OpenSpiel higher than ours on {higher} of {len(os_off)}; e.g. "
                f"{' '.join(sorted(hand, key=DECK.index))}: ours {a}, OpenSpiel {b}"
            )
        if rl_off:
            hand, a, b = rl_off[0]
            line += f"\n{'':<19}RLCard e.g. {' '.join(hand)}: ours {a}, RLCard {b}"
        notes.append(line)
    return rows, notes


def print_report(rows: Sequence[Row], notes: Sequence[str], hands: int, seed: int) -> None:
    print(
        f"Least-deadwood call, µs per call (median / p99); {hands} hands per set, seed {seed}; "
        f"Python {sys.version.split()[0]}; timer floor {timer_floor(10_000):.0f} ns per call"
    )
    header = (
        f"{'hand set':<10} {'cards':>5}  {'implementation':<44} "
        f"{'median':>9} {'p99':>9} {'ours/OpenSpiel':>15}"
    )
    print(header)
    print("-" * len(header))
    previous: tuple[str, int] | None = None
    for row in rows:
        key = (row.hand_set, row.size)
        if previous is not None and key != previous:
            print()
        label = f"{row.hand_set:<10} {row.size:>5}" if key != previous else f"{'':<10} {'':>5}"
        ratio = f"{row.ratio:.2f}x" if row.ratio is not None else ""
        print(
            f"{label}  {row.name:<44} {row.timing.median_us:>9.2f} {row.timing.p99_us:>9.2f} "
            f"{ratio:>15}"
        )
        previous = key
    print()
    print("Agreement on the deadwood points:")
    for note in notes:
        print("  " + note)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--hands",
        type=int,
        default=DEFAULT_HANDS,
        help="hands per set and size (default %(default)s)",
    )
    parser.add_argument("--seed", type=int, default=2024, help="seed of every hand set")
    args = parser.parse_args(argv)
    if args.hands < 1:
        parser.error("--hands must be at least 1")
    rows, notes = run(args.hands, args.seed)
    print_report(rows, notes, args.hands, args.seed)


if __name__ == "__main__":
    main()
