"""Simple: our implementation of Todd Neller's SimpleGinRummyPlayer (the EAAI-21 baseline),
from its published description.

- Takes the upcard or the top discard only if it joins a meld with its cards.
- Discards, among the cards it may discard (never the card it just took), one that leaves the
  least deadwood, chosen at random among equals.
- Knocks as soon as it can (gin when the discard leaves no deadwood).

Not carried over: the original also refuses to repeat a (drawn card, discarded card) pair
within a hand; the view does not say which card a stock draw gave, so it is left out.
"""

from __future__ import annotations

import random

from client.ai.common import (
    ActionDict,
    View,
    discardable,
    fallback,
    finish,
    hand_mask,
    options,
    take_if_it_melds,
    tie_break,
)
from protocol.melds import KNOCK_LIMIT, min_deadwood_mask


def choose(view: View, rng: random.Random) -> ActionDict:
    opts = options(view)
    mask = hand_mask(view)
    if opts.drawing:
        return take_if_it_melds(view, opts, mask, rng)
    if not opts.discarding:
        return fallback(view, rng)
    choices = discardable(opts)
    left = {card: min_deadwood_mask(mask ^ (1 << card)) for card in choices}
    least = min(left.values())
    card = tie_break([c for c in choices if left[c] == least], rng)
    return finish(opts, card, knock=least <= KNOCK_LIMIT)
