"""The guided first hand: a fixed, friendly deal against the easy AI for a newcomer.

Its seed is public (it is in this file), so its cards are known to anyone: it deals only the
first hand of a room against the easy AI that its person asked to be guided (``create_room``'s
``tutorial``), never a room between people, a rated room or any later hand (each of those is
dealt from fresh entropy, ``server.entropy``). The person (seat 0) does not deal; they are
offered the upcard 3C, which lengthens their run of clubs, and may knock at once:

    person   AC 2C 4C 5C 6C 6S 7C 7D 7S QS   (+3C: AC-6C, 7C 7D 7S; discard QS: 6S, 6 points)
    easy AI  4D 5D 6H 9C AH AS JD JS KD QD
"""

from __future__ import annotations

from typing import Final

#: The first deal of a guided room (``server.engine.new_match`` deals it as any seed).
TUTORIAL_SEED: Final = bytes.fromhex(
    "5a1d2d23943df2e20c6dde724cf79f558895869304e3e0b4186a224cc709e45c"
)
#: The only level a guided hand is played against.
TUTORIAL_LEVEL: Final = "easy"
