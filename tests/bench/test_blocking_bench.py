"""``python -m bench.blocking`` pairs through the real script with blocks written, and counts
a blocked pair made as one (the figure it prints is not a constant)."""

from __future__ import annotations

import argparse

from bench import blocking


async def test_the_casual_run_writes_blocks_and_makes_no_blocked_pair() -> None:
    args = argparse.Namespace(pairs=300, rate=1.0, blocked=0.3, seed=5)
    waits, bad = await blocking.casual(args, with_blocks=True)
    assert len(waits) >= 600 and bad == 0
    base, _ = await blocking.casual(args, with_blocks=False)
    assert waits != base  # the blocks changed who waited for whom
