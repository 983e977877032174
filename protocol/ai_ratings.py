r"""How strong each AI player is: Glicko-2 ratings on the players' scale (a new player
starts at 1500), from the league of ``bench/league.py`` (docs/ratings.md, "How strong the AI
levels are"). ``simple`` is the benchmark baseline, pinned at 1500; the others are the levels
the lobby offers. Written by the league, not by hand::

    python -m bench.league --players easy simple normal hard \
        --matches 3600 --period 50 --seed 1 --write protocol/ai_ratings.py
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, get_args

from protocol.messages import AILevel

#: Rating of each AI player, rounded to 10.
RATINGS: Final[Mapping[str, int]] = MappingProxyType(
    {
        "easy": 1290,
        "normal": 1470,
        "simple": 1500,
        "hard": 1720,
    }
)

#: The ratings of the levels players are offered, as the ``hello`` ack sends them.
LEVEL_RATINGS: Final[Mapping[str, int]] = MappingProxyType(
    {level: RATINGS[level] for level in get_args(AILevel)}
)
