"""Deals from a seed: a keyed hash in counter mode, and an unbiased Fisher-Yates shuffle.

Every hand is dealt from a seed of its own (``SEED_BYTES`` the server draws from ``secrets``
for that deal alone); nothing is carried from one hand to the next, so what a replay shows of
one hand's shuffle says nothing about any other hand. The random words are BLAKE2b-512 keyed
with the seed over a 64-bit counter (a pseudorandom function: its outputs do not reveal the
key), and bounded integers are drawn by rejection, so every order of the deck is equally likely.
"""

from __future__ import annotations

import hashlib
import itertools
import struct
from collections.abc import Iterator, Sequence
from typing import TypeVar

SEED_BYTES = 32
DECK_DOMAIN = b"gin-rummy/deck"
DEALER_DOMAIN = b"gin-rummy/dealer"

_BLOCK = struct.Struct("<8Q")
_TWO64 = 1 << 64

T = TypeVar("T")


def check_seed(seed: object) -> bytes:
    """A seed is exactly ``SEED_BYTES`` bytes."""
    if not isinstance(seed, bytes) or len(seed) != SEED_BYTES:
        raise ValueError(f"a seed is {SEED_BYTES} bytes, got {type(seed).__name__}")
    return seed


def words(seed: bytes, domain: bytes) -> Iterator[int]:
    """Endless uniform 64-bit words: BLAKE2b keyed with the seed, personalised with the
    domain, of the counter 0, 1, 2, ... (eight words a block)."""
    base = hashlib.blake2b(key=check_seed(seed), person=domain)
    for counter in itertools.count():
        block = base.copy()
        block.update(counter.to_bytes(8, "little"))
        yield from _BLOCK.unpack(block.digest())


def below(stream: Iterator[int], bound: int) -> int:
    """An unbiased integer in ``range(bound)`` from the stream (rejection sampling)."""
    if bound < 1:
        raise ValueError(f"bound must be positive, got {bound}")
    limit = _TWO64 - _TWO64 % bound
    for value in stream:
        if value < limit:
            return value % bound
    raise ValueError("the stream ended")


def shuffled(items: Sequence[T], seed: bytes, domain: bytes = DECK_DOMAIN) -> tuple[T, ...]:
    """A Fisher-Yates shuffle of the items, a function of the seed alone."""
    stream = words(seed, domain)
    result = list(items)
    for i in range(len(result) - 1, 0, -1):
        j = below(stream, i + 1)
        result[i], result[j] = result[j], result[i]
    return tuple(result)


def coin(seed: bytes, domain: bytes = DEALER_DOMAIN) -> int:
    """0 or 1, a function of the seed alone (independent of its shuffle: another domain)."""
    return below(words(seed, domain), 2)
