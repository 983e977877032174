"""How long the AI takes over a move, so that a person can follow its play.

Each move takes the level's seconds (``WorkerSettings.think_for``) times a share drawn between
``JITTER``: about 0.8 to 1.5 s at the default 1.1 s. A room whose person asked for a faster AI
(the view's ``ai_pace``, ``"fast"``: ``create_room``'s option, which any client of the room
reads) takes ``FAST_SHARE`` of that. The time the decision itself took counts toward it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Final

#: The share of the level's seconds a move takes, drawn uniformly between these.
JITTER: Final = (0.75, 1.35)
#: The share a room that asked for a fast AI takes of that.
FAST_SHARE: Final = 0.3


def move_seconds(seconds: float, view: Mapping[str, Any], rng: random.Random) -> float:
    """The time the next move takes in total (0: at once, as tests ask with 0 seconds)."""
    if seconds <= 0:
        return 0.0
    share = rng.uniform(*JITTER)
    if view.get("ai_pace") == "fast":
        share *= FAST_SHARE
    return seconds * share
