"""The machine-speed figure of ``bench.load`` times the very work it claims to time."""

from __future__ import annotations

import math

from bench import engine_moves


def test_the_speed_is_a_time_per_move_of_a_replay_that_plays_every_scripted_move() -> None:
    scripts = [engine_moves.script(seed) for seed in range(2)]
    moves, act_ns, parts_ns = engine_moves.replay(scripts)
    assert moves == sum(len(script_moves) for _, script_moves in scripts) > 0
    assert act_ns > 0 and parts_ns > 0
    us = engine_moves.speed(matches=2, repeat=1)
    assert 0 < us < math.inf
