"""A seeded random number generator whose whole state is one 64-bit integer.

The generator is SplitMix64 (Steele, Lea and Flood, 2014). The engine keeps its state in the
game state, so a match is reproducible from its seed and can be stored and resumed at any point;
nothing here touches a global generator.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

MASK64 = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
_TWO64 = 1 << 64

T = TypeVar("T")


def check_seed(seed: object) -> int:
    """A seed is an integer from 0 to 2**64 - 1 (it is also the generator's first state)."""
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MASK64:
        raise ValueError(f"a seed is an integer from 0 to 2**64 - 1, got {seed!r}")
    return seed


def next_u64(state: int) -> tuple[int, int]:
    """The next 64-bit output and the new state."""
    state = (state + _GAMMA) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31), state


def below(state: int, bound: int) -> tuple[int, int]:
    """An unbiased integer in ``range(bound)`` and the new state (rejection sampling)."""
    if bound < 1:
        raise ValueError(f"bound must be positive, got {bound}")
    limit = (1 << 64) - (1 << 64) % bound
    while True:
        value, state = next_u64(state)
        if value < limit:
            return value % bound, state


def shuffled(items: Sequence[T], state: int) -> tuple[tuple[T, ...], int]:
    """A Fisher-Yates shuffle of the items and the new state.

    ``j, state = below(state, i + 1)`` for each ``i`` from the top down, with ``below`` and
    ``next_u64`` written out (a deal is 51 draws: the calls were most of its cost).
    """
    result = list(items)
    for i in range(len(result) - 1, 0, -1):
        bound = i + 1
        limit = _TWO64 - _TWO64 % bound
        while True:
            state = (state + _GAMMA) & MASK64
            z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
            z ^= z >> 31
            if z < limit:
                break
        j = z % bound
        result[i], result[j] = result[j], result[i]
    return tuple(result), state
