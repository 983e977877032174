import random

from hypothesis import given
from hypothesis import strategies as st

from server.engine.rng import MASK64, below, check_seed, next_u64, shuffled

states = st.integers(min_value=0, max_value=MASK64)


def test_splitmix64_matches_the_reference_outputs() -> None:
    # First outputs of the reference SplitMix64 seeded with 1234567 (Vigna's splitmix64.c).
    expected = [6457827717110365317, 3203168211198807973, 9817491932198370423]
    state = 1234567
    outputs = []
    for _ in expected:
        value, state = next_u64(state)
        outputs.append(value)
    assert outputs == expected


@given(states, st.integers(min_value=1, max_value=1000))
def test_below_stays_in_range(state: int, bound: int) -> None:
    value, new_state = below(state, bound)
    assert 0 <= value < bound
    assert 0 <= new_state <= MASK64
    assert below(state, bound) == (value, new_state)


def test_below_rejects_an_empty_range() -> None:
    try:
        below(1, 0)
    except ValueError as error:
        assert "positive" in str(error)
    else:
        raise AssertionError("below(1, 0) should raise")


def test_below_covers_every_value_evenly_enough() -> None:
    counts = [0] * 6
    state = 42
    for _ in range(6000):
        value, state = below(state, 6)
        counts[value] += 1
    assert all(800 < count < 1200 for count in counts), counts


@given(states, st.lists(st.integers(), max_size=60))
def test_shuffle_is_a_deterministic_permutation(state: int, items: list[int]) -> None:
    result, new_state = shuffled(items, state)
    assert sorted(result) == sorted(items)
    assert shuffled(items, state) == (result, new_state)


def test_shuffle_reaches_every_order_of_three() -> None:
    seen = {shuffled("abc", seed)[0] for seed in range(200)}
    assert len(seen) == 6


@given(st.one_of(st.integers(max_value=-1), st.integers(min_value=MASK64 + 1), st.booleans()))
def test_seed_out_of_range_is_refused(seed: int) -> None:
    try:
        check_seed(seed)
    except ValueError:
        return
    raise AssertionError(f"seed {seed!r} should be refused")


def _reference_shuffled(items: list[int], state: int) -> tuple[tuple[int, ...], int]:
    """The shuffle as first written, on ``below``."""
    result = list(items)
    for i in range(len(result) - 1, 0, -1):
        j, state = below(state, i + 1)
        result[i], result[j] = result[j], result[i]
    return tuple(result), state


def test_shuffled_is_the_shuffle_on_below() -> None:
    rnd = random.Random(5)
    for size in (0, 1, 2, 3, 7, 52, 53):
        for _ in range(200):
            state = rnd.choice([0, MASK64, MASK64 - 0x9E3779B97F4A7C15, rnd.getrandbits(64)])
            items = list(range(size))
            assert shuffled(items, state) == _reference_shuffled(items, state)
