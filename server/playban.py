"""The abandonment policy (lichess's playban shape), its constants in one place. Pure.

From the second rated match walked out of within a day, the rated queue is closed to the
player for ``FIRST_SECONDS``, then ``FACTOR`` times longer each time, at most
``LONGEST_SECONDS``; a week without an abandonment forgives them all (``lua/abandon.lua``).
"""

from __future__ import annotations

import math

DAY_SECONDS = 24 * 3600
WEEK_SECONDS = 7 * DAY_SECONDS
FIRST_SECONDS = 10 * 60
FACTOR = 3.0
LONGEST_SECONDS = 48 * 3600


def cooldown_seconds(bans: int) -> int:
    """How long the ``bans``-th cooldown is (the first is 1)."""
    if bans < 1:
        return 0
    return int(min(FIRST_SECONDS * FACTOR ** (bans - 1), LONGEST_SECONDS))


def seconds_left(until_ms: int, now: float) -> int:
    """Whole seconds left of a cooldown that ends at ``until_ms`` (0: none)."""
    return max(0, math.ceil(until_ms / 1000 - now))
