"""Quick messages between the two players of a room: a fixed list of phrases and emotes.

There is no free text, so there is nothing to moderate: a ``say`` request names one of these
ids and every client shows it in its own player's language. The list only grows in a MINOR
release of the protocol; an id this side does not know is ``invalid_argument``.
"""

from __future__ import annotations

from typing import Final

__all__ = ["EMOTES", "PHRASES", "QUICK_MESSAGES"]

#: Phrases, shown as translated words.
PHRASES: Final = (
    "hello",
    "good_luck",
    "well_played",
    "nice_move",
    "thanks",
    "oops",
    "thinking",
    "good_game",
)
#: Emotes, shown as small pictures (with a translated name for screen readers).
EMOTES: Final = ("smile", "laugh", "wow", "sad", "heart")
#: Every id a ``say`` may name.
QUICK_MESSAGES: Final = PHRASES + EMOTES
