"""The AI players' ratings table (``protocol/ai_ratings.py``, written by ``bench.league``): every
player rated, the levels in order and far enough apart to be told apart, easy below Simple."""

from __future__ import annotations

import itertools
from typing import get_args

from protocol.ai_ratings import LEVEL_RATINGS, RATINGS
from protocol.messages import AILevel

#: The least rating gap between two neighbouring levels (issue 22: "at least 150 points apart").
LEVEL_GAP = 150


def test_every_ai_player_has_a_whole_rating_rounded_to_ten_and_simple_is_the_anchor() -> None:
    assert set(RATINGS) == {"easy", "normal", "hard", "simple"}
    assert all(isinstance(rating, int) and rating % 10 == 0 for rating in RATINGS.values())
    assert RATINGS["simple"] == 1500


def test_the_levels_are_in_order_at_least_150_apart_and_easy_is_below_simple() -> None:
    levels = [RATINGS[level] for level in get_args(AILevel)]
    assert get_args(AILevel) == ("easy", "normal", "hard")
    assert all(higher - lower >= LEVEL_GAP for lower, higher in itertools.pairwise(levels))
    assert RATINGS["easy"] < RATINGS["simple"]


def test_the_hello_ack_sends_the_offered_levels_only() -> None:
    assert dict(LEVEL_RATINGS) == {level: RATINGS[level] for level in get_args(AILevel)}
