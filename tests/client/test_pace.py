"""Issue 24, pacing: the AI's moves take a short, slightly varied time that a person can
follow, its seconds settable per level, shorter in a room that asked for a fast AI, and none
at all with 0 seconds (the tests' workers)."""

from __future__ import annotations

import random

from client.ai.pace import FAST_SHARE, JITTER, move_seconds
from client.ai.worker import WorkerSettings

KEY = {"GIN_AI_WORKER_KEY": "k"}
VIEW = {"mode": "ai", "ai_pace": "normal"}
FAST = {"mode": "ai", "ai_pace": "fast"}


def test_a_move_takes_about_a_second_and_never_the_same_twice() -> None:
    settings = WorkerSettings.from_env(KEY)
    rng = random.Random(5)
    times = [move_seconds(settings.think_for("normal"), VIEW, rng) for _ in range(200)]
    assert min(times) >= 0.8 and max(times) <= 1.5, (min(times), max(times))
    assert len(set(times)) == len(times)
    assert max(times) - min(times) > 0.4  # varied across the whole band, not a constant


def test_a_room_that_asked_for_a_fast_ai_takes_a_share_of_that() -> None:
    pairs = [
        (move_seconds(1.1, VIEW, random.Random(seed)), move_seconds(1.1, FAST, random.Random(seed)))
        for seed in range(50)
    ]
    for normal, fast in pairs:
        assert abs(fast - normal * FAST_SHARE) < 1e-9
    assert max(fast for _, fast in pairs) <= 1.1 * JITTER[1] * FAST_SHARE
    # a view from before the option: the worker's own pace
    assert move_seconds(1.1, {"mode": "ai"}, random.Random(1)) == move_seconds(
        1.1, VIEW, random.Random(1)
    )


def test_zero_seconds_is_no_pause_at_any_pace() -> None:
    settings = WorkerSettings.from_env({**KEY, "GIN_AI_THINK_SECONDS": "0"})
    for level in ("easy", "normal", "hard"):
        assert settings.think_for(level) == 0
        assert move_seconds(settings.think_for(level), FAST, random.Random(2)) == 0
        assert move_seconds(settings.think_for(level), VIEW, random.Random(2)) == 0


def test_each_level_may_have_seconds_of_its_own() -> None:
    settings = WorkerSettings.from_env(
        {**KEY, "GIN_AI_THINK_SECONDS": "1.0", "GIN_AI_THINK_SECONDS_HARD": "0.6"}
    )
    assert settings.think_for("hard") == 0.6
    assert settings.think_for("easy") == settings.think_for("normal") == 1.0
    # compose passes a level's setting empty when the host leaves it unset
    empty = WorkerSettings.from_env({**KEY, "GIN_AI_THINK_SECONDS_EASY": ""})
    assert empty.think_for("easy") == 1.1
