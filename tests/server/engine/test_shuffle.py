"""The deal's shuffle: a function of its seed alone, and unbiased (a chi-square test over
fixed seeds, so it is the same every run; each test of a biased shuffle shows it can fail)."""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Callable, Iterator
from itertools import permutations

import pytest

from protocol.cards import DECK
from server.engine.shuffle import SEED_BYTES, below, check_seed, coin, shuffled, words
from tests.support.seeds import seed_of

Shuffle = Callable[[list[int], bytes], tuple[int, ...]]
#: A standard normal deviate this large has a chance below 1e-9: an unbiased shuffle never
#: reaches it, and with these sample sizes a biased one always does.
Z_LIMIT = 6.0


def position_z(shuffle: Shuffle, size: int, samples: int) -> float:
    """Chi-square over (card, position): each card equally likely in every position."""
    counts: Counter[object] = Counter()
    for number in range(samples):
        for place, card in enumerate(shuffle(list(range(size)), seed_of(number))):
            counts[card * size + place] += 1
    expected = samples / size
    statistic = sum((counts[cell] - expected) ** 2 / expected for cell in range(size * size))
    # every row and column of the table sums to ``samples``: (n - 1)**2 degrees of freedom
    return _z(statistic, (size - 1) ** 2)


def permutation_z(shuffle: Shuffle, size: int, samples: int) -> float:
    """Chi-square over whole orders: each of the ``size!`` orders equally likely."""
    index = {order: i for i, order in enumerate(permutations(range(size)))}
    counts = Counter(index[shuffle(list(range(size)), seed_of(n))] for n in range(samples))
    expected = samples / len(index)
    statistic = sum((counts[i] - expected) ** 2 / expected for i in range(len(index)))
    return _z(statistic, len(index) - 1)


def _z(statistic: float, df: int) -> float:
    """How many standard deviations a chi-square statistic with ``df`` degrees of freedom lies
    above its mean (Wilson-Hilferty's normal approximation)."""
    cube = (statistic / df) ** (1 / 3)
    z: float = (cube - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))
    return z


def engine(items: list[int], seed: bytes) -> tuple[int, ...]:
    return shuffled(items, seed)


def swap_with_any(items: list[int], seed: bytes) -> tuple[int, ...]:
    """The classic mistake: swap each place with any place (n**n paths for n! orders)."""
    stream = words(seed, b"test")
    for i in range(len(items)):
        j = below(stream, len(items))
        items[i], items[j] = items[j], items[i]
    return tuple(items)


def modulo_of_small_words(items: list[int], seed: bytes) -> tuple[int, ...]:
    """Fisher-Yates with ``word % bound`` and no rejection, on 4-bit words: 16 % 3 != 0."""
    stream = (word & 0xF for word in words(seed, b"test"))
    for i in range(len(items) - 1, 0, -1):
        j = next(stream) % (i + 1)
        items[i], items[j] = items[j], items[i]
    return tuple(items)


def test_each_card_is_equally_likely_in_every_place_of_a_52_card_deck() -> None:
    assert position_z(engine, len(DECK), 20_000) < Z_LIMIT


@pytest.mark.parametrize("size", [3, 4, 5])
def test_every_order_of_a_small_deck_is_equally_likely(size: int) -> None:
    assert permutation_z(engine, size, 24_000) < Z_LIMIT


@pytest.mark.parametrize("shuffle", [swap_with_any, modulo_of_small_words])
def test_a_biased_shuffle_is_caught(shuffle: Shuffle) -> None:
    assert permutation_z(shuffle, 4, 24_000) > Z_LIMIT
    assert position_z(shuffle, 4, 24_000) > Z_LIMIT


def test_the_shuffle_is_a_function_of_the_seed_alone() -> None:
    assert shuffled(DECK, seed_of(1)) == shuffled(DECK, seed_of(1))
    assert sorted(shuffled(DECK, seed_of(1))) == sorted(DECK)
    assert shuffled(DECK, seed_of(1)) != shuffled(DECK, seed_of(2))


def test_seeds_one_bit_apart_shuffle_unrelated_decks() -> None:
    seed = bytearray(seed_of(5))
    base = shuffled(DECK, bytes(seed))
    seed[-1] ^= 1
    other = shuffled(DECK, bytes(seed))
    same_places = sum(a == b for a, b in zip(base, other, strict=True))
    assert same_places < 8  # about one card in 52 by chance


def test_the_dealer_coin_is_fair_and_apart_from_the_shuffle() -> None:
    heads = sum(coin(seed_of(n)) for n in range(4000))
    assert abs(heads - 2000) < 6 * math.sqrt(1000)


def test_words_are_blake2b_keyed_with_the_seed_over_a_counter() -> None:
    seed = seed_of(9)
    block = hashlib.blake2b(bytes(8), key=seed, person=b"gin-rummy/deck").digest()
    first: Iterator[int] = words(seed, b"gin-rummy/deck")
    assert next(first) == int.from_bytes(block[:8], "little")


@pytest.mark.parametrize("bad", [b"", b"x" * (SEED_BYTES - 1), b"x" * (SEED_BYTES + 1), 7, None])
def test_a_seed_is_exactly_32_bytes(bad: object) -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        check_seed(bad)
